#!/bin/sh
# The kernels' checker catches a wrong kernel (ctest fuzz_kernels_selftest):
# replay_kernels with PB_FUZZ_KERNELS_BROKEN=KIND (tests/fuzz/kernel_check.h)
# must fail on the inputs of tests/fuzz/selftest, with the message given
# (or by a signal, where the guard page is hit). $1: replay_kernels (or its
# emulator wrapper), $2: tests/fuzz/selftest, $3: the ISA the replay runs
# (x86_64: the SIMD state cases too; required, so an empty ISA cannot
# drop those cases unseen).
[ $# -eq 3 ] && [ -n "$3" ] || { echo "usage: selftest.sh REPLAY_KERNELS SELFTEST_DIR ISA" >&2; exit 2; }
replay=$1
dir=$2
fails=0
n=0
x86=0
[ "$3" = x86_64 ] && x86=1
while IFS='|' read -r kind input want; do
	case "$kind" in '' | '#'*) continue ;; esac
	kind=$(echo $kind)
	input=$(echo $input)
	want=$(echo "$want" | sed 's/^ *//; s/ *$//')
	case "$kind" in mxcsr | avx) [ $x86 = 1 ] || continue ;; esac
	out=$(PB_FUZZ_KERNELS_BROKEN=$kind "$replay" "$dir/$input" 2>&1)
	rc=$?
	n=$((n + 1))
	if [ $rc -eq 0 ]; then
		echo "$kind on $input: not caught"
		fails=$((fails + 1))
	elif [ "$want" != signal ] && ! printf '%s\n' "$out" | grep -Eq "$want"; then
		echo "$kind on $input: caught, but not as '$want':"
		printf '%s\n' "$out" | grep -E 'fuzz:|ERROR' | head -n 3
		fails=$((fails + 1))
	fi
done <<'CASES'
# kind   | input              | message (ERE), or signal
overrun  | memset-100         | memset/broken n=100: above the range: the byte at dst\+100
overrun  | memcpy-100         | above the range: the byte at dst\+100
underrun | memset-100         | signal
underrun | memmove-100-back   | below the range: the byte at dst-1
value    | memset-100         | memset/broken n=100 c=65: byte 50
value    | memcpy-100         | the range \(a copy of the source\): the byte at dst\+50
forward  | memmove-100-back   | the range \(the source as it was\)
ret      | memmove-100-back   | returned .*, not dst
mxcsr    | memset-100         | MXCSR control bits 0x9fc0 before, 0xffc0 after
avx      | memcpy-100         | XINUSE .* AVX \(ymm upper halves\) left in use|MXCSR control bits
none     | memset-100         | memset/broken n=100 c=65: byte 0
none     | memcpy-100         | the range \(a copy of the source\): the byte at dst\+0
none     | memcpy-100-page-32 | the range \(a copy of the source\): the byte at dst\+0
none     | memmove-100-back   | the range \(the source as it was\): the byte at dst\+0
CASES
echo "$((n - fails)) of $n wrong kernels caught"
[ $fails -eq 0 ]
