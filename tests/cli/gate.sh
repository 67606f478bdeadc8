#!/bin/sh
# compare --fail-if-slower with every -f and -o (issue 41): the gate's
# lines go to stderr, so standard output stays the format alone (JSON that
# parses, CSV with its header first); the JSON document (-f json and -o)
# records the gate ("gate" in the comparison, docs/results-schema.md); the
# exit status is 1 on the slowed fixture, 0 on the A/A pair, in both forms
# of the command line. Fixtures: tests/data/gate (its README). No timing
# is checked.
#   tests/cli/gate.sh PRIMBENCH
set -u
bin=$1
case $bin in /*) ;; *) bin=$PWD/$bin ;; esac
data=$(cd "$(dirname "$0")/../data/gate" && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1
fail() {
	echo "FAIL: $*"
	echo "--- stdout"; cat stdout.txt
	echo "--- stderr"; cat stderr.txt
	exit 1
}
# run WANT ARGS...: the exit status must be WANT
run() {
	want=$1
	shift
	"$bin" "$@" >stdout.txt 2>stderr.txt
	rc=$?
	[ $rc -eq "$want" ] || fail "compare $*: exit status $rc, expected $want"
}
for fmt in text markdown csv json; do
	run 1 compare --fail-if-slower=2% -f $fmt "$data/a1.json" "$data/slow.json"
	grep -q '^primbench: compare: slower beyond 2%: memset hot: libc 256: +' stderr.txt ||
		fail "-f $fmt: no line naming the case"
	grep -q '^primbench: compare: gate failed: ' stderr.txt || fail "-f $fmt: no final line"
	grep -q 'slower beyond' stdout.txt && fail "-f $fmt: the gate's lines on stdout"
	case $fmt in
	json) python3 -c 'import json, sys; d = json.load(open("stdout.txt")); g = d["comparisons"][0]["gate"]; sys.exit(not (g["failed"] and g["threshold_pct"] == 2 and g["failures"][0]["name"] == "memset hot: libc 256"))' ||
		fail "-f json: not a document with the gate" ;;
	csv) head -1 stdout.txt | grep -q '^old_file,new_file,' || fail "-f csv: no header first" ;;
	esac
	run 0 compare --fail-if-slower -f $fmt "$data/a1.json" "$data/a2.json"
	grep -q '^primbench: compare: gate passed: ' stderr.txt || fail "-f $fmt: A/A not passed"
done
# -o: the document records the gate (passed); the status follows the gate
run 0 compare --fail-if-slower=2% -o gate.json "$data/a1.json" "$data/a2.json"
python3 -c 'import json, sys; g = json.load(open("gate.json"))["comparisons"][0]["gate"]; sys.exit(not (g["failed"] is False and g["failures"] == [] and g["cases_judged"] == 2))' ||
	fail "-o: the gate is not in the document"
run 1 compare --fail-if-slower -o gate.json "$data/a1.json" "$data/slow.json"
python3 -c 'import json, sys; c = json.load(open("gate.json"))["comparisons"]; sys.exit(not c[0]["gate"]["failed"])' ||
	fail "-o: the failure is not in the document"
# without the option: no gate in the document, exit 0
run 0 compare -o plain.json "$data/a1.json" "$data/slow.json"
python3 -c 'import json, sys; sys.exit("gate" in json.load(open("plain.json"))["comparisons"][0])' ||
	fail "a gate without --fail-if-slower"
# files as runs (A1 A2 -- B1 B2), two runs a side: the A/A files against
# the slowed one twice (a copy: a new side without spread, which checks
# the mechanics, not the statistics), and against copies of themselves
cp "$data/slow.json" slow2.json
run 1 compare --fail-if-slower "$data/a1.json" "$data/a2.json" -- "$data/slow.json" slow2.json
grep -q 'slower beyond 1%: memset hot: libc 256' stderr.txt || fail "--: no failing line"
cp "$data/a1.json" a1copy.json
cp "$data/a2.json" a2copy.json
run 0 compare --fail-if-slower "$data/a1.json" "$data/a2.json" -- a1copy.json a2copy.json
echo "gate: ok"
