#!/bin/sh
# mem map's output when nothing is measured, and its heading's size
# (issue 33, item 4): every case skipped leaves standard output empty in
# every format (no table, no note on the host's page reporting: nothing
# ran), the reasons on the one error line (tests/cli/map.cases); a --size
# that is not whole pages is headed with what the cases map, the size
# asked beside it. No timing is checked.
#   tests/cli/map_nothing.sh PRIMBENCH
set -u
bin=$1
case $bin in /*) ;; *) bin=$PWD/$bin ;; esac
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1
pass=0
fail() {
	echo "FAIL: $*"
	echo "--- stdout"; cat stdout.txt
	echo "--- stderr"; cat stderr.txt
	exit 1
}
for args in '--size 8K --pages 2M' '--size 4097 --pages 2M -f json' \
	'--size 1M --pages 2M,1G' '--size 4K --pages 4K --threads 2 -f markdown'; do
	# shellcheck disable=SC2086 # the options are split on purpose
	"$bin" mem map $args --rounds 2 --replicates 1 -q >stdout.txt 2>stderr.txt
	rc=$?
	[ $rc -eq 2 ] || fail "mem map $args: exit status $rc"
	[ -s stdout.txt ] && fail "mem map $args: standard output not empty"
	grep -q '^primbench: mem: map: nothing was measured: ' stderr.txt ||
		fail "mem map $args: no reason on the error line"
	pass=$((pass + 1))
done
"$bin" mem map --size 4097 --pages 4K --rounds 2 --replicates 1 -q >stdout.txt 2>stderr.txt ||
	fail "mem map --size 4097 --pages 4K: exit status $?"
grep -q '^mem map: 4K per round (4097 asked), ' stdout.txt ||
	fail "mem map --size 4097 --pages 4K: the heading does not say 4K"
grep -q '4097 per round' stdout.txt && fail "mem map --size 4097: '4097 per round'"
pass=$((pass + 1))
echo "$pass passed, 0 failed"
