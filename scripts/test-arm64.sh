#!/bin/sh
# The emulated arm64 runs beyond ctest (make test-arm64 runs this after
# ctest in the cross build):
#   scripts/test-arm64.sh [BUILD]      (default build-arm64)
# 1. `primbench selftest --standard` under qemu-aarch64 -cpu max (SVE at
#    512 bits, every other feature QEMU 7.2 has; no FEAT_MOPS).
# 2. The vector-length matrix: under each -cpu below, tests/test_arm64_vl
#    (it asserts the SVE vector length, prctl(PR_SVE_GET_VL), and the DC ZVA
#    block size it runs with against PB_EXPECT_SVE_VL_BYTES and
#    PB_EXPECT_ZVA_BYTES, and checks the kernels where they matter), then
#    `primbench selftest` (the quick grid) of the sve and dc_zva kernels
#    usable there:
#      max,sve128=on                      SVE 16 bytes, ZVA 512 bytes
#      max,sve256=on                      SVE 32 bytes, ZVA 512
#      max,sve-default-vector-length=256  SVE 256 bytes (the property is in
#                                         bytes: 2048 bits), ZVA 512
#      a64fx                              SVE 64 bytes, ZVA 256
#      neoverse-n1                        no SVE (no expected length), ZVA 64
#    The ZVA sizes are QEMU's DCZID_EL0 for those models (max: BS = 7).
# Each step prints its time, then the total; the last line counts the steps
# (a step that cannot run yet, e.g. no test_arm64_vl, is skipped with its
# reason, not failed). Exit 0 when no step failed.
set -eu

build=${1:-build-arm64}
[ -x "$build/primbench" ] || { echo "test-arm64: no $build/primbench (make test-arm64 builds it)" >&2; exit 2; }
build=$(cd "$build" && pwd)
sysroot=$(sed -n 's/^PB_ARM64_SYSROOT:PATH=//p' "$build/CMakeCache.txt")
[ -n "$sysroot" ] || { echo "test-arm64: $build is not a cross build (no PB_ARM64_SYSROOT)" >&2; exit 2; }
libpath=$sysroot/usr/lib/aarch64-linux-gnu:$sysroot/lib/aarch64-linux-gnu

# emu CPU PROGRAM ARGS: PROGRAM under qemu-aarch64 -cpu CPU, as ctest runs
# it (cmake/aarch64-linux-gnu.cmake). The policy file of the user running
# this stays out, as in ctest.
emu() {
	cpu=$1
	shift
	PRIMBENCH_POLICY_FILE='' XDG_CONFIG_HOME=/nonexistent-primbench-test-arm64 \
		qemu-aarch64 -L /usr/aarch64-linux-gnu -cpu "$cpu" -E "LD_LIBRARY_PATH=$libpath" "$@"
}

passed=0 failed=0 skipped=0
t_all=$(date +%s)
# step NAME COMMAND...: runs it, prints PASS/FAIL and how long it took.
step() {
	name=$1
	shift
	echo "== $name"
	t0=$(date +%s)
	if "$@"; then
		r=PASS passed=$((passed + 1))
	else
		r=FAIL failed=$((failed + 1))
	fi
	echo "$r: $name ($(($(date +%s) - t0)) s)"
}
skip() { # NAME REASON
	echo "SKIP: $1 ($2)"
	skipped=$((skipped + 1))
}

step "selftest --standard, -cpu max" emu max "$build/primbench" selftest --standard

vl=$build/tests/test_arm64_vl
for entry in "max,sve128=on 16 512" "max,sve256=on 32 512" \
	"max,sve-default-vector-length=256 256 512" "a64fx 64 256" "neoverse-n1 0 64"; do
	# shellcheck disable=SC2086 # three words
	set -- $entry
	cpu=$1 sve=$2 zva=$3
	if [ -x "$vl" ]; then
		# No SVE (0): no expected length (test_arm64_vl takes only a
		# positive one, and skips its SVE check without HWCAP_SVE).
		if [ "$sve" -gt 0 ]; then
			step "test_arm64_vl, -cpu $cpu (SVE $sve bytes, ZVA $zva bytes)" \
				emu "$cpu" -E "PB_EXPECT_SVE_VL_BYTES=$sve" -E "PB_EXPECT_ZVA_BYTES=$zva" "$vl"
		else
			step "test_arm64_vl, -cpu $cpu (no SVE, ZVA $zva bytes)" \
				emu "$cpu" -E "PB_EXPECT_ZVA_BYTES=$zva" "$vl"
		fi
	else
		skip "test_arm64_vl, -cpu $cpu" "$vl not built: no tests/test_arm64_vl.c yet"
	fi
	# The sve and dc_zva kernels usable under this CPU.
	if ! list=$(emu "$cpu" "$build/primbench" list); then
		echo "FAIL: primbench list, -cpu $cpu"
		failed=$((failed + 1))
		continue
	fi
	kernels=$(printf '%s\n' "$list" |
		awk '$1 ~ /^(memset|memcpy|memmove)\/(sve|dc_zva)/ && $NF == "yes" { printf "%s%s", s, $1; s = "," }')
	if [ -n "$kernels" ]; then
		step "selftest $kernels, -cpu $cpu" emu "$cpu" "$build/primbench" selftest --kernels "$kernels"
	else
		skip "selftest of the sve and dc_zva kernels, -cpu $cpu" "none usable there in this build"
	fi
done

echo "test-arm64: total $(($(date +%s) - t_all)) s"
echo "test-arm64: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
