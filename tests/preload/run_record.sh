#!/bin/sh
# run_record.sh PRIMBENCH ACCT_PROBE - record -> replay round trip (issue 9):
# `primbench cmd --account --record-distribution DIR -- preload_acct_probe
# run` (threads, fork children that _exit, die by SIGKILL and exec; the
# calls are listed in acct_probe.c) must write DIR/memset.csv,
# memcpy.csv, memmove.csv with exactly those calls at their sizes,
# memcpy.large.csv with the 1 MiB copies, and each CSV must replay with
# `mem --distribution`. Exit: 0 passed, 1 otherwise.
set -u
bin=$1 probe=$2
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() {
	echo "FAIL: $*"
	fail=1
}
if ! "$bin" cmd -n 1 -w 0 --account --record-distribution "$tmp/rec" -- "$probe" run \
	>"$tmp/out" 2>"$tmp/err"; then
	bad "cmd exited non-zero:"
	cat "$tmp/out" "$tmp/err"
	exit 1
fi
# value at size N (bytes) of a CSV, 0 past its end
at() {
	tr ',' '\n' <"$1" | awk -v n="$2" 'NR == n + 1 { v = $0 } END { print v + 0 }'
}
# the only non-zero sizes, as "size:count ..."
nonzero() {
	tr ',' '\n' <"$1" | awk '$0 != 0 { printf "%s%d:%s", sep, NR - 1, $0; sep = " " } END { print "" }'
}
# memset: 2 explicit_bzero of 5, 2 x 1000 memset of 100, 5 bzero of 4096
[ "$(nonzero "$tmp/rec/memset.csv")" = "5:2 100:2000 4096:5" ] ||
	bad "memset.csv: $(nonzero "$tmp/rec/memset.csv")"
# memcpy: 4 __memcpy_chk of 8, 3 mempcpy of 10; 20 copies of 1 MiB above
[ "$(nonzero "$tmp/rec/memcpy.csv")" = "8:4 10:3" ] ||
	bad "memcpy.csv: $(nonzero "$tmp/rec/memcpy.csv")"
[ "$(sed -n 2p "$tmp/rec/memcpy.large.csv")" = "1048576,2097151,20,20971520" ] ||
	bad "memcpy.large.csv: $(cat "$tmp/rec/memcpy.large.csv")"
[ "$(wc -l <"$tmp/rec/memcpy.large.csv")" -eq 2 ] || bad "memcpy.large.csv has other buckets"
[ "$(nonzero "$tmp/rec/memmove.csv")" = "33:7" ] ||
	bad "memmove.csv: $(nonzero "$tmp/rec/memmove.csv")"
[ "$(at "$tmp/rec/memset.csv" 4096)" = 5 ] || bad "memset.csv: size 4096"
# one line, trailing zeros dropped: memcpy.csv ends at size 10
[ "$(tr ',' '\n' <"$tmp/rec/memcpy.csv" | wc -l)" -eq 11 ] || bad "memcpy.csv: trailing zeros"
# the report: shares of calls and bytes
flat=$(tr '\n' ' ' <"$tmp/out" | tr -s ' ')
case "$flat" in
*"memcpy: 27 calls, 20971582 bytes; 25.9% of the calls are <= 128 B. $tmp/rec/memcpy.csv (sizes 0..4096) holds 25.9% of the calls and 0.0% of the bytes; $tmp/rec/memcpy.large.csv the 20 calls above."*) ;;
*) bad "report: $(grep -A12 'recorded distributions' "$tmp/out")" ;;
esac
# replayed: each file parses, runs, and lands in the JSON key
for op in memset memcpy memmove; do
	if ! "$bin" mem $op --distribution "$tmp/rec/$op.csv" --kernels libc --budget 0.01 \
		--min-samples 3 --max-samples 3 -o "$tmp/$op.json" >"$tmp/replay.out" 2>&1; then
		bad "replay of $op.csv:"
		cat "$tmp/replay.out"
		continue
	fi
	grep -q "\"distribution\": \"$op\"" "$tmp/$op.json" || bad "$op.json: no distribution key"
done
[ $fail = 0 ] && echo "record -> replay: passed"
exit $fail
