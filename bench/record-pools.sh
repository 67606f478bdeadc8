#!/bin/sh
# record-pools.sh - record the pools of runs that bench/estimators.c
# resamples (docs/statistics.md, "Choosing the estimator"). By hand, not
# part of `make test`: it takes minutes and measures this machine.
#
# usage: bench/record-pools.sh PRIMBENCH OUTDIR [SCALE]
#
# Writes OUTDIR/NAME.json (primbench cmd -o) and OUTDIR/NAME.csv (one line
# per counted run: side,position,real_ns,user_ns,sys_ns) for each pool:
#   awk-aa      the awk loop against itself (A/A)
#   awk-2pct    the awk loop, 3000000 against 3060000 iterations (2%)
#   awk1s-2pct  the same 2% at about 1 s per run
#   memcpy      bench/memcpy-heavy.c under libprimswitch.so, libc's memcpy
#               against the catalogue's avx512
#   spin-aa-PLACE, spin-2pct-PLACE   bench/spin (SPIN=path) 90,000,000
#               iterations against itself and against 1.02x, for each PLACE:
#               cpu0, cpu1 (--cpu N), any (--cpu any: unpinned), probe (the
#               default placement), duet (--duet: pairs run at once)
# SCALE multiplies the run counts (1: 150, 150, 30, 80 per side; spin 150).
# Wrap it as you wrap measurements: e.g.
#   flock /tmp/cpu1.lock taskset -c 1 bench/record-pools.sh ...
# (or run one pool at a time with POOLS="awk-aa").
set -eu
if [ $# -lt 2 ]; then
	echo "usage: $0 PRIMBENCH OUTDIR [SCALE]" >&2
	exit 2
fi
pb=$1 out=$2 scale=${3:-1}
pools=${POOLS:-"awk-aa awk-2pct awk1s-2pct memcpy"}
here=$(dirname "$0")
mkdir -p "$out"
awk_loop() { echo "BEGIN{for(i=0;i<$1;i++)s+=i}"; }
n() { echo $(($1 * scale)); }

csv() { # JSON -> CSV of the counted runs, side A first
	python3 - "$1" >"$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print("side,position,real_ns,user_ns,sys_ns")
for c in d["cases"]:
    for r in c["runs"]:
        if not r["warmup"]:
            print("%s,%d,%.0f,%.0f,%.0f" % (c["key"]["side"], r["position"],
                  r["real_ns"], r["user_ns"], r["sys_ns"]))
PY
}

for p in $pools; do
	case $p in
	awk-aa)
		"$pb" cmd -n "$(n 150)" -w 1 -o "$out/$p.json" \
		    --vs "awk '$(awk_loop 3000000)'" -- awk "$(awk_loop 3000000)" >/dev/null ;;
	awk-2pct)
		"$pb" cmd -n "$(n 150)" -w 1 -o "$out/$p.json" \
		    --vs "awk '$(awk_loop 3060000)'" -- awk "$(awk_loop 3000000)" >/dev/null ;;
	awk1s-2pct)
		"$pb" cmd -n "$(n 30)" -w 1 -o "$out/$p.json" \
		    --vs "awk '$(awk_loop 45900000)'" -- awk "$(awk_loop 45000000)" >/dev/null ;;
	memcpy)
		heavy=$out/memcpy-heavy
		cc -O2 -fno-builtin -fno-tree-loop-distribute-patterns -pthread \
		    -o "$heavy" "$here/memcpy-heavy.c"
		"$pb" cmd -n "$(n 80)" -w 1 -o "$out/$p.json" \
		    --memcpy libc --vs-memcpy avx512 -- "$heavy" 15000000 >/dev/null ;;
	spin-aa-* | spin-2pct-*)
		spin=${SPIN:?spin pools need SPIN=path/to/bench/spin}
		case $p in spin-aa-*) b=90000000 ;; *) b=91800000 ;; esac
		case ${p##*-} in
		cpu*) place="--cpu ${p##*-cpu}" ;;
		any) place="--cpu any" ;;
		probe) place="" ;;
		duet) place="--duet" ;;
		*) echo "$0: unknown placement in '$p'" >&2; exit 2 ;;
		esac
		# shellcheck disable=SC2086
		"$pb" cmd -q -n "$(n 150)" -w 1 $place -o "$out/$p.json" \
		    --vs "$spin $b" -- "$spin" 90000000 >/dev/null ;;
	*)
		echo "$0: unknown pool '$p'" >&2
		exit 2 ;;
	esac
	csv "$out/$p.json" "$out/$p.csv"
	echo "$p: $(($(wc -l <"$out/$p.csv") - 1)) runs -> $out/$p.csv"
done
