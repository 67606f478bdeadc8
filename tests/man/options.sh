#!/bin/sh
# docs/primbench.1 stays true: it renders without a groff warning, names
# every subcommand in primbench's --help, and every long option that a
# subcommand's --help prints appears in it. $1 = primbench, $2 = the page.
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
	"$bin" "$s" --help >"$tmp/help" 2>&1 || { echo "FAIL: primbench $s --help"; bad=1; }
	for o in $(grep -oE -- '--[a-z][a-z0-9-]*[a-z0-9]' "$tmp/help" | sort -u); do
		n=$((n + 1))
		grep -qF -- "$o" "$tmp/text" || { echo "FAIL: '$s --help' has $o, the man page does not"; bad=1; }
	done
done
[ $bad = 0 ] && echo "man page: renders cleanly, $n options of $(echo $subs | wc -w) subcommands all documented"
exit $bad
