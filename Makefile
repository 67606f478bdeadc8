# The README's two commands:
#   make run    set-up (Debian packages when root), build build/, then the
#               default suite
#   make test   set-up; build build-test/ (build/'s configuration plus
#               -Werror) and build-asan/ (ASan+UBSan, -Werror); compile, with
#               -Werror, the configurations users and packagers build: gcc
#               Release (-O3), clang Release (its kernel objects and
#               libprimswitch.so checked for mem* calls) and the generic C
#               path (-DPRIMBENCH_ARCH=none), every target (their tests are
#               not run: compiling them is cheap, running them is not); then
#               run every test in build-test/ and build-asan/.
#               Then make fuzz-smoke.
#   make fuzz   the fuzz build (build-fuzz/: clang, libFuzzer, ASan+UBSan)
#               and every fuzz target of tests/fuzz for FUZZ_SECONDS each
#               (default 180; the kernels' target once per feature
#               profile), then their corpora replayed in build-test/
#               (tests/fuzz/README.md)
#   make fuzz-smoke   each fuzz target for FUZZ_SMOKE_SECONDS (default 5)
#               on its corpus: part of make test
#   make test-arm64   the arm64 cross build (build-arm64/, -Werror) and its
#               tests under QEMU's user-mode emulator (README, "arm64:
#               cross-building and testing under QEMU")
#   make static   build-static/primbench linked statically (-static: glibc,
#               jansson, GSL, hwloc, zlib), with libprimswitch.so and the
#               tiny programs beside it; then its checks: file(1) calls it
#               static, it preloads the library beside it, and, as root, it
#               runs selftest, info and a short default run in a chroot
#               holding nothing else (tests/install/static.sh;
#               docs/install.md, "A static binary")
#   make install PREFIX=/usr/local   (DESTDIR=... stages it; cmake/install.cmake
#               says what goes where)
#   make deb    the Debian packages (debian/: primbench and libprimbench-dev)
#               built by dpkg-buildpackage -b in a copy of the tree
#               (build-deb/src/), the .debs in build-deb/, then lintian on
#               them (scripts/deps.sh deb; docs/install.md, "Debian package")
#   make test-deb   make deb, then tests/install/deb-chroot.sh: a fresh
#               Debian 12 chroot (debootstrap; root and the mirror),
#               apt-get install ./primbench_*.deb, selftest and a cmd run
#               inside (a few minutes the first time; the bootstrap is
#               cached in build-deb/chroot-cache/)
#   make test-kmod   the module and `primbench kernel clear_page` in a
#               Debian kernel booted under qemu (tests/kmod/run.sh:
#               linux-headers and linux-image of one ABI fetched with
#               apt-get download into build-kmod/debs/ and unpacked, the
#               module built against them from a copy in build-kmod/src/
#               (kmod/ gets no module for that kernel), an initramfs of
#               busybox, the .ko, the static primbench and
#               tests/kmod/abi_test.c; KVM
#               when it boots, TCG otherwise; the serial log in
#               build-kmod/serial.log). Nothing is loaded into the host's
#               kernel. scripts/deps.sh kmod installs qemu and the tools.
#   make html-screenshot   docs/img/report.png: the default run's HTML
#               report in headless Chromium (scripts/deps.sh html), taken by
#               the browser test (tests/html/browser.sh) with build/'s
#               primbench when all its checks pass
#   make kmod [KDIR=...]   the kernel module kmod/primbench_kmod.ko against
#               KDIR (default /lib/modules/$(uname -r)/build: the running
#               kernel's headers); stops with one line when KDIR has no
#               Makefile (kmod/Makefile; docs/kernel.md)
# -Werror only where make test builds (PRIMBENCH_WERROR, cmake/compiler.cmake):
# a warning a newer compiler invents must not break make run or a package.
BUILD         ?= build
TEST_BUILD    ?= build-test
ASAN_BUILD    ?= build-asan
RELEASE_BUILD ?= build-release
CLANG_BUILD   ?= build-clang
NONE_BUILD    ?= build-none
FUZZ_BUILD    ?= build-fuzz
FUZZ_SECONDS  ?= 180
FUZZ_SMOKE_SECONDS ?= 5
ARM64_BUILD   ?= build-arm64
STATIC_BUILD  ?= build-static
DEB_BUILD     ?= build-deb
CLANG         ?= clang
JOBS          ?= $(shell nproc 2>/dev/null || echo 2)
PREFIX        ?= /usr/local
KDIR          ?= /lib/modules/$(shell uname -r)/build

