#!/bin/sh
# The status-2 cases of tests/cli/cases and tests/cli/*.cases (the format
# of tests/cli/run.sh) again, with the noise probe on: PRIMBENCH_PROBE_MS
# unset unless a case sets it. A measuring subcommand prints its
# "placement:" line once its session begins (src/suites/session.c), so a
# usage or input error found after that would make two lines on stderr:
# every input must be checked first. Each case must still exit 2 with
# exactly one line on stderr (continuation lines, indented, aside) that
# matches its regex. A case that gets as far as a probe costs its ~0.2 s.
# Tags as in run.sh (x86:); native: cases run (the whole script is
# skipped under an emulator); skipped cases are counted in the last line.
#   tests/cli/probe_errors.sh PRIMBENCH [--kernels-arch ARCH]
set -u
# Under an emulator every case is many times slower, and the probe's
# figures mean little there: skipped (ctest's SKIP_RETURN_CODE).
if [ -n "${PB_TEST_EMULATED:-}" ]; then
	echo "skipped: emulated (PB_TEST_EMULATED)"
	exit 77
fi
bin=$1
karch=x86_64
[ "${2:-}" = --kernels-arch ] && karch=$3
here=$(cd "$(dirname "$0")" && pwd)
PB_TESTDATA=$(cd "$here/../data" && pwd)
export PB_TESTDATA
unset PRIMBENCH_PROBE_MS
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir "$scratch/run"
pass=0
fail=0
# The status-2 cases as "REGEX^_ENV^_ARGS" (^_: the unit separator, not
# white space, so that an empty field is not merged away), the fields
# trimmed, in one pass (a few processes a case, not a dozen: this runs
# hundreds); a last line "#skipped N" counts the x86: cases left out.
us=$(printf '\037')
cat "$here/cases" "$here"/*.cases 2>/dev/null | awk -v karch="$karch" -v us="$us" '
function trim(s) { sub(/^ +/, "", s); sub(/ +$/, "", s); return s }
/^$/ || /^#/ { next }
{
	line = $0
	if (sub(/^x86:/, "", line) && karch != "x86_64") { skipped++; next }
	sub(/^native:/, "", line)
	n = split(line, f, "|")
	if (trim(f[1]) != "2") next
	args = f[4]
	for (i = 5; i <= n; i++) args = args "|" f[i]
	sub(/^ +/, "", args)
	print trim(f[2]) us trim(f[3]) us args
}
END { print "#skipped " (skipped + 0) }' >"$scratch.cases"
while IFS="$us" read -r regex envs args; do
	case "$regex" in "#skipped "*) skipped=${regex#\#skipped }; continue ;; esac
	(cd "$scratch/run" && eval "env $envs \"$bin\" $args" >/dev/null 2>"$scratch.err")
	got=$?
	ok=1
	[ "$got" = 2 ] || ok=0
	[ "$(grep -cv '^ ' "$scratch.err")" -eq 1 ] || ok=0
	if [ -n "$regex" ] && ! sed -e ':a' -e 'N' -e '$!ba' -e 's/\n    / /g' "$scratch.err" | grep -Eq -- "$regex"; then ok=0; fi
	if [ $ok = 1 ]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL: primbench $args (env: $envs)"
		echo "  expected exit 2 and one line on stderr /$regex/; got exit $got, stderr:"
		sed 's/^/    /' "$scratch.err"
	fi
	# a fresh directory for the next case (a failing one may leave files)
	rm -rf "$scratch/run" && mkdir "$scratch/run"
done <"$scratch.cases"
echo "$pass passed, $fail failed, $skipped skipped"
[ $fail = 0 ] && [ $pass -gt 0 ]
