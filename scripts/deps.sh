#!/bin/sh
# Installs the Debian packages primbench needs to build and test
# (scripts/deps.sh), or those the arm64 cross build and its emulated tests
# add (scripts/deps.sh arm64: make test-arm64; the arm64 libraries
# themselves are unpacked by scripts/arm64-sysroot.sh, not installed), or
# the browser the HTML report's test opens its pages in (scripts/deps.sh
# html: Debian's chromium, ~120 MB to download and ~400 MB installed
# with its libraries, so not part of the default set-up;
# tests/html/browser.sh skips without it), or the fleet set (scripts/deps.sh
# fleet: Debian's ansible, ~21 MB to download and ~290 MB installed, about
# 50 s; tests/fleet/playbook.sh skips without it), the static set
# (scripts/deps.sh static: file, which make static's check asks whether the
# binary is statically linked; the static archives come with the -dev
# packages of the default set), zsh (scripts/deps.sh completion: ~5 MB
# to download, ~19 MB installed; the zsh half of the tab completion's
# test, ctest cli_completion_zsh, skips without it), or the Debian
# package's tools (scripts/deps.sh deb: dpkg-buildpackage with debhelper,
# lintian, and debootstrap for the chroot test; make deb, make test-deb),
# or the kernel module's test set (scripts/deps.sh kmod: make test-kmod,
# tests/kmod/run.sh): qemu-system-x86 to boot Debian's kernel, cpio and
# busybox-static for its initramfs, and what building a module against
# Debian's unpacked linux-headers needs: the gcc-N that
# linux-headers-ABI-amd64 depends on through linux-compiler-gcc-N-x86
# (gcc-12 for Debian 12's 6.1.0-NN, and when the lists do not say), make, and libelf1 and libssl3 (libssl3t64 from Debian 13 on) (what
# linux-kbuild-6.1's prebuilt fixdep, modpost and objtool link against:
# the headers are unpacked, not installed, so apt does not pull them in).
# In a fresh Debian 12 (debootstrap minbase) chroot: 6 s to install, and
# with the default set make test-kmod passed there.
# As root: apt-get installs whatever is missing. Otherwise: prints the exact
# apt-get line and exits 1 when something is missing.
set -eu

if [ "${1:-}" = arm64 ]; then
	PACKAGES="gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user"
elif [ "${1:-}" = html ]; then
	PACKAGES="chromium"
elif [ "${1:-}" = deb ]; then
	PACKAGES="dpkg-dev debhelper fakeroot lintian debootstrap cmake pkg-config gcc libc6-dev libjansson-dev libgsl-dev libhwloc-dev zlib1g-dev"
elif [ "${1:-}" = fleet ]; then
	PACKAGES="ansible"
elif [ "${1:-}" = static ]; then
	PACKAGES="file"
elif [ "${1:-}" = kmod ]; then
	# The compiler of the headers make test-kmod builds against: what
	# linux-headers-ABI-amd64 depends on through linux-compiler-gcc-N-x86
	# (ABI: KMOD_ABI, or linux-headers-amd64's); gcc-12 (Debian 12's) when
	# the package lists do not say.
	kabi=${KMOD_ABI:-$(apt-cache depends linux-headers-amd64 2>/dev/null |
		sed -n 's/^ *Depends: linux-headers-\([0-9][^ ]*\)-amd64$/\1/p' | head -n1)}
	kcc=$(apt-cache depends "linux-headers-$kabi-amd64" 2>/dev/null |
		sed -n 's/^ *Depends: linux-compiler-\(gcc-[0-9][0-9]*\)-x86$/\1/p' | head -n1)
	# OpenSSL 3's library is libssl3t64 from Debian 13 on (the 64-bit
	# time_t transition), libssl3 before.
	kssl=libssl3
	if apt-cache show libssl3t64 >/dev/null 2>&1; then kssl=libssl3t64; fi
	PACKAGES="qemu-system-x86 cpio busybox-static ${kcc:-gcc-12} make libelf1 $kssl"
elif [ "${1:-}" = completion ]; then
	PACKAGES="zsh"
else
	PACKAGES="gcc clang libclang-rt-dev make cmake pkg-config libc6-dev libjansson-dev libgsl-dev libhwloc-dev libcmocka-dev zlib1g-dev binutils ministat groff-base gnuplot-nox python3 python3-jsonschema"
fi

missing=""
for p in $PACKAGES; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		missing="$missing $p"
	fi
done

[ -z "$missing" ] && exit 0

if [ "$(id -u)" -eq 0 ]; then
	echo "deps: installing:$missing" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing
else
	echo "deps: missing Debian packages:$missing" >&2
	echo "deps: run as root:  apt-get update && apt-get install -y --no-install-recommends$missing" >&2
	exit 1
fi
