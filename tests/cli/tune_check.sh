#!/bin/sh
# tune checks its policy before writing it (issue 35): auto with the policy
# against libc at the sizes halfway between the tuned ones, hot and dram,
# in 2 fresh processes; the figures are printed and go into the policy
# file's comment. No timing is checked: the lines' shape, the counts, the
# comment, 80 columns; --no-check prints none of it.
#   tests/cli/tune_check.sh PRIMBENCH
set -u
bin=$1
if [ -n "${PB_TEST_EMULATED:-}" ]; then
	echo "skipped: qemu-user cannot re-exec the child processes"
	exit 0
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1
fail() {
	echo "FAIL: $*"
	echo "--- stdout"; cat out.txt
	echo "--- stderr"; cat err.txt
	exit 1
}
run() {
	"$bin" tune --ops memset --split 4K --max-size 64K --per-octave 1 --budget 0.01 \
		--replicates 2 --no-verify -q -o p "$@" >out.txt 2>err.txt
}
run
rc=$?
[ $rc -eq 0 ] || fail "exit status $rc"
flat=$(tr '\n' ' ' <out.txt | tr -s ' ')
# 16 B x 2^(k + 1/2) up to 64 KiB: 23, 45, ..., 46341: 12 sizes
echo "$flat" | grep -q 'check, memset: auto with the policy against libc at 12 sizes halfway between the tuned ones, hot and dram, in 2 fresh processes of 3 replicates each:' ||
	fail "no check heading"
echo "$flat" | grep -Eq 'libc/auto \(> 1: auto faster\), geometric mean: hot [0-9.]+ over 12 sizes, dram [0-9.]+ over 12' ||
	fail "no geometric means over the 12 sizes"
echo "$flat" | grep -Eq 'slower than libc \(pb_verdict on the run-level 95% interval, \+-1%\): [0-9]+' ||
	fail "no count of the losses"
comment=$(sed -n 's/^# //p' p | tr '\n' ' ')
echo "$comment" | grep -Eq 'checked, memset: auto with the policy tune found against libc at 12 held-back sizes, in 2 fresh processes: libc/auto [0-9.]+ hot, [0-9.]+ dram \(geometric means\); [0-9]+ slower than libc' ||
	{ cat p; fail "no check in the policy file's comment"; }
grep '^#' p | awk 'length > 80 { print "comment line over 80 columns: " $0; bad = 1 } END { exit bad }' ||
	fail "a comment line of the policy file over 80 columns"
grep -q '^memset = ' p || fail "no memset line in the policy file"
awk 'length > 80 { print "line over 80 columns: " $0; bad = 1 } END { exit bad }' out.txt ||
	fail "a line over 80 columns"
# the reported figure, or (where that is only a fallback: a machine whose
# reported LLC is implausible) the latency curve's
# out.txt with each wrapped line (4 more spaces) joined to the one before:
# the LLC line's clauses may wrap, by the figures' digits
joined() { sed -e ':a' -e 'N' -e '$!ba' -e 's/\n    / /g' out.txt; }
joined | grep -Eq '^  LLC [0-9.]+ [KMG]iB( \((sysfs|cpuid|hwloc|sysconf|fallback)\)|, where the latency curve.s largest step past L2 starts)' ||
	fail "no LLC line under the plan"
run --no-check --llc-from-curve
[ $? -eq 0 ] || fail "--no-check --llc-from-curve: exit status"
joined | grep -Eq '^  LLC [0-9.]+ [KMG]iB(, where the latency curve.s largest step past L2 starts| \(.*\).*, kept: [0-9] sweeps)' ||
	fail "--llc-from-curve: no LLC line from the curve"
grep -q '^check' out.txt && fail "--no-check checked"
grep -q '^# checked' p && fail "--no-check: a check in the comment"
# SIGINT to tune's own PID while the check's processes run: they are
# stopped too, tune exits 130 and writes no policy file
rm -f p
"$bin" tune --ops memset --split 4K --max-size 1M --per-octave 1 --budget 0.01 \
	--replicates 2 --no-verify -q -o p >out.txt 2>err.txt &
pid=$!
i=0
until grep -q '^check, memset' out.txt 2>/dev/null; do
	i=$((i + 1))
	[ $i -lt 600 ] || { kill -TERM $pid; fail "no check within 60 s"; }
	kill -0 $pid 2>/dev/null || fail "tune ended before its check"
	sleep 0.1
done
sleep 0.3
kill -INT $pid
wait $pid
rc=$?
[ $rc -eq 130 ] || fail "SIGINT during the check: exit status $rc, not 130"
grep -q 'interrupted; no policy file written' err.txt || fail "SIGINT: no message"
[ ! -e p ] || fail "SIGINT during the check: a policy file was written"
echo "ok"
