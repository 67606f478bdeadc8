#!/bin/sh
# tune measures its GLIBC_TUNABLES line (issue 32): libc without and with
# it at the sizes where it changes glibc's path, in fresh processes A B B A.
# tune runs here under x86_rep_stosb_threshold=1 (rep stosb from 129 B on),
# so the line it proposes moves memset's threshold and changes glibc's path
# at some size timed. No timing is checked: the table's shape, the order,
# a known verdict word on every row; --no-verify prints none.
#   tests/cli/tune_verify.sh PRIMBENCH
set -u
bin=$1
if [ -n "${PB_TEST_EMULATED:-}" ]; then
	echo "skipped: qemu-user cannot re-exec the child processes"
	exit 0
fi
if [ "$(uname -m)" != x86_64 ]; then
	echo "skipped: glibc's x86 tunables only"
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
	GLIBC_TUNABLES=glibc.cpu.x86_rep_stosb_threshold=1 "$bin" tune --no-check --ops memset \
		--split 8K --max-size 16K --per-octave 1 --budget 0.01 --replicates 2 -n -q \
		"$@" >out.txt 2>err.txt
}
run
rc=$?
[ $rc -eq 0 ] || fail "exit status $rc"
grep -q '^export GLIBC_TUNABLES=glibc.cpu.x86_rep_stosb_threshold=' out.txt ||
	fail "no GLIBC_TUNABLES line"
grep -q '^the line, measured (--no-verify skips this):$' out.txt || fail "no measurement"
flat=$(tr '\n' ' ' <out.txt | tr -s ' ')
echo "$flat" | grep -q 'memset hot, libc without and with the line, measured: 2 fresh processes each way in the order ABBA (primbench mem memset --kernels libc --sizes [0-9,]* --cache hot --vs-env with the line)' ||
	fail "no heading: 2 processes a side, in the order ABBA, the command"
grep -q '^  size  *without  *with  *with/without (95% CI)  *verdict  *predicted$' out.txt ||
	fail "no column heads"
rows=$(sed -n '/^  size  *without/,/^  with the line:/p' out.txt | sed '1d;$d')
[ -n "$rows" ] || fail "no rows"
echo "$rows" | while read -r size a b rest; do
	echo "$rest" | grep -Eq ' (faster|slower|same|unclear) ' ||
		{ echo "FAIL: row without a verdict: $size $a $b $rest"; exit 1; }
done || fail "a row without a verdict"
grep -q '^  with the line: faster at [0-9]* sizes*, slower at [0-9]*, the same' out.txt ||
	fail "no count of the verdicts"
n=$(echo "$rows" | wc -l)
run --no-verify
[ $? -eq 0 ] || fail "--no-verify: exit status"
grep -q 'measured' out.txt && fail "--no-verify measured the line"
echo "ok: $n sizes measured"
