#!/bin/sh
# bench/workload-xz.sh [BUILD_DIR] [EQUIVALENCE] - the real workload of
# issue 7: `xz -d` of 64 MiB of shared libraries, glibc's mem* against the
# auto kernels (libprimswitch.so on both sides, so only the kernels differ),
# with `primbench cmd --until-verdict` on user time and the accounting table
# that explains the verdict. The auto policy is the one `primbench tune`
# wrote (or the built-in default); the run prints which.
#
# Input: the first 64 MiB of the sorted concatenation of
# /usr/lib/x86_64-linux-gnu/*.so.* (a fixed machine's files; ~1 s to
# decompress), compressed with `xz -1 -T1`. Needs xz-utils.
# Numbers of record: docs/performance.md, "A real workload".
# Usage: bench/workload-xz.sh [build] [2%]
set -eu
build=${1:-build}
eq=${2:-2%}
pb=$build/primbench
[ -x "$pb" ] || {
	echo "$0: no $pb (build first)" >&2
	exit 2
}
command -v xz >/dev/null || {
	echo "$0: xz not found (Debian package xz-utils)" >&2
	exit 2
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck disable=SC2046
cat $(ls /usr/lib/x86_64-linux-gnu/*.so.* | LC_ALL=C sort) 2>/dev/null |
	head -c 67108864 >"$tmp/bin64.bin"
xz -1 -T1 -c "$tmp/bin64.bin" >"$tmp/bin64.bin.xz"
rm -f "$tmp/bin64.bin"
for op in memset memcpy memmove; do "$pb" list --op $op | grep -A2 "auto is" | grep -v "^$" || true; done
"$pb" cmd --until-verdict --equivalence "$eq" --max-runs 120 --metric user --account=ticks \
	--memset libc --memcpy libc --memmove libc \
	--vs-memset auto --vs-memcpy auto --vs-memmove auto \
	-- xz -d -c "$tmp/bin64.bin.xz"
