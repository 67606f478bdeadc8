# The README's two commands:
#   make run    set-up (Debian packages when root), build, then the default suite
#   make test   set-up, build (plus an ASan+UBSan build), then every test
#   make install PREFIX=/usr/local   (DESTDIR=... stages it; cmake/install.cmake
#               says what goes where)
BUILD      ?= build
ASAN_BUILD ?= build-asan
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
PREFIX     ?= /usr/local

.PHONY: all deps build build-asan run test install format clean

all: build

deps:
	@sh scripts/deps.sh

build: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo
	cmake --build $(BUILD) -j $(JOBS)

build-asan: deps
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG="-O1 -g" -DPRIMBENCH_SANITIZE=ON
	cmake --build $(ASAN_BUILD) -j $(JOBS)

run: build
	./$(BUILD)/primbench

# Tests assert no timings, so they may share the CPUs (the two that send a
# signal after a delay run alone: RUN_SERIAL in tests/CMakeLists.txt).
test: build build-asan
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)
	cd $(ASAN_BUILD) && ctest --output-on-failure -j $(JOBS)

# Configured with the prefix too: GNUInstallDirs picks libdir from it
# (lib/x86_64-linux-gnu under /usr on Debian). Never the sanitizer build.
install: build
	cmake -S . -B $(BUILD) -DCMAKE_INSTALL_PREFIX=$(PREFIX)
	cmake --build $(BUILD) -j $(JOBS)
	cmake --install $(BUILD) --prefix $(PREFIX)

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
