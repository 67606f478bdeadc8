#!/bin/sh
# noisy-cpu.sh - make one CPU noisy on purpose, for the runs-to-verdict
# study (docs/statistics.md, "Runs to a verdict: placement, pairs,
# duets"): bursts of bench/spin (BURST iterations, about 6 ms at 5000000
# here) pinned to CPU, with SLEEP seconds between them, until killed. It
# stands in for the noisy vCPU of a shared host, which cannot be had on
# demand. By hand; never part of `make test`.
#
# usage: bench/noisy-cpu.sh SPIN CPU [BURST [SLEEP]] &  ... kill $!
set -eu
if [ $# -lt 2 ]; then
	echo "usage: $0 SPIN CPU [BURST [SLEEP]]" >&2
	exit 2
fi
spin=$1 cpu=$2 burst=${3:-5000000} pause=${4:-0.02}
exec taskset -c "$cpu" sh -c "while :; do '$spin' $burst; sleep $pause; done"
