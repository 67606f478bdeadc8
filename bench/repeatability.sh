#!/bin/sh
# The same two cases run 5 times back to back (issue 3's repeatability
# check): memset/avx512 4 KiB hot, and memcpy/libc 32 MiB dram. Each run's
# result file lands in DIR; bench/repeatability.awk-free summary: compare
# the medians and whether each run's 95% CI holds the others' medians
# (printed by `primbench mem` as the per-case CI in the JSON).
# Usage: bench/repeatability.sh [PRIMBENCH] [DIR]
set -eu
pb=${1:-./build/primbench}
out=${2:-repeat-out}
mkdir -p "$out"
for i in 1 2 3 4 5; do
	"$pb" mem memset --kernels avx512 --sizes 4K --cache hot -o "$out/memset-$i.json" >/dev/null
	"$pb" mem memcpy --kernels libc --sizes 32M --cache dram -o "$out/memcpy-$i.json" >/dev/null
done
for f in "$out"/memset-*.json "$out"/memcpy-*.json; do
	printf '%s ' "$f"
	tr -d ' \n' <"$f" | grep -o '"per_call":{[^}]*}' | sed 's/"per_call"://'
done
