#!/bin/sh
# --vs-env (issue 32): the A/B processes alternate A B B A ..., only B's
# have the variables, and the comparison and both sides are written.
# Side B's processes read another policy file (PRIMBENCH_POLICY_FILE), so
# the auto kernel each side's result records tells which environment its
# processes had. No timing is checked.
#   tests/cli/vs_env.sh PRIMBENCH
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
	echo "--- stdout"; cat stdout.txt
	echo "--- stderr"; cat stderr.txt
	exit 1
}
printf 'memset = bytes\n' >pol
"$bin" mem memset --kernels auto --sizes 256,4K --replicates 3 --budget 0.01 \
	--min-samples 3 --max-samples 12 --vs-env PRIMBENCH_POLICY_FILE="$dir/pol" \
	--vs-env PB_VS_ENV_TEST=1 -o out.json >stdout.txt 2>stderr.txt
rc=$?
[ $rc -eq 0 ] || fail "exit status $rc"
[ -f out.json ] && [ -f out-A.json ] && [ -f out-B.json ] || fail "files: $(ls)"
# the order: 3 a side, A B B A A B
tr -d ' \n' <out.json | grep -q '"order":"ABBAAB"' || fail "order not ABBAAB"
tr -d ' \n' <out.json | grep -q '"processes_a":3,"processes_b":3' || fail "process counts"
tr -d ' \n' <out.json | grep -q '"env":\["PRIMBENCH_POLICY_FILE=' || fail "vs_env.env"
# the environment: only B's processes read the policy file
tr -d ' \n' <out-B.json | grep -q '"policy":"bytes","source":"file"' || fail "B did not read it"
tr -d ' \n' <out-A.json | grep -q '"policy":"bytes"' && fail "A read B's policy file"
# each side holds its processes as replicates: 3 of each case
n=$(tr -d ' \n' <out-A.json | grep -o '"replicates":\[' | wc -l)
[ "$n" -ge 2 ] || fail "A's cases have no replicates"
# the text: the order, both sides named, a row per case
tr '\n' ' ' <stdout.txt | grep -q 'in the order *ABBAAB' || fail "no order in the text"
grep -q '^new: B (PRIMBENCH_POLICY_FILE=.* PB_VS_ENV_TEST=1)' stdout.txt || fail "B not named"
grep -q '^auto 256 ' stdout.txt && grep -q '^auto 4K ' stdout.txt || fail "no row per case"
# the sides read back as result files: compare prints the same rows
"$bin" compare out-A.json out-B.json >cmp.txt 2>&1 || fail "compare of the sides: $(cat cmp.txt)"
grep -q '^auto 4K ' cmp.txt || fail "compare has no row"
echo "ok"
