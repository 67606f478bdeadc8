# Cross build for arm64 (aarch64) Linux with Debian's cross gcc
# (gcc-aarch64-linux-gnu: its libc in /usr/aarch64-linux-gnu), tests run
# under QEMU's user-mode emulator (qemu-user: qemu-aarch64). make test-arm64
# uses it:
#   scripts/arm64-sysroot.sh build-arm64/sysroot
#   cmake -S . -B build-arm64 -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake
#
# PB_ARM64_SYSROOT: the private sysroot of arm64 -dev packages that
# scripts/arm64-sysroot.sh unpacks (its root/ directory); default
# <build dir>/sysroot/root. The libraries come from there, libc from the
# cross toolchain.
#
# PB_QEMU_CPU: the -cpu of the emulator ctest runs the target's programs
# under (default max: every feature QEMU has, SVE at 512 bits);
# scripts/test-arm64.sh runs some tests again under other CPUs.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(PB_CROSS_LIBC /usr/aarch64-linux-gnu)

# try_compile projects read this file again in their own directory: the
# sysroot and CPU reach them through CMAKE_TRY_COMPILE_PLATFORM_VARIABLES.
if(NOT PB_ARM64_SYSROOT)
  set(PB_ARM64_SYSROOT "${CMAKE_BINARY_DIR}/sysroot/root" CACHE PATH
    "arm64 sysroot of the -dev packages (scripts/arm64-sysroot.sh DIR makes DIR/root)")
endif()
if(NOT PB_QEMU_CPU)
  set(PB_QEMU_CPU max CACHE STRING "qemu-aarch64 -cpu for the tests")
endif()
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES PB_ARM64_SYSROOT PB_QEMU_CPU)
if(NOT EXISTS "${PB_ARM64_SYSROOT}/usr/lib/aarch64-linux-gnu")
  message(FATAL_ERROR "no arm64 sysroot at ${PB_ARM64_SYSROOT}: "
    "run scripts/arm64-sysroot.sh ${CMAKE_BINARY_DIR}/sysroot first (make test-arm64 does)")
endif()
set(PB_ARM64_LIBDIRS
  "${PB_ARM64_SYSROOT}/usr/lib/aarch64-linux-gnu" "${PB_ARM64_SYSROOT}/lib/aarch64-linux-gnu")

# Headers and libraries from the sysroot and the cross libc only; programs
# (python3, sh, git) from the host.
set(CMAKE_FIND_ROOT_PATH "${PB_ARM64_SYSROOT}" "${PB_CROSS_LIBC}")
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# pkg-config reads only the sysroot's .pc files, and prefixes their -I and
# -L paths (gsl.pc names /usr/lib/... outright) with the sysroot.
set(ENV{PKG_CONFIG_LIBDIR}
  "${PB_ARM64_SYSROOT}/usr/lib/aarch64-linux-gnu/pkgconfig:${PB_ARM64_SYSROOT}/usr/share/pkgconfig")
set(ENV{PKG_CONFIG_SYSROOT_DIR} "${PB_ARM64_SYSROOT}")
set(ENV{PKG_CONFIG_PATH} "")

# Debian's multiarch headers (hwloc/autogen/config.h) live in
# usr/include/aarch64-linux-gnu, a directory the native gcc searches by
# itself and the cross gcc does not: a system directory here too.
set(CMAKE_C_FLAGS_INIT "-isystem ${PB_ARM64_SYSROOT}/usr/include/aarch64-linux-gnu")

# The linker finds the libraries' own dependencies (libhwloc.so.15 needs
# libudev.so.1) through -rpath-link; nothing of the sysroot is recorded in
# the binaries beyond CMake's build RPATH.
list(JOIN PB_ARM64_LIBDIRS ":" PB_ARM64_LIBPATH)
foreach(kind EXE SHARED MODULE)
  set(CMAKE_${kind}_LINKER_FLAGS_INIT "-Wl,-rpath-link,${PB_ARM64_LIBPATH}")
endforeach()

# ctest runs each test executable as: qemu-aarch64 -L <cross libc> -cpu CPU
# -E LD_LIBRARY_PATH=<sysroot libs> PROGRAM ARGS. Scripts that run
# primbench themselves get the same list (PB_TEST_EMULATOR in
# tests/CMakeLists.txt). qemu -L: the guest's /lib/ld-linux-aarch64.so.1 and
# libc are looked up under the cross libc first.
find_program(PB_QEMU_AARCH64 qemu-aarch64)
if(NOT PB_QEMU_AARCH64)
  message(FATAL_ERROR "qemu-aarch64 not found (Debian package qemu-user)")
endif()
set(CMAKE_CROSSCOMPILING_EMULATOR "${PB_QEMU_AARCH64}" -L "${PB_CROSS_LIBC}" -cpu "${PB_QEMU_CPU}"
  -E "LD_LIBRARY_PATH=${PB_ARM64_LIBPATH}")
