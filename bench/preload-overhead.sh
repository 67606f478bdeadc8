#!/bin/sh
# bench/preload-overhead.sh [BUILD_DIR] [RUNS] - what libprimswitch.so
# costs a program that does little but call memcpy (bench/memcpy-heavy.c:
# 20M calls of 16 B..4 KiB, hot buffers, about 8 ns each), timed with
# `primbench cmd` in ABBA order against the same program without the
# library: the library with libc's memcpy (PRIMBENCH_MEMCPY=libc), with
# accounting (PRIMBENCH_ACCOUNT=1), with ticks (PRIMBENCH_ACCOUNT=ticks,
# one call in 64 timed); in one thread (the main thread: the process stays
# single-threaded) and in two threads (shared counters, both CPUs busy).
# Prints per case the medians, the ratio B/A with its 95% CI, and the
# difference per call. Numbers of record: docs/preload.md, "Overhead".
# Usage: bench/preload-overhead.sh [build] [20]
set -eu
build=${1:-build}
runs=${2:-20}
pb=$build/primbench
so=$(cd "$build" && pwd)/libprimswitch.so
[ -x "$pb" ] && [ -r "$so" ] || {
	echo "$0: no $pb or $so (build first)" >&2
	exit 2
}
calls=20000000
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
heavy=$tmp/memcpy-heavy
# The flags of cmake/compiler.cmake's PB_NO_LIBCALL_FLAGS, by compiler.
nolibcall="-fno-builtin -fno-tree-loop-distribute-patterns"
if ${CC:-cc} --version 2>/dev/null | grep -q clang; then nolibcall=-fno-builtin; fi
# shellcheck disable=SC2086
${CC:-cc} -O2 $nolibcall -pthread -o "$heavy" "$(dirname "$0")/memcpy-heavy.c"

echo "memcpy-heavy: $calls memcpy calls (16 B..4 KiB, hot), $runs runs per side, ABBA;"
echo "A: no library; ratio B/A of real time, 95% CI (Hodges-Lehmann)"
echo
# case THREADS LABEL ENV...: one A/B comparison, summarised on one line.
case_ab() {
	threads=$1 label=$2
	shift 2
	vs=
	for e in "$@"; do vs="$vs --vs-env $e"; done
	# shellcheck disable=SC2086
	"$pb" cmd -n "$runs" -w 1 --vs-env LD_PRELOAD="$so" $vs -- "$heavy" $calls "$threads" \
		>"$tmp/out" 2>&1 || { cat "$tmp/out"; exit 1; }
	awk -v t="$threads" -v l="$label" -v calls=$calls '
		function ms(v, u) { return u ~ /^s/ ? v * 1000 : u ~ /^us/ ? v / 1000 : v }
		/^  median A/ { a = ms($3, $4); b = ms($6, $7); diff = ms($9, $10) }
		/^  ratio B\/A/ { r = $3; ci = $6 " " $7 }
		END {
			printf "%d thread%s  %-28s A %7.1f ms  B %7.1f ms  B/A %.3f %s  %+.2f ns/call\n",
			    t, (t > 1 ? "s" : " "), l, a, b, r, ci, diff * 1e6 / calls
		}' "$tmp/out"
}
for threads in 1 2; do
	case_ab "$threads" "PRIMBENCH_MEMCPY=libc" PRIMBENCH_MEMCPY=libc
	case_ab "$threads" "PRIMBENCH_ACCOUNT=1" PRIMBENCH_MEMCPY=libc PRIMBENCH_ACCOUNT=1 \
		PRIMBENCH_ACCOUNT_DIR="$tmp"
	case_ab "$threads" "PRIMBENCH_ACCOUNT=ticks" PRIMBENCH_MEMCPY=libc \
		PRIMBENCH_ACCOUNT=ticks PRIMBENCH_ACCOUNT_DIR="$tmp"
	rm -f "$tmp"/*.acct
done
