#!/bin/sh
# docs/primbench.1 stays true: it renders without a groff warning, names
# every subcommand in primbench's --help, every long option that a
# subcommand's --help prints appears in it, and the other way: every long
# option its section documents (the tags of its .TP items; every option
# named in the short "run" section) is accepted by
# that subcommand. $1 = primbench, $2 = the page.
set -u
bin=$1
page=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
command -v groff >/dev/null || { echo "FAIL: groff not found (Debian package groff-base)"; exit 1; }
groff -ww -man -z "$page" 2>"$tmp/warn"
if [ -s "$tmp/warn" ]; then
	echo "FAIL: groff warns about $page:"; cat "$tmp/warn"; exit 1
fi
groff -man -Tascii -P-cbou "$page" 2>/dev/null >"$tmp/text"
subs=$("$bin" --help | awk '/^subcommands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { exit }')
[ -n "$subs" ] || { echo "FAIL: no subcommands in 'primbench --help'"; exit 1; }
bad=0
n=0
for s in $subs; do
	grep -q "^ *primbench .*$s\|^ *primbench \[$s\]" "$tmp/text" ||
		{ echo "FAIL: no section for subcommand '$s'"; bad=1; }
	sed -n '/^ *Subcommands:/,/\.$/p' "$tmp/text" | grep -qw -- "$s" ||
		{ echo "FAIL: SYNOPSIS's list of subcommands lacks '$s'"; bad=1; }
	"$bin" "$s" --help >"$tmp/help" 2>&1 || { echo "FAIL: primbench $s --help"; bad=1; }
	for o in $(grep -oE -- '--[a-z][a-z0-9-]*[a-z0-9]' "$tmp/help" | sort -u); do
		n=$((n + 1))
		grep -qF -- "$o" "$tmp/text" || { echo "FAIL: '$s --help' has $o, the man page does not"; bad=1; }
	done
done
# The other way: "SUB --opt=x --help" is never "unknown option" (an option
# that takes a value stops at a bad x or prints the help; one that takes
# none says "takes no value"); nothing runs.
awk '
	/^\.S[HS]/ { sub_ = "" }
	/^\.SS "primbench \[run\]/ { sub_ = "run"; next }
	/^\.SS "primbench [a-z]/ { split($0, w, /[ "]+/); sub_ = w[3]; next }
	/^\.TP/ { tag = 1; next }
	(tag && sub_ != "") || sub_ == "run" {
		line = $0
		while (match(line, /\\-\\-[a-z][a-z0-9\\-]*[a-z0-9]/)) {
			o = substr(line, RSTART, RLENGTH); gsub(/\\/, "", o)
			print sub_, o
			line = substr(line, RSTART + RLENGTH)
		}
	}
	{ tag = 0 }' "$page" | sort -u >"$tmp/documented"
m=0
while read -r s o; do
	m=$((m + 1))
	"$bin" "$s" "$o=x" --help >"$tmp/try" 2>&1 </dev/null
	if grep -q "unknown option" "$tmp/try"; then
		echo "FAIL: the man page documents '$s $o', primbench refuses it:"
		sed 's/^/    /' "$tmp/try"
		bad=1
	fi
done <"$tmp/documented"
[ $m -gt 100 ] || { echo "FAIL: only $m documented options found in $page"; bad=1; }
[ $bad = 0 ] && echo "man page: renders cleanly, $n options of $(echo $subs | wc -w) subcommands all documented, $m documented options all accepted"
exit $bad
