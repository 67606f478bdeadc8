#!/bin/sh
# CLI golden cases: tests/cli/cases and tests/cli/*.cases, one per line:
#   EXIT | STDERR_REGEX | ENV | ARGS
# EXIT is the expected status; STDERR_REGEX an extended regex that stderr must
# match (empty: anything); ENV "NAME=VALUE ..." or empty; ARGS are split like
# a shell would. Status-2 cases must print exactly one line on stderr and
# leave no file behind in the scratch directory; so must status-0 cases
# with PRIMBENCH_PARSE_ONLY=1 in ENV (parse_only.cases), and print nothing
# on standard output. A line may start with a
# tag:
#   x86:     it names x86-64 kernels or features, or xsave: run only where
#            the build has the x86-64 kernels (--kernels-arch, default
#            x86_64; tests/CMakeLists.txt passes PB_ARCH_KERNELS)
#   native:  not under an emulator (PB_TEST_EMULATED set): qemu-user runs
#            vfork as fork, so a command that cannot run is not reported;
#            a command's leftover processes go to the emulator's host
#            process; the commands run are the host's, into which an
#            arm64 libprimswitch.so cannot be preloaded
# Skipped cases are counted in the last line.
#   tests/cli/run.sh PRIMBENCH [--kernels-arch ARCH]
set -u
bin=$1
karch=x86_64
[ "${2:-}" = --kernels-arch ] && karch=$3
here=$(cd "$(dirname "$0")" && pwd)
# Fixture files for the cases (tests/data), e.g. $PB_TESTDATA/compare/mem_a.json.
PB_TESTDATA=$(cd "$here/../data" && pwd)
export PB_TESTDATA
# No noise probe (placement by measured noise) unless a case sets
# PRIMBENCH_PROBE_MS: 0.2 s a measuring run. tests/cli/probe_errors.sh runs
# the status-2 cases with it on (an error must come before the session's
# placement line).
PRIMBENCH_PROBE_MS=0
export PRIMBENCH_PROBE_MS
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
pass=0
fail=0
skipped=0
while IFS= read -r line; do
	case "$line" in '' | '#'*) continue ;; esac
	case "$line" in
	x86:*)
		line=${line#x86:}
		[ "$karch" = x86_64 ] || { skipped=$((skipped + 1)); continue; }
		;;
	native:*)
		line=${line#native:}
		[ -z "${PB_TEST_EMULATED:-}" ] || { skipped=$((skipped + 1)); continue; }
		;;
	esac
	want=$(printf '%s' "$line" | cut -d'|' -f1 | tr -d ' ')
	regex=$(printf '%s' "$line" | cut -d'|' -f2 | sed 's/^ *//; s/ *$//')
	envs=$(printf '%s' "$line" | cut -d'|' -f3 | sed 's/^ *//; s/ *$//')
	args=$(printf '%s' "$line" | cut -d'|' -f4- | sed 's/^ *//')
	before=$(ls -A "$scratch")
	(cd "$scratch" && eval "env $envs \"$bin\" $args" >"$scratch.out" 2>"$scratch.err")
	got=$?
	# Under an emulator every measuring command starts with the notice
	# that it is emulated (src/suites/session.c): not the case's stderr.
	if [ -n "${PB_TEST_EMULATED:-}" ]; then
		awk '/^primbench: emulated / { skip = 1; next } skip && /^ / { next } { skip = 0; print }' \
			"$scratch.err" >"$scratch.err2" && mv "$scratch.err2" "$scratch.err"
	fi
	ok=1
	[ "$got" = "$want" ] || ok=0
	# the regex may span a wrapped message: match it on the joined lines
	if [ -n "$regex" ] && ! sed -e ':a' -e 'N' -e '$!ba' -e 's/\n    / /g' "$scratch.err" | grep -Eq -- "$regex"; then ok=0; fi
	if awk 'length > 80 { bad = 1 } END { exit !bad }' "$scratch.err"; then ok=0; fi
	case " $envs " in
	*" PRIMBENCH_PARSE_ONLY=1 "*)
		[ -s "$scratch.out" ] && ok=0
		[ "$(ls -A "$scratch")" = "$before" ] || ok=0
		;;
	esac
	if [ "$want" = 2 ]; then
		[ "$(grep -cv '^ ' "$scratch.err")" -eq 1 ] || ok=0
		[ "$(ls -A "$scratch")" = "$before" ] || ok=0
	fi
	if [ $ok = 1 ]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL: primbench $args (env: $envs)"
		echo "  expected exit $want, stderr /$regex/; got exit $got, stderr:"
		sed 's/^/    /' "$scratch.err"
		echo "  files in scratch: $(ls -A "$scratch")"
	fi
	rm -f "$scratch.out" "$scratch.err"
done <<EOF_CASES
$(cat "$here/cases" "$here"/*.cases 2>/dev/null)
EOF_CASES
echo "$pass passed, $fail failed, $skipped skipped"
[ $fail = 0 ]
