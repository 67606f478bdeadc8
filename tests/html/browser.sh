#!/bin/sh
# The HTML report in a real browser (include/primbench/html.h is the
# page's contract):
#   tests/html/browser.sh PRIMBENCH [--screenshot FILE.png]
#       makes a page with `PRIMBENCH report --html` from each fixture of
#       tests/data (a default run; a compare of it with a copy whose
#       samples are 5% slower; a threaded file; two latency files; a cmd
#       A/B), checks each with tests/html/check_page.py (no browser), then
#       opens each in headless Chromium: no console message, the page
#       loads, the named elements exist, every picture is loaded, shown and
#       drawn (non-blank), no text block wider than 80 columns, and no
#       network request (the network is blocked: --host-resolver-rules
#       maps every host to nothing, so a page that reaches out also fails
#       to draw). The default run's page is also printed to PDF (its print
#       style sheet) and, with --screenshot, photographed at 1280x2000
#       into FILE.png.
#   tests/html/browser.sh --pages PAGE.html...
#       the same checks of pages made elsewhere (figures not required).
#   tests/html/browser.sh --self-test
#       a good page and one bad page per browser check (made by
#       tests/html/probe.py selftest-pages), each through the browser: the
#       good one passes, each bad one fails with its expected line.
# The browser's checks run in a copy of each page with one inline script
# (tests/html/probe.js, injected by tests/html/probe.py); `chromium
# --dump-dom` prints what it wrote. The page itself stays script-free.
# Each step is timed; every Chromium run has a generous timeout (a loaded
# 2-CPU machine). Exit status: 0 passed, 1 failed, 77 Chromium not
# installed (skipped, one line), 2 usage.
set -u
here=$(cd "$(dirname "$0")" && pwd)
data=$(cd "$here/../data" && pwd)
usage() {
	echo "usage: browser.sh PRIMBENCH [--screenshot FILE.png] | --pages PAGE.html... | --self-test" >&2
	exit 2
}
[ $# -ge 1 ] || usage
mode=run
bin=
shot=
case $1 in
--self-test) mode=selftest ;;
--pages) mode=pages ;;
-*) usage ;;
*)
	bin=$1
	if [ "${2:-}" = --screenshot ] && [ $# -eq 3 ]; then
		case $3 in
		/*) shot=$3 ;;
		*) shot=$(pwd)/$3 ;;
		esac
	elif [ $# -ne 1 ]; then
		usage
	fi
	;;
esac
shift

CHROMIUM=${CHROMIUM:-}
if [ -z "$CHROMIUM" ]; then
	for c in chromium chromium-browser; do
		if command -v "$c" >/dev/null 2>&1; then
			CHROMIUM=$(command -v "$c")
			break
		fi
	done
fi
if [ -z "$CHROMIUM" ]; then
	echo "chromium not found: scripts/deps.sh html installs it"
	exit 77
fi
PYTHON=${PYTHON:-python3}
command -v "$PYTHON" >/dev/null 2>&1 || {
	echo "FAIL: python3 not found: scripts/deps.sh installs it"
	exit 1
}
# Seconds per Chromium run and per primbench report: far above the ~1 s
# they take on an idle machine.
TIMEOUT=${PB_HTML_TIMEOUT:-180}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Chromium's profile, caches and settings: here, not in $HOME.
mkdir -p "$tmp/home" "$tmp/profile"
HOME=$tmp/home
XDG_CONFIG_HOME=$tmp/home/.config
XDG_CACHE_HOME=$tmp/home/.cache
export HOME XDG_CONFIG_HOME XDG_CACHE_HOME

failures=0
fail() {
	echo "FAIL $*"
	failures=$((failures + 1))
}
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f s", b - a }'; }

# chrome ARGS...: headless Chromium, no sandbox (root cannot have one), no
# GPU, no network (every host resolves to nothing), none of its own
# background traffic, a private profile, under a timeout.
chrome() {
	timeout -k 10 "$TIMEOUT" "$CHROMIUM" --headless --no-sandbox --disable-gpu \
		--disable-dev-shm-usage --no-first-run --no-default-browser-check \
		--disable-background-networking --disable-component-update --disable-sync \
		--disable-default-apps --disable-extensions --mute-audio --hide-scrollbars \
		--host-resolver-rules='MAP * ~NOTFOUND' --user-data-dir="$tmp/profile" "$@"
}

# in_browser NAME PAGE MIN_FIGURES [SECTION...]: the probe's run; prints
# its failure lines (and the pictures' figures), returns 1 on a failure.
in_browser() {
	name=$1
	page=$2
	minfig=$3
	shift 3
	secs=""
	for s in "$@"; do secs="$secs --expect-section $s"; done
	probe=$tmp/$name.probe.html
	# shellcheck disable=SC2086
	"$PYTHON" "$here/probe.py" inject "$page" "$probe" --min-figures "$minfig" $secs || return 1
	t=$(now)
	chrome --enable-logging=stderr --v=0 --log-net-log="$tmp/$name.netlog" \
		--dump-dom "file://$probe" >"$tmp/$name.dom" 2>"$tmp/$name.log"
	rc=$?
	took=$(since "$t")
	if [ $rc -ne 0 ]; then
		echo "chromium --dump-dom exited with $rc after $took$([ $rc -eq 124 ] && echo ' (timeout)')"
		grep -v 'dbus\|^/usr/bin/chromium' "$tmp/$name.log" | tail -5
		return 1
	fi
	"$PYTHON" "$here/probe.py" verdict "$tmp/$name.dom" "$tmp/$name.log" "$tmp/$name.netlog" --verbose
	rc=$?
	echo "  chromium: $took"
	return $rc
}

# check NAME PAGE MIN_FIGURES [SECTION...]: check_page.py, then the browser.
check() {
	name=$1
	page=$2
	minfig=$3
	shift 3
	secs=""
	for s in "$@"; do secs="$secs --expect-section $s"; done
	t=$(now)
	# shellcheck disable=SC2086
	out=$("$PYTHON" "$here/check_page.py" "$page" --expect-figures "$minfig+" $secs 2>&1)
	rc=$?
	echo "  check_page.py: $(since "$t")"
	if [ $rc -ne 0 ]; then
		printf '%s\n' "$out"
		fail "$name: check_page.py"
	fi
	in_browser "$name" "$page" "$minfig" "$@" || fail "$name: in Chromium"
}

if [ $mode = selftest ]; then
	# The browser's checks catch what they should: each bad page fails
	# with its line (probe.py selftest-pages writes expect.txt: NAME|TEXT,
	# TEXT empty for the good page).
	"$PYTHON" "$here/probe.py" selftest-pages "$tmp" || exit 1
	total=$(now)
	n=0
	while IFS='|' read -r name want; do
		n=$((n + 1))
		out=$(in_browser "$name" "$tmp/$name.html" 1 2>&1)
		rc=$?
		if [ -z "$want" ]; then
			if [ $rc -eq 0 ]; then
				echo "self-test $name: passed $(printf '%s\n' "$out" | grep 'chromium:' | sed 's/^ *//')"
			else
				printf '%s\n' "$out"
				fail "self-test $name: the good page failed"
			fi
		elif [ $rc -eq 0 ]; then
			printf '%s\n' "$out"
			fail "self-test $name: passed, want a failure with: $want"
		elif ! printf '%s\n' "$out" | grep -qF -- "$want"; then
			printf '%s\n' "$out"
			fail "self-test $name: no line with: $want"
		else
			echo "self-test $name: caught ($want) $(printf '%s\n' "$out" | grep 'chromium:' | sed 's/^ *//')"
		fi
	done <"$tmp/expect.txt"
	echo "browser self-test: $n pages, $failures failed, $(since "$total") ($("$CHROMIUM" --version 2>/dev/null | tail -1))"
	[ $failures -eq 0 ]
	exit
fi

if [ $mode = pages ]; then
	[ $# -ge 1 ] || usage
	n=0
	for p in "$@"; do
		n=$((n + 1))
		echo "page $p:"
		check "page$n" "$p" 0
	done
	[ $failures -eq 0 ] && echo "$n pages passed" || echo "$failures failures"
	[ $failures -eq 0 ]
	exit
fi

# The fixtures' pages. A second default run: run_default.json with every
# sample 5% slower (the compare's change).
"$PYTHON" - "$data/plot/run_default.json" "$tmp/run_slower.json" <<'EOF' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
for c in d["cases"]:
    c["samples"] = [[v * 1.05, n] for v, n in c.get("samples", [])]
    for k, v in list((c.get("per_call") or {}).items()):
        if k in ("min", "p10", "median", "p90", "max", "mean", "stddev", "ci_lo", "ci_hi") and \
                isinstance(v, (int, float)):
            c["per_call"][k] = v * 1.05
d["started_at"] = "2026-12-02T10:00:00Z"
json.dump(d, open(sys.argv[2], "w"), indent=1)
EOF
# Each line: NAME|SECTIONS beyond the four|FILES
# The fixtures' names relative to tests/data, where report runs: the pages
# (and the screenshot) show them so, not this checkout's path.
pages="default||plot/run_default.json
compare|comparison|plot/run_default.json $tmp/run_slower.json
threads||plot/mem_threads.json
latency||latency/curve_a.json
loaded||latency/loaded.json
cmd_ab||plot/cmd_ab.json
kernel|kernel|format/kernel.json"
case $bin in
*/*) bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin") ;;
esac
# Figures need gnuplot (the pages say why there are none without it).
minfig=1
if ! command -v gnuplot >/dev/null 2>&1; then
	minfig=0
	echo "gnuplot not found: figures not required (scripts/deps.sh installs gnuplot-nox)"
fi
total=$(now)
n=0
while IFS='|' read -r name secs files; do
	n=$((n + 1))
	page=$tmp/$name.html
	echo "$name: $(echo "$files" | sed "s|$tmp/||g")"
	t=$(now)
	# shellcheck disable=SC2086
	(cd "$data" && timeout -k 10 "$TIMEOUT" "$bin" report --html "$page" $files) >"$tmp/$name.out" 2>&1
	rc=$?
	echo "  report --html: $(since "$t")"
	if [ $rc -ne 0 ] || [ ! -s "$page" ]; then
		tail -5 "$tmp/$name.out"
		fail "$name: primbench report --html exited with $rc$([ -s "$page" ] || echo ', no page')"
		continue
	fi
	# shellcheck disable=SC2086
	check "$name" "$page" "$minfig" $secs
done <<EOF
$pages
EOF

# The default run's page, printed (the print style sheet) and photographed.
page=$tmp/default.html
if [ -s "$page" ]; then
	t=$(now)
	chrome --no-pdf-header-footer --print-to-pdf="$tmp/default.pdf" "file://$page" >"$tmp/pdf.log" 2>&1
	rc=$?
	if [ $rc -ne 0 ] || [ "$(head -c 5 "$tmp/default.pdf" 2>/dev/null)" != "%PDF-" ]; then
		tail -5 "$tmp/pdf.log"
		fail "default: --print-to-pdf (exit $rc): no PDF"
	else
		echo "default: printed to PDF, $(wc -c <"$tmp/default.pdf") bytes: $(since "$t")"
	fi
	if [ -n "$shot" ]; then
		t=$(now)
		mkdir -p "$(dirname "$shot")"
		chrome --window-size=1280,2900 --screenshot="$tmp/shot.png" "file://$page" >"$tmp/shot.log" 2>&1
		rc=$?
		if [ $rc -ne 0 ] || [ "$(head -c 4 "$tmp/shot.png" 2>/dev/null | od -An -c | tr -d ' ')" != "211PNG" ]; then
			tail -5 "$tmp/shot.log"
			fail "default: --screenshot (exit $rc): no PNG"
		else
			cp "$tmp/shot.png" "$shot" && echo "default: screenshot $shot: $(since "$t")"
		fi
	fi
fi
echo "html pages: $n, $failures failures, $(since "$total") ($("$CHROMIUM" --version 2>/dev/null | tail -1))"
[ $failures -eq 0 ]
