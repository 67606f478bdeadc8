#!/bin/sh
# run_account.sh LIB ACCT_PROBE - PRIMBENCH_ACCOUNT end to end: the calls
# of `preload_acct_probe run` (two threads, then children that _exit, die
# by SIGKILL and exec) under the library, then `preload_acct_probe check`
# reads every file, without the library, and compares each counter with
# the calls made; in counts mode, then ticks mode (one call in 10 timed).
# Exit: 0 both passed, 1 otherwise.
set -u
lib=$1 probe=$2
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
status=0
for mode in counts ticks; do
	d="$tmp/$mode"
	mkdir "$d"
	value=1
	[ $mode = ticks ] && value=ticks
	if ! pids=$(env LD_PRELOAD="$lib" PRIMBENCH_ACCOUNT=$value PRIMBENCH_ACCOUNT_SAMPLE=10 \
		PRIMBENCH_ACCOUNT_DIR="$d" 'PRIMBENCH_MEMCPY=bytes<=64,libc' "$probe" run 2>"$tmp/err") ||
		[ -s "$tmp/err" ]; then
		echo "FAIL $mode: run failed:"
		cat "$tmp/err"
		status=1
		continue
	fi
	# shellcheck disable=SC2086
	"$probe" check "$d" $mode 10 $pids || status=1
done
exit $status
