#!/bin/sh
# CLI golden tests: every subcommand's --help, byte for byte,
# and the shape of one good invocation each (tests/cli/golden/shapes.list):
# its standard output with every number replaced by '#', runs of blanks
# squeezed, and the lines that depend on the moment (noise, warnings)
# dropped. The error cases, with their exit status and message pattern,
# are tests/cli/*.cases (tests/cli/run.sh).
#
#   tests/cli/golden.sh PRIMBENCH            check
#   tests/cli/golden.sh PRIMBENCH --update   rewrite the golden files after
#                                            an intended change (review the
#                                            diff before committing)
#   --isa ISA (before --update, if any): the golden files of another ISA
#   than x86-64. Where its output differs (help texts whose examples name
#   the ISA's features and kernels), golden/ISA/NAME stands for
#   golden/NAME; --update writes golden/ISA/NAME only where the output
#   differs from golden/NAME. tests/CMakeLists.txt passes the build's ISA;
#   an emulated build's PRIMBENCH is build-arm64/emulated/primbench:
#     tests/cli/golden.sh build-arm64/emulated/primbench --isa aarch64 --update
set -u
pb=$1
shift
# The shapes run in tests/data: a relative path is made absolute first.
case $pb in */*) pb=$(cd "$(dirname "$pb")" && pwd)/$(basename "$pb") ;; esac
isa=x86_64
if [ "${1:-}" = --isa ]; then
	isa=$2
	shift 2
fi
update=${1:-}
here=$(cd "$(dirname "$0")" && pwd)
gold=$here/golden
PB_TESTDATA=$(cd "$here/../data" && pwd)
root=$(cd "$here/../.." && pwd)
export PB_TESTDATA
# The machine's policy file and the user's settings stay out.
export PRIMBENCH_POLICY_FILE= XDG_CONFIG_HOME=/nonexistent-primbench-golden
# No noise probe: the shapes must not depend on the machine's CPU count.
export PRIMBENCH_PROBE_MS=0
unset PRIMBENCH_MEMSET PRIMBENCH_MEMCPY PRIMBENCH_MEMMOVE PRIMBENCH_ACCOUNT \
	PRIMBENCH_HIDE_FEATURES GLIBC_TUNABLES 2>/dev/null || true
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0

check() { # NAME FILE: compare FILE with golden/NAME (golden/ISA/NAME)
	want=$gold/$1
	[ "$isa" != x86_64 ] && [ -f "$gold/$isa/$1" ] && want=$gold/$isa/$1
	if [ "$update" = --update ]; then
		if [ "$isa" = x86_64 ]; then
			cp "$2" "$gold/$1"
		elif [ -f "$gold/$1" ] && cmp -s "$gold/$1" "$2"; then
			rm -f "$gold/$isa/$1"
		else
			mkdir -p "$gold/$isa" && cp "$2" "$gold/$isa/$1"
		fi
		return
	fi
	if [ ! -f "$want" ]; then
		echo "FAIL: no golden file $1 (run: $0 PRIMBENCH --update)"
		fail=$((fail + 1))
	elif diff -u "$want" "$2" >"$tmp/diff"; then
		pass=$((pass + 1))
	else
		echo "FAIL: $1 differs from the golden file:"
		sed 's/^/    /' "$tmp/diff"
		fail=$((fail + 1))
	fi
}

# Help texts: the top level and every subcommand it lists.
"$pb" --help >"$tmp/out" 2>&1
check help.txt "$tmp/out"
subs=$(sed -n '/^subcommands:/,/^$/p' "$tmp/out" | awk 'NR > 1 && NF { print $1 }')
[ -n "$subs" ] || { echo "FAIL: no subcommands in 'primbench --help'"; exit 1; }
for s in $subs; do
	"$pb" "$s" --help >"$tmp/out" 2>&1 || { echo "FAIL: primbench $s --help exited $?"; fail=$((fail + 1)); }
	check "help-$s.txt" "$tmp/out"
done

# Shapes: NAME | ARGS, one per line ('#' comments).
while IFS='|' read -r name args; do
	name=$(echo "$name" | tr -d ' ')
	case $name in '' | '#'*) continue ;; esac
	eval "set -- $args"
	if ! (cd "$PB_TESTDATA" && "$pb" "$@") >"$tmp/raw" 2>"$tmp/err"; then
		echo "FAIL: shape $name: primbench $args exited $?:"
		sed 's/^/    /' "$tmp/err"
		fail=$((fail + 1))
		continue
	fi
	# fixtures and the checkout's path; the fastest and overlap marks
	# (which kernel wins is the machine's); time units (us or ms, by size)
	# the spread and noise paragraphs, with their continuation lines (their
	# wrapping follows the widest case's name, the noise's causes)
	# and cmd's note on user and sys (present where the kernel splits them by
	# a tick longer than the run's CPU time) and on run 1 (present when it was
	# slower than the later runs; its wrapping follows the ratio's digits)
	sed -e "s|$PB_TESTDATA|DATA|g" -e "s|$root|ROOT|g" "$tmp/raw" |
		awk '/^(spread|noise|user and sys):/ || /^run [0-9]+ took / { skip = 1; next } skip && /^ / { next } { skip = 0; print }' |
		grep -v -e '^noise:' -e '^ *switches of the measuring' -e '^warning:' -e '^spread:' \
			-e '^ *(mem[a-z]*/' -e '^note: .* outliers' -e 'modified z-score' |
		sed -E -e 's/[0-9]+(\.[0-9]+)?(e[-+]?[0-9]+)?/#/g' -e 's/#[*=]/#/g' \
			-e 's/\b(ns|us|ms|s)\b/UNIT/g' -e 's/ +/ /g' -e 's/ +$//' |
		grep -v '^$' >"$tmp/out" # blank lines come and go with dropped ones
	check "shape-$name.txt" "$tmp/out"
done <"$gold/shapes.list"

[ "$update" = --update ] && { echo "golden files rewritten in $gold"; exit 0; }
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
