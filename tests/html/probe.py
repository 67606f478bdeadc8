#!/usr/bin/env python3
"""probe.py - the two halves of tests/html/browser.sh's look at a page in
headless Chromium.

  probe.py inject PAGE OUT [--min-figures N] [--expect-section ID]...
      writes OUT: a copy of PAGE with tests/html/probe.js (after a line
      setting PB_EXPECT) inserted before </head>. The page itself stays
      script-free; only the copy runs the probe.
  probe.py verdict DOM LOG NETLOG
      reads what Chromium left of one run on such a copy: DOM, the output
      of --dump-dom (the probe's <pre id="pb-probe">); LOG, its stderr with
      --enable-logging=stderr (every console message is a line with
      ":CONSOLE"); NETLOG, its --log-net-log file (every request the page
      started: URL_REQUEST_START_JOB events whose network isolation key or
      initiator is the file:// page's; Chromium's own background requests
      have neither). Prints one line per failure, the probe's picture lines
      with --verbose.
  probe.py selftest-pages DIR
      writes the pages of `browser.sh --self-test` into DIR: good.html
      and one bad page per browser check, and DIR/expect.txt, a line
      NAME|TEXT per page: TEXT is in a failure line of the bad page NAME
      (empty for good).

Exit status: 0 clean, 1 failures, 2 usage or an unreadable file.

Usage: probe.py inject PAGE OUT [--min-figures N] [--expect-section ID]... | verdict DOM LOG NETLOG [--verbose] | selftest-pages DIR
"""
import base64
import html
import json
import os
import sys

SECTIONS = ["summary", "machine", "figures", "tables"]
PROBE_TAG = '<pre id="pb-probe">'


def inject(page, out, min_figures, sections):
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "probe.js"), encoding="utf-8") as f:
        js = f.read()
    with open(page, encoding="utf-8") as f:
        text = f.read()
    expect = {"sections": SECTIONS + [s for s in sections if s not in SECTIONS], "min_figures": min_figures}
    tag = "<script>\nvar PB_EXPECT = %s;\n%s</script>\n" % (json.dumps(expect), js)
    at = text.find("</head>")
    if at < 0:
        print("%s: no </head> to put the probe before" % page)
        return 1
    with open(out, "w", encoding="utf-8") as f:
        f.write(text[:at] + tag + text[at:])
    return 0


def page_requests(netlog):
    """The URLs the page asked the network for, from a --log-net-log file."""
    with open(netlog, encoding="utf-8", errors="replace") as f:
        text = f.read()
    try:
        doc = json.loads(text)
    except ValueError:
        # A log cut short (Chromium killed): the events written so far.
        cut = text.rfind("},")
        doc = json.loads(text[:cut + 1] + "]}") if cut > 0 else None
    if not isinstance(doc, dict) or "constants" not in doc:
        raise ValueError("not a net log")
    start = doc["constants"].get("logEventTypes", {}).get("URL_REQUEST_START_JOB")
    if start is None:
        raise ValueError("no URL_REQUEST_START_JOB event type in its constants")
    urls = []
    for ev in doc.get("events", []):
        if ev.get("type") != start:
            continue
        p = ev.get("params", {})
        nik = str(p.get("network_isolation_key", ""))
        init = str(p.get("initiator", ""))
        if "file://" in nik or init == "null" or init.startswith("file:"):
            urls.append(p.get("url", "?"))
    return urls


def verdict(dom, log, netlog, verbose):
    fails = []
    with open(dom, encoding="utf-8", errors="replace") as f:
        text = f.read()
    # The last start tag: the page's own text (and probe.js's comment) may
    # hold the same one.
    at = text.rfind(PROBE_TAG)
    end = text.find("</pre>", at)
    if at < 0 or end < 0:
        fails.append("no probe result in the DOM: the page did not finish loading")
        lines = []
    else:
        lines = html.unescape(text[at + len(PROBE_TAG):end]).splitlines()
        if not lines or lines[-1] != "DONE":
            fails.append("the probe did not finish")
    for ln in lines:
        if ln.startswith("FAIL "):
            fails.append(ln[5:])
        elif verbose and ln != "DONE":
            print("  " + ln)
    with open(log, encoding="utf-8", errors="replace") as f:
        for ln in f:
            if ":CONSOLE" in ln:
                fails.append("console: " + ln.strip()[:200])
    try:
        for u in page_requests(netlog):
            fails.append("network request: " + u[:100])
    except (OSError, ValueError) as e:
        fails.append("net log %s: %s" % (netlog, e))
    for f in fails:
        print(f)
    return 1 if fails else 0


# The self-test's pictures: a frame and a line (drawn), and nothing.
SVG_DRAWN = ('<svg xmlns="http://www.w3.org/2000/svg" width="300" height="200" viewBox="0 0 300 200">'
             '<rect x="10" y="10" width="280" height="180" fill="none" stroke="black" stroke-width="2"/>'
             '<polyline points="20,180 100,60 180,120 280,20" fill="none" stroke="#9400d3" '
             'stroke-width="2"/></svg>\n')
