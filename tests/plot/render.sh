#!/bin/sh
# primbench plot with the real gnuplot, when it is installed (Debian
# package gnuplot-nox; skipped, and said so, without it): each fixture of
# tests/data/plot to PNG and SVG; the files are whole pictures, and the
# temporary directory is gone afterwards. The script's content is
# tests/test_plot.c's business. $1 = primbench, $2 = tests/data.
set -u
bin=$1
data=$2
if ! command -v gnuplot >/dev/null 2>&1; then
	echo "gnuplot not installed (Debian package gnuplot-nox): skipped"
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/t"
fail() { echo "FAIL: $*"; exit 1; }
n=0
for args in "mem_sweep.json" "mem_sweep.json mem_sweep.json" "mem_grid.json" "cmd_ab.json" \
	"cmd_env_user.json" \
	"mem_sweep.json mem_grid.json" "mem_threads.json" "mem_threads.json mem_threads.json"; do
	files=""
	for a in $args; do files="$files $data/plot/$a"; done
	for ext in png svg; do
		n=$((n + 1))
		out=$tmp/p$n.$ext
		# shellcheck disable=SC2086
		TMPDIR=$tmp/t "$bin" plot $files -o "$out" >"$tmp/out" 2>&1 ||
			{ cat "$tmp/out"; fail "plot $args -o .$ext"; }
		[ -s "$out" ] || fail "plot $args: empty $ext"
		case $ext in
		png) head -c 4 "$out" | od -An -c | grep -q 'P   N   G' || fail "$out: not a PNG" ;;
		svg) grep -q '</svg>' "$out" || fail "$out: not a whole SVG" ;;
		esac
	done
done
[ -z "$(ls -A "$tmp/t")" ] || fail "temporary files left: $(ls -A "$tmp/t")"
echo "$n pictures drawn with $(gnuplot --version)"
