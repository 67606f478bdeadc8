#!/bin/sh
# check_comments.sh [ROOT] - no comment in src/ or include/ sends the
# reader somewhere they cannot follow: an issue number ("issue 21",
# "Issue #5": the tracker is not part of the code) or a file that is not
# in the repository (DESIGN.md, STYLE.md and its rules "STYLE 10",
# shared/cases/). Write the reason itself, or link into docs/ (for
# example docs/architecture.md, docs/results-schema.md). Another
# project's issue is fine as its address (https://github.com/o/r/issues/N).
# Prints each offending line as file:line:text and exits 1; exits 0 when
# there is none.
# check_comments.sh --self-test: shows the check catches each kind and
# passes a clean tree.
set -u
pattern='[Ii]ssue #?[0-9]+|DESIGN\.md|STYLE\.md|STYLE [0-9]+|shared/cases|shared/DESIGN'

check() { # ROOT
	hits=$(cd "$1" && grep -rnE "$pattern" src include 2>/dev/null)
	if [ -n "$hits" ]; then
		printf '%s\n' "$hits"
		n=$(printf '%s\n' "$hits" | wc -l)
		echo "$n comment(s) cite an issue number or a file outside the repository:" \
			"give the reason itself or a link into docs/ (tests/check_comments.sh)"
		return 1
	fi
	return 0
}

if [ "${1:-}" = --self-test ]; then
	dir=$(mktemp -d) && trap 'rm -rf "$dir"' EXIT
	mkdir -p "$dir/src/x" "$dir/include/primbench"
	echo '/* clean: see docs/architecture.md; https://github.com/o/r/issues/7 */' >"$dir/src/x/a.c"
	check "$dir" >/dev/null || { echo "self-test: a clean tree failed"; exit 1; }
	for bad in '/* (issue 21) */' '/* Issue #5 */' '/* DESIGN.md "Measuring" */' \
		'/* STYLE 10 */' '/* STYLE.md 12 */' '/* case M2 in shared/cases/memory.md */'; do
		echo "$bad" >"$dir/include/primbench/b.h"
		check "$dir" >/dev/null && { echo "self-test: missed $bad"; exit 1; }
	done
	echo "self-test: 6 kinds caught, a clean tree passes"
	exit 0
fi

root=${1:-$(dirname "$0")/..}
check "$root" || exit 1
echo "comments: no issue numbers, no files outside the repository"