SVG_BLANK = ('<svg xmlns="http://www.w3.org/2000/svg" width="300" height="200" viewBox="0 0 300 200">'
             '<rect x="0" y="0" width="300" height="200" fill="none"/></svg>\n')


def selftest_pages(d):
    def data(svg):
        return "data:image/svg+xml;base64," + base64.b64encode(svg.encode()).decode()

    def fig(n, src, style=""):
        return ('<figure class="pb-figure" id="fig-%d"><h3>picture %d</h3>'
                '<img src="%s" alt="a frame and a line"%s /><figcaption>picture %d</figcaption></figure>'
                % (n, n, src, style, n))

    def page(figs=None, head="", style="", sections=("summary", "machine", "figures", "tables"),
             extra=""):
        if figs is None:
            figs = [fig(1, data(SVG_DRAWN)), fig(2, data(SVG_DRAWN))]
        body = []
        for s in sections:
            inner = "\n".join(figs) if s == "figures" else \
                "<p>%s: some text, long enough to wrap in a column of eighty characters or less, " \
                "as the report's paragraphs do.</p>" % s
            body.append('<section id="%s"><h2>%s</h2>\n%s\n</section>' % (s, s, inner))
        return ('<!DOCTYPE html>\n<html xmlns="http://www.w3.org/1999/xhtml" lang="en">\n<head>\n'
                '<meta charset="utf-8" />\n<meta name="generator" content="primbench self-test" />\n'
                '<title>primbench report</title>\n<style>\nbody { max-width: 80ch; margin: 0 auto; '
                'font-family: sans-serif; }\n@media print { body { color: black; } }\n%s</style>\n%s'
                '</head>\n<body>\n<header><h1>primbench report</h1></header>\n%s\n%s'
                '<footer><p>primbench self-test</p></footer>\n</body>\n</html>\n'
                % (style, head, "\n".join(body), extra))

    pages = [
        ("good", page(), ""),
        ("blank_picture", page(figs=[fig(1, data(SVG_DRAWN)), fig(2, data(SVG_BLANK))]),
         "fig-2: the picture is blank"),
        ("not_svg", page(figs=[fig(1, data(SVG_DRAWN)), fig(2, data("<notsvg>hello</notsvg>"))]),
         "fig-2: the picture did not load"),
        ("external_img", page(figs=[fig(1, data(SVG_DRAWN)), fig(2, "http://example.invalid/x.png")]),
         "network request: http://example.invalid/x.png"),
        ("external_img_fetched", page(figs=[fig(1, data(SVG_DRAWN)), fig(2, "http://example.invalid/x.png")]),
         "fetched http://example.invalid/x.png"),
        ("css_url", page(style="body { background: url(http://example.invalid/bg.png); }\n"),
         "fetched http://example.invalid/bg.png"),
        ("script", page(head='<script>console.error("x")</script>\n'), "console: "),
        ("hidden_picture", page(figs=[fig(1, data(SVG_DRAWN)), fig(2, data(SVG_DRAWN), ' style="display: none"')]),
         "fig-2: the picture is not shown"),
        ("no_figures", page(figs=['<p>gnuplot not found: no figures</p>']),
         "0 figures drawn, want at least 1"),
        ("missing_section", page(sections=("summary", "figures", "tables")),
         'no <section id="machine">'),
        ("wide_text", page(style="p.wide { max-width: none; width: 120ch; }\n",
                           extra='<p class="wide">a paragraph of 120 columns</p>\n'),
         "more than 80 columns"),
        ("two_h1", page(extra="<h1>again</h1>\n"), "2 <h1> elements, not one"),
    ]
    with open(os.path.join(d, "expect.txt"), "w") as ex:
        for name, text, want in pages:
            with open(os.path.join(d, name + ".html"), "w", encoding="utf-8") as f:
                f.write(text)
            ex.write("%s|%s\n" % (name, want))
    return 0


def main(argv):
    usage = __doc__.strip().splitlines()[-1]
    a = argv[1:]
    try:
        if len(a) >= 3 and a[0] == "inject":
            mins, secs, rest = 0, [], a[3:]
            while rest:
                if rest[0] == "--min-figures" and len(rest) > 1:
                    mins = int(rest[1])
                elif rest[0] == "--expect-section" and len(rest) > 1:
                    secs.append(rest[1])
                else:
                    raise ValueError(rest[0])
                rest = rest[2:]
            return inject(a[1], a[2], mins, secs)
        if len(a) == 2 and a[0] == "selftest-pages":
            return selftest_pages(a[1])
        if len(a) in (4, 5) and a[0] == "verdict" and (len(a) == 4 or a[4] == "--verbose"):
            return verdict(a[1], a[2], a[3], len(a) == 5)
        raise ValueError(" ".join(a))
    except ValueError as e:
        print("probe.py: bad arguments: %s\n%s" % (e, usage), file=sys.stderr)
        return 2
    except OSError as e:
        print("probe.py: %s" % e, file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
