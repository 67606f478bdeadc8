#!/bin/sh
# Builds a private arm64 sysroot of the Debian -dev packages primbench links
# against, for the cross build (cmake/aarch64-linux-gnu.cmake, make
# test-arm64):
#   scripts/arm64-sysroot.sh DIR
# DIR/root holds the unpacked packages (usr/include, usr/lib/aarch64-linux-gnu
# with its pkgconfig/, lib/aarch64-linux-gnu). Nothing is installed: arm64
# packages through multiarch would replace amd64 ones (libgsl-dev is not
# Multi-Arch: same) or pull amd64 upgrades. Instead apt runs on a state of
# its own under DIR/apt (the system's sources, architecture arm64, an empty
# dpkg status), `apt-get download`s the packages below and `dpkg-deb -x`
# unpacks each into DIR/root. The system's apt and dpkg state are not
# touched, so root is not needed. Run again, it does nothing while
# DIR/root/.complete names the same package list.
#
# The packages: the -dev packages of the libraries primbench's CMakeLists.txt
# finds (jansson, GSL, hwloc, cmocka, zlib), the runtime packages their .so
# symlinks point to, and those runtime packages' own shared-library
# dependencies the linker must see (libhwloc.so.15 needs libudev.so.1).
# libc comes from the cross toolchain (libc6-dev-arm64-cross in
# /usr/aarch64-linux-gnu), not from here.
set -eu

PACKAGES="libjansson-dev libjansson4 libgsl-dev libgsl27 libgslcblas0 libhwloc-dev libhwloc15 libudev1 libcmocka-dev libcmocka0 zlib1g-dev zlib1g"

[ $# -eq 1 ] || { echo "usage: $0 DIR" >&2; exit 2; }
mkdir -p "$1"
dir=$(cd "$1" && pwd)
root=$dir/root
stamp=$root/.complete

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$PACKAGES" ]; then
	exit 0
fi

for tool in apt-get dpkg-deb; do
	command -v "$tool" >/dev/null || { echo "arm64-sysroot: $tool not found (Debian's apt and dpkg)" >&2; exit 1; }
done

apt=$dir/apt
rm -rf "$apt" "$root"
mkdir -p "$apt/lists/partial" "$apt/archives/partial" "$apt/debs" "$apt/etc/preferences.d" "$root"
: >"$apt/status"
# The system's sources (sources.list and sources.list.d), read only; every
# other piece of apt state is this directory's.
set -- -o APT::Architecture=arm64 -o APT::Architectures::=arm64 \
	-o Dir::State="$apt" -o Dir::State::Lists="$apt/lists" -o Dir::State::status="$apt/status" \
	-o Dir::Cache="$apt" -o Dir::Cache::archives="$apt/archives" \
	-o Dir::Cache::pkgcache="" -o Dir::Cache::srcpkgcache="" \
	-o Dir::Etc::Preferences="$apt/etc/preferences" -o Dir::Etc::PreferencesParts="$apt/etc/preferences.d" \
	-o Debug::NoLocking=1 -o APT::Sandbox::User="$(id -un)" -o Acquire::Languages=none

echo "arm64-sysroot: package lists for arm64 (apt state in $apt)" >&2
apt-get -q "$@" update >"$apt/update.log" 2>&1 || { cat "$apt/update.log" >&2; exit 1; }

echo "arm64-sysroot: downloading $PACKAGES" >&2
# shellcheck disable=SC2086
(cd "$apt/debs" && apt-get -q "$@" download $PACKAGES) >"$apt/download.log" 2>&1 ||
	{ cat "$apt/download.log" >&2; exit 1; }

for deb in "$apt"/debs/*.deb; do
	arch=$(dpkg-deb -f "$deb" Architecture)
	case $arch in
	arm64 | all) ;;
	*) echo "arm64-sysroot: $deb is for $arch, not arm64" >&2; exit 1 ;;
	esac
	dpkg-deb -x "$deb" "$root"
done

# Absolute symlinks (zlib1g-dev's usr/lib/aarch64-linux-gnu/libz.so ->
# /lib/aarch64-linux-gnu/libz.so.1.2.13) would point at the host's files:
# point them inside the sysroot instead.
find "$root" -type l | while read -r link; do
	target=$(readlink "$link")
	case $target in
	/*) ln -sfn "$root$target" "$link" ;;
	esac
done
# Every library the -dev symlinks name must be there.
find "$root" -type l -name '*.so*' | while read -r link; do
	[ -e "$link" ] || { echo "arm64-sysroot: dangling $link -> $(readlink "$link")" >&2; exit 1; }
done

printf '%s\n' "$PACKAGES" >"$stamp"
echo "arm64-sysroot: $root" >&2
