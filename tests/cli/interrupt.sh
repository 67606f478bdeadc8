#!/bin/sh
# An interrupted run keeps what it measured: exit 130, and the result file
# is written whole with "interrupted": true and the cases measured so far.
set -u
bin=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1
"$bin" mem memset --kernels libc,bytes --sizes 64..32M --cache hot,dram --budget 5 \
	-o out.json >stdout.txt 2>stderr.txt &
pid=$!
sleep 3
kill -INT $pid
wait $pid
rc=$?
fail() {
	echo "FAIL: $*"
	echo "--- stderr"; cat stderr.txt
	exit 1
}
[ $rc -eq 130 ] || fail "exit status $rc, expected 130"
[ -f out.json ] || fail "no result file"
grep -q '"interrupted": true' out.json || fail "result not marked interrupted"
grep -q '"kernel": "libc"' out.json || fail "no measured case kept"
grep -q 'interrupted' stderr.txt || fail "no message on stderr"
[ "$(ls -A)" = "$(printf 'out.json\nstderr.txt\nstdout.txt')" ] || fail "stray files: $(ls -A)"

# Deterministic: the test hook raises SIGINT after the 2nd group; the file
# holds exactly the cases of the two finished groups.
rm -f out.json stdout.txt stderr.txt
PRIMBENCH_TEST_SIGINT_AFTER=2 "$bin" mem memset --kernels libc,bytes --sizes 64,128,256 \
	--budget 0.01 --min-samples 6 --max-samples 6 -o out.json >stdout.txt 2>stderr.txt
rc=$?
[ $rc -eq 130 ] || fail "hook: exit status $rc, expected 130"
[ "$(grep -c '"suite": "mem"' out.json)" -eq 4 ] || fail "hook: expected 4 cases (2 sizes x 2 kernels)"
grep -q '"interrupted": true' out.json || fail "hook: result not marked interrupted"
grep -q '"size_bytes": 256' out.json && fail "hook: the third group was started"

# Threads: Ctrl-C during a threaded run stops every worker (no process or
# thread left behind: the wait returns), exit 130, and the file keeps the
# cases measured so far.
rm -f out.json stdout.txt stderr.txt
"$bin" mem memset --kernels libc,bytes --sizes 64..32M --cache hot,dram --threads 1..3 \
	--budget 5 -o out.json >stdout.txt 2>stderr.txt &
pid=$!
sleep 3
kill -INT $pid
wait $pid
rc=$?
[ $rc -eq 130 ] || fail "threads: exit status $rc, expected 130"
grep -q '"interrupted": true' out.json || fail "threads: result not marked interrupted"
grep -q '"kernel": "libc"' out.json || fail "threads: no measured case kept"

# cmd: SIGINT to primbench alone (not its process group): the running
# command is sent SIGTERM, not counted; the finished runs are kept.
rm -f out.json stdout.txt stderr.txt
"$bin" cmd -n 1000 -o out.json -- sleep 0.3 >stdout.txt 2>stderr.txt &
pid=$!
sleep 2
kill -INT $pid
wait $pid
rc=$?
[ $rc -eq 130 ] || fail "cmd: exit status $rc, expected 130"
grep -q '"interrupted": true' out.json || fail "cmd: result not marked interrupted"
grep -q '"real_ns"' out.json || fail "cmd: no finished run kept"
grep -q 'interrupted' stderr.txt || fail "cmd: no message on stderr"
grep -q '^ *1 ' stdout.txt || fail "cmd: no run table"
command -v pgrep >/dev/null && pgrep -f 'sleep 0.3' >/dev/null && fail "cmd: the command was left running"
echo "4 passed, 0 failed"
