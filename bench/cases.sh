#!/bin/sh
# Runs the commands of docs/cases.md (cases M1, M3, M4, M5, M6) and keeps
# each output and result file in DIR.
# Usage: bench/cases.sh [PRIMBENCH] [DIR]   (about 6 minutes on 2 cores)
set -eu
pb=${1:-./build/primbench}
out=${2:-cases-out}
mkdir -p "$out"
run() {
	name=$1
	shift
	echo "== $name: primbench $*" | tee "$out/$name.txt"
	"$pb" "$@" -o "$out/$name.json" >>"$out/$name.txt"
}
# M1: rep movsb vs vector loops over destination misalignment, then over
# (dst - src) mod 4096 (source 64-byte aligned, L1/L2-hot).
run m1-dst-offset mem memcpy --sizes 2113,4096,65536,524287 --dst-offset 0..63:1 \
	--src-offset 0 --kernels rep_movsb,avx2,avx512 --cache hot --budget 0.05 --max-samples 31
run m1-aliasing mem memcpy --sizes 2113,4096,65536,524287 --dst-offset 0 \
	--distance -1052664..-1048576:8 --kernels rep_movsb,avx2,avx512 --cache hot \
	--budget 0.02 --max-samples 21
# M3: rep movsq + tail vs rep movsb on unaligned pointers.
run m3 mem memcpy --sizes 4096,65218 --dst-offset 0..7:1 --src-offset 0..7:1 \
	--kernels rep_movsb,rep_movsq,avx512 --cache hot,l2 --budget 0.05 --max-samples 31
# M4: where non-temporal stores start to pay (LLC/16 .. 4 x LLC).
run m4-memcpy mem memcpy --sizes 2M..128M/4 --kernels libc,rep_movsb,avx512,avx512_nt,movnti \
	--cache hot --breakeven
run m4-memset mem memset --sizes 2M..128M/4 --kernels libc,rep_stosb,avx512,avx512_nt,movnti \
	--cache hot --breakeven
# M5: extent: clearing a 2 GiB region in chunks (clzero only on AMD).
run m5 mem memset --sizes 4K,2M,16M,64M,2G --extent 2G --cache dram \
	--kernels rep_stosb,avx512_nt --min-samples 6 --max-samples 6
# M6: memmove(p + d, p, n), backward (std; rep movsb vs std; rep movsq vs
# vector loops vs libc), and the forward mirror.
for d in -64 -4096 64; do
	run "m6$d" mem memmove --sizes 4K..1M --distance "$d" --cache hot --unit GB/s \
		--kernels libc,rep_movsb,rep_movsb_fwd_movsq_bwd,avx2,avx512
done
