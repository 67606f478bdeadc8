#!/bin/sh
# run_sweeps.sh OP PRIMBENCH LIB SWEEP - preload_sweep under LD_PRELOAD=LIB.
#   OP memset|memcpy|memmove: `preload_sweep OP` once per kernel of OP
#     usable here (`primbench list --op OP`), then with two multi-band
#     policies (generic kernels; the last three usable ones);
#   OP all: `preload_sweep all` with no policy (libc's functions through
#     the library), with policies for all three ops and accounting on
#     (counts, then ticks sampling every call), and without the library.
# Each run must exit 0, say nothing on stderr but the debug line, and that
# line must show the policy in force (no silently ignored setting).
# Exit: 0 every run passed, 1 otherwise.
set -u
op=$1 pb=$2 lib=$3 sweep=$4
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
failed=0 passed=0

# run LABEL EXPECT_IN_DEBUG_LINE ENV... -- ARGS...
run() {
	label=$1 want=$2
	shift 2
	if env "$@" >"$tmp/out" 2>"$tmp/err"; then
		if [ -n "$want" ] && ! grep -qF -- "$want" "$tmp/err"; then
			echo "FAIL $label: the debug line does not show $want:"
			cat "$tmp/err"
			failed=$((failed + 1))
		elif grep -v '^primswitch: pid [0-9]* \(ready\|exits\)' "$tmp/err" | grep -q .; then
			echo "FAIL $label: unexpected stderr:"
			cat "$tmp/err"
			failed=$((failed + 1))
		else
			echo "PASS $label"
			passed=$((passed + 1))
		fi
	else
		echo "FAIL $label: exit $?"
		cat "$tmp/out" "$tmp/err"
		failed=$((failed + 1))
	fi
}

policy_run() { # OP POLICY
	var=PRIMBENCH_$(printf '%s' "$1" | tr a-z A-Z)
	run "$1 '$2'" "$1 '$2'" LD_PRELOAD="$lib" PRIMBENCH_PRELOAD_DEBUG=1 "$var=$2" "$sweep" "$1"
}

# auto under a policy file: the debug line must show auto's policy.
auto_run() { # OP POLICY
	var=PRIMBENCH_$(printf '%s' "$1" | tr a-z A-Z)
	printf '# test policy\n%s = %s\n' "$1" "$2" >"$tmp/policy"
	run "$1 auto = '$2'" "(auto = '$2' from $tmp/policy)" LD_PRELOAD="$lib" \
		PRIMBENCH_PRELOAD_DEBUG=1 PRIMBENCH_POLICY_FILE="$tmp/policy" "$var=auto" "$sweep" "$1"
}

usable() { # OP: the kernels usable here, one per line
	"$pb" list --op "$1" | awk '$3 == "yes" { sub(/^[a-z]+\//, "", $1); print $1 }'
}

case $op in
memset | memcpy | memmove)
	kernels=$(usable "$op")
	if [ -z "$kernels" ]; then
		echo "FAIL: no usable $op kernel listed by $pb"
		exit 1
	fi
	for k in $kernels; do
		policy_run "$op" "$k"
	done
	policy_run "$op" "bytes<=16,gpr_unrolled<=1K,libc"
	auto_run "$op" "bytes<=16,gpr_unrolled<=1K,libc"
	# shellcheck disable=SC2046 # one word per kernel name
	set -- $(printf '%s\n' "$kernels" | grep -v '^libc$' | grep -v '^auto$' | tail -n 3)
	if [ $# -eq 3 ]; then
		policy_run "$op" "$1<=100,$2<=3000,$3"
		auto_run "$op" "$1<=64,$2<=3000,$3"
		auto_run "$op" "$3<=48,$2<=100,$1"
		policy_run "$op" "auto<=100,$2"
	fi
	;;
all)
	run "no policy (libc through the library)" "memset libc, memcpy libc, memmove libc" \
		LD_PRELOAD="$lib" PRIMBENCH_PRELOAD_DEBUG=1 "$sweep" all
	for mode in 1 ticks; do
		run "policies, PRIMBENCH_ACCOUNT=$mode" "accounting" \
			LD_PRELOAD="$lib" PRIMBENCH_PRELOAD_DEBUG=1 \
			PRIMBENCH_MEMSET='gpr_unrolled<=200,libc' PRIMBENCH_MEMCPY='bytes<=7,libc' \
			PRIMBENCH_MEMMOVE='gpr_unrolled<=64,bytes' PRIMBENCH_ACCOUNT=$mode \
			PRIMBENCH_ACCOUNT_SAMPLE=1 PRIMBENCH_ACCOUNT_DIR="$tmp" "$sweep" all
	done
	run "without the library" "" "$sweep" all
	;;
*)
	echo "usage: $0 memset|memcpy|memmove|all PRIMBENCH LIB SWEEP" >&2
	exit 2
	;;
esac
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