.PHONY: all deps build build-test build-asan build-release build-clang build-none \
	build-fuzz fuzz fuzz-smoke run test test-arm64 static deb test-deb test-kmod html-screenshot kmod install format clean

all: build

deps:
	@sh scripts/deps.sh

build: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPRIMBENCH_WERROR=OFF
	cmake --build $(BUILD) -j $(JOBS)

build-test: deps
	cmake -S . -B $(TEST_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPRIMBENCH_WERROR=ON
	cmake --build $(TEST_BUILD) -j $(JOBS)

build-asan: deps
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG="-O1 -g" \
		-DPRIMBENCH_SANITIZE=ON -DPRIMBENCH_WERROR=ON
	cmake --build $(ASAN_BUILD) -j $(JOBS)

build-release: deps
	cmake -S . -B $(RELEASE_BUILD) -DCMAKE_C_COMPILER=gcc -DCMAKE_BUILD_TYPE=Release \
		-DPRIMBENCH_WERROR=ON
	cmake --build $(RELEASE_BUILD) -j $(JOBS)

# clang's kernel objects and libprimswitch.so: no reference to a mem*
# function (its flags for that differ from gcc's: cmake/compiler.cmake).
build-clang: deps
	cmake -S . -B $(CLANG_BUILD) -DCMAKE_C_COMPILER=$(CLANG) -DCMAKE_BUILD_TYPE=Release \
		-DPRIMBENCH_WERROR=ON
	cmake --build $(CLANG_BUILD) -j $(JOBS)
	cd $(CLANG_BUILD) && ctest --output-on-failure --no-tests=error \
		-R '^(kernel_symbols|preload_symbols)$$'

build-none: deps
	cmake -S . -B $(NONE_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPRIMBENCH_ARCH=none \
		-DPRIMBENCH_WERROR=ON
	cmake --build $(NONE_BUILD) -j $(JOBS)

# The fuzz targets only (the fuzz build builds nothing else).
build-fuzz: deps
	cmake -S . -B $(FUZZ_BUILD) -DCMAKE_C_COMPILER=$(CLANG) -DCMAKE_BUILD_TYPE=Debug \
		-DCMAKE_C_FLAGS_DEBUG="-O1 -g" -DPRIMBENCH_FUZZ=ON -DPRIMBENCH_WERROR=ON
	cmake --build $(FUZZ_BUILD) -j $(JOBS) --target fuzz_all

fuzz: build-fuzz build-test
	sh tests/fuzz/run.sh --replay $(TEST_BUILD) $(FUZZ_BUILD) $(FUZZ_SECONDS)

fuzz-smoke: build-fuzz
	sh tests/fuzz/run.sh --smoke $(FUZZ_BUILD) $(FUZZ_SMOKE_SECONDS)

run: build
	./$(BUILD)/primbench

# Tests assert no timings, so they may share the CPUs (the two that send a
# signal after a delay run alone: RUN_SERIAL in tests/CMakeLists.txt).
# Every build first: a warning fails in minutes, not after the tests.
test: build-test build-asan build-release build-clang build-none build-fuzz
	cd $(TEST_BUILD) && ctest --output-on-failure -j $(JOBS)
	cd $(ASAN_BUILD) && ctest --output-on-failure -j $(JOBS)
	sh tests/fuzz/run.sh --smoke $(FUZZ_BUILD) $(FUZZ_SMOKE_SECONDS)

# arm64: cross gcc and qemu-user (scripts/deps.sh arm64), the arm64 -dev
# packages unpacked into a private sysroot (scripts/arm64-sysroot.sh: never
# installed through multiarch), the cross build with -Werror
# (cmake/aarch64-linux-gnu.cmake), every test under qemu-aarch64 -cpu max,
# then selftest --standard and the vector-length matrix
# (scripts/test-arm64.sh: SVE at 128, 256, 512 and 2048 bits, DC ZVA
# blocks of 64, 256 and 512 bytes).
test-arm64: deps
	@sh scripts/deps.sh arm64
	sh scripts/arm64-sysroot.sh $(ARM64_BUILD)/sysroot
	cmake -S . -B $(ARM64_BUILD) -DCMAKE_TOOLCHAIN_FILE=$(CURDIR)/cmake/aarch64-linux-gnu.cmake \
		-DCMAKE_BUILD_TYPE=RelWithDebInfo -DPRIMBENCH_WERROR=ON
	cmake --build $(ARM64_BUILD) -j $(JOBS)
	cd $(ARM64_BUILD) && ctest --output-on-failure -j $(JOBS)
	sh scripts/test-arm64.sh $(ARM64_BUILD)

# The static binary (-DPRIMBENCH_STATIC=ON: CMakeLists.txt says how hwloc's
# udev and plugins are dealt with). Its build directory builds primbench,
# libprimswitch.so and the tiny programs only, and registers only the
# static_* tests; without -Werror, like make build (a user's build).
static: deps
	@sh scripts/deps.sh static
	cmake -S . -B $(STATIC_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPRIMBENCH_WERROR=OFF \
		-DPRIMBENCH_STATIC=ON
	cmake --build $(STATIC_BUILD) -j $(JOBS)
	cd $(STATIC_BUILD) && ctest --output-on-failure --no-tests=error -R '^static_'

# The Debian packages: dpkg-buildpackage writes into the parent of the
# tree it builds, so it builds a copy (the files git knows, committed or
# not, plus untracked ones not ignored) in $(DEB_BUILD)/src/, and the .debs
# land in $(DEB_BUILD)/. Then lintian, whose errors and warnings fail the
# target (debian/*.lintian-overrides explain the few it is wrong about).
deb:
	@sh scripts/deps.sh deb
	rm -rf $(DEB_BUILD)/src $(DEB_BUILD)/*.deb $(DEB_BUILD)/*.ddeb \
		$(DEB_BUILD)/*.buildinfo $(DEB_BUILD)/*.changes
	mkdir -p $(DEB_BUILD)/src
	git ls-files -z -c -o --exclude-standard | xargs -0 cp -P --parents -t $(DEB_BUILD)/src
	cd $(DEB_BUILD)/src && DEB_BUILD_OPTIONS="parallel=$(JOBS) $$DEB_BUILD_OPTIONS" \
		dpkg-buildpackage -b -us -uc
	lintian --fail-on error,warning $(DEB_BUILD)/*.deb
	@ls -l $(DEB_BUILD)/*.deb

# The .deb installed into a fresh Debian 12 chroot (needs root, debootstrap
# and the mirror; skips with 77 otherwise): tests/install/deb-chroot.sh.
test-deb: deb
	@rc=0; sh tests/install/deb-chroot.sh $(DEB_BUILD)/primbench_*.deb || rc=$$?; \
	if [ $$rc -eq 77 ]; then echo "test-deb: skipped (see the line above)"; else exit $$rc; fi

# The kernel module under qemu (tests/kmod/run.sh says each step; its
# environment: KMOD_ABI=6.1.0-NN, KMOD_ACCEL=tcg, KMOD_TIMEOUT=seconds).
# The static primbench is built in $(STATIC_BUILD)/ with make static's
# configuration (its checks are make static's, not run here).
test-kmod: deps
	@sh scripts/deps.sh kmod
	STATIC_BUILD=$(STATIC_BUILD) sh tests/kmod/run.sh

# The README's screenshot: the browser test's pages from build/'s primbench,
# every check on, the default run's page photographed; replaced only when
# every check passed.
html-screenshot: build
	@sh scripts/deps.sh html
	sh tests/html/browser.sh $(BUILD)/primbench --screenshot $(BUILD)/html/report.png
	mkdir -p docs/img && cp $(BUILD)/html/report.png docs/img/report.png

# Configured with the prefix too: GNUInstallDirs picks libdir from it
# (lib/x86_64-linux-gnu under /usr on Debian). Never the sanitizer build.
install: build
	cmake -S . -B $(BUILD) -DCMAKE_INSTALL_PREFIX=$(PREFIX)
	cmake --build $(BUILD) -j $(JOBS)
	cmake --install $(BUILD) --prefix $(PREFIX)

kmod:
	$(MAKE) -C kmod KDIR=$(KDIR)

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

clean:
	rm -rf $(BUILD) $(TEST_BUILD) $(ASAN_BUILD) $(RELEASE_BUILD) $(CLANG_BUILD) $(NONE_BUILD) $(ARM64_BUILD) $(FUZZ_BUILD) $(STATIC_BUILD) $(DEB_BUILD) build-kmod
