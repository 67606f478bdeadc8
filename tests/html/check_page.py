#!/usr/bin/env python3
"""check_page.py - the structure of a `primbench report --html` page,
without a browser (include/primbench/html.h is the contract).

Reads the page as XML (it is polyglot HTML5, so an XML parser reads it)
and prints one line per failure:

    PAGE: what is wrong

Checked: the file starts with <!DOCTYPE html> and is well-formed XML; the
<html> element has a lang attribute; a <meta charset="utf-8">, a
<meta name="generator" content="primbench ..."> and a non-empty <title>;
no <script> element, event-handler attribute (on...) or javascript: URL
anywhere, nor a meta refresh; no external reference: every src, href,
xlink:href, poster, data, action, formaction, srcset and background
attribute, every url(...) and @import of a <style> or a style attribute,
is a data: URL or an in-page #fragment (xmlns declarations are not
references); ids unique; exactly one <h1>; a print style sheet (@media
print in a <style>); the sections summary, machine, figures and tables
(and each --expect-section) as <section id="...">, in the contract's
order (summary, comparison, machine, kernel, figures, tables); each
<figure class="pb-figure"> inside section#figures, with an id fig-N and a
<figcaption>, holding at most one <img>; every <img> with a non-empty alt
and a src "data:image/svg+xml;base64,..." whose payload decodes (strict
base64) to XML with an <svg> root, itself with no script, event handler
or external reference. --expect-figures N: exactly N drawn figures
(pb-figure elements holding an <img>); N+ : at least N.

Exit status: 0 clean, 1 failures (listed on stdout), 2 usage or an
unreadable file. --self-test writes a good page and one bad variant per
check into a temporary directory and asserts that the good one passes and
each bad one fails with the expected line.

Usage: check_page.py PAGE.html [--expect-figures N|N+] [--expect-section ID]... | --self-test
"""
import base64
import binascii
import os
import re
import shutil
import sys
import tempfile
import xml.etree.ElementTree as ET

# The sections every page has, and the order of all of them (html.h).
REQUIRED_SECTIONS = ("summary", "machine", "figures", "tables")
SECTION_ORDER = ("summary", "comparison", "machine", "kernel", "figures", "tables")
# Attributes that name a resource or a link target.
URL_ATTRS = ("src", "href", "poster", "data", "action", "formaction", "background", "srcset",
             "cite", "longdesc", "manifest", "ping")
SVG_DATA_PREFIX = "data:image/svg+xml;base64,"
CSS_URL_RE = re.compile(r"url\(\s*(['\"]?)(.*?)\1\s*\)", re.I | re.S)
CSS_IMPORT_RE = re.compile(r"@import\b", re.I)
FIG_ID_RE = re.compile(r"^fig-[0-9]+$")


def local(tag_or_attr):
    """The name without its {namespace}."""
    return tag_or_attr.rsplit("}", 1)[-1] if isinstance(tag_or_attr, str) else ""


def in_page(url):
    """True for a reference that needs nothing outside the page."""
    u = url.strip()
    return u.startswith("#") or u.lower().startswith("data:")


def check_refs(root, where, fails):
    """Script, event handlers and external references of the tree root;
    where: a prefix for the lines ("" for the page, "fig-1's SVG: " ...)."""
    for el in root.iter():
        tag = local(el.tag).lower()
        if tag == "script":
            fails.append("%s<script> element" % where)
        if tag == "meta" and (el.get("http-equiv") or "").lower() == "refresh":
            fails.append("%s<meta http-equiv=\"refresh\">" % where)
        if tag == "style":
            check_css(el.text or "", where + "<style>", fails)
        for name, value in el.attrib.items():
            n = local(name).lower()
            if n.startswith("on"):
                fails.append("%s<%s %s=...>: event handler attribute" % (where, tag, n))
            elif n == "style":
                check_css(value, "%s<%s style>" % (where, tag), fails)
            elif n in URL_ATTRS:
                urls = [p.strip().split()[0] for p in value.split(",") if p.strip()] \
                    if n == "srcset" else [value]
                for u in urls:
                    if u.strip().lower().startswith("javascript:"):
                        fails.append("%s<%s %s=\"%s\">: javascript: URL" % (where, tag, n, short(u)))
                    elif not in_page(u):
                        fails.append("%s<%s %s=\"%s\">: external reference" % (where, tag, n, short(u)))


def check_css(text, where, fails):
    for m in CSS_URL_RE.finditer(text):
        if not in_page(m.group(2)):
            fails.append("%s: url(%s): external reference" % (where, short(m.group(2))))
    if CSS_IMPORT_RE.search(text):
        fails.append("%s: @import" % where)


def short(s, n=60):
    s = " ".join(s.split())
    return s if len(s) <= n else s[:n - 3] + "..."


def check_img(img, name, fails):
    """One <img>: alt, data: SVG source, the SVG itself."""
    alt = img.get("alt")
    if alt is None or not alt.strip():
        fails.append("%s: <img> without a text alternative (alt)" % name)
    src = img.get("src") or ""
    if not src.startswith(SVG_DATA_PREFIX):
        fails.append("%s: <img src=\"%s\">: not a data:image/svg+xml;base64 URL" % (name, short(src)))
        return
    try:
        payload = base64.b64decode(src[len(SVG_DATA_PREFIX):], validate=True)
    except (binascii.Error, ValueError) as e:
        fails.append("%s: the image's base64 does not decode: %s" % (name, e))
        return
    try:
        svg = ET.fromstring(payload)
    except ET.ParseError as e:
        fails.append("%s: the image is not XML: %s" % (name, e))
        return
    if local(svg.tag) != "svg":
        fails.append("%s: the image's root is <%s>, not <svg>" % (name, local(svg.tag)))
        return
    check_refs(svg, "%s's SVG: " % name, fails)


def check(path, expect_figures=None, expect_sections=()):
    """The failure lines of the page at path (empty: clean). Raises
    OSError where the file cannot be read."""
    with open(path, "rb") as f:
        data = f.read()
    fails = []
    head = data.lstrip(b"\xef\xbb\xbf").lstrip()
    if not head[:15].lower() == b"<!doctype html>":
        fails.append("does not start with <!DOCTYPE html>")
    try:
        root = ET.fromstring(data)
    except ET.ParseError as e:
        fails.append("not well-formed XML (the page is polyglot HTML5): %s" % e)
        return fails
    if local(root.tag) != "html":
        fails.append("the root element is <%s>, not <html>" % local(root.tag))
    if not (root.get("lang") or root.get("{http://www.w3.org/XML/1998/namespace}lang") or "").strip():
        fails.append("<html> has no lang attribute")

    by_tag = {}
    for el in root.iter():
        by_tag.setdefault(local(el.tag).lower(), []).append(el)

    metas = by_tag.get("meta", [])
    if not any((m.get("charset") or "").lower() == "utf-8" for m in metas):
        fails.append("no <meta charset=\"utf-8\">")
    gens = [m for m in metas if (m.get("name") or "").lower() == "generator"]
    if not any((m.get("content") or "").startswith("primbench") for m in gens):
        fails.append("no <meta name=\"generator\" content=\"primbench ...\">")
    titles = by_tag.get("title", [])
    if len(titles) != 1 or not "".join(titles[0].itertext()).strip():
        fails.append("not one non-empty <title> (%d)" % len(titles))
    h1 = by_tag.get("h1", [])
    if len(h1) != 1:
        fails.append("%d <h1> elements, not one" % len(h1))

    check_refs(root, "", fails)

    ids = {}
    for el in root.iter():
        i = el.get("id")
        if i is not None:
            ids[i] = ids.get(i, 0) + 1
    for i, n in sorted(ids.items()):
        if n > 1:
            fails.append("id \"%s\" used %d times" % (i, n))

    styles = "\n".join("".join(s.itertext()) for s in by_tag.get("style", []))
    if not re.search(r"@media\s+print\b", styles, re.I):
        fails.append("no print style sheet (@media print in a <style>)")

    sections = [s.get("id") for s in by_tag.get("section", []) if s.get("id")]
    for want in list(REQUIRED_SECTIONS) + [s for s in expect_sections if s not in REQUIRED_SECTIONS]:
        if want not in sections:
            fails.append("no <section id=\"%s\">" % want)
    known = [s for s in sections if s in SECTION_ORDER]
    if known != sorted(known, key=SECTION_ORDER.index):
        fails.append("sections out of order: %s (want %s)" % (", ".join(known), ", ".join(SECTION_ORDER)))

    # Figures: inside section#figures, ids fig-N, a caption, one picture.
    fig_section = [s for s in by_tag.get("section", []) if s.get("id") == "figures"]
    inside = set()
    for s in fig_section:
        inside.update(id(e) for e in s.iter())
    drawn = 0
    in_figure = set()
    for fig in by_tag.get("figure", []):
        if "pb-figure" not in (fig.get("class") or "").split():
            continue
        fid = fig.get("id") or ""
        name = fid or "a pb-figure"
        if not FIG_ID_RE.match(fid):
            fails.append("%s: id is not fig-N" % name)
        if id(fig) not in inside:
            fails.append("%s: not inside <section id=\"figures\">" % name)
        if not any(local(e.tag) == "figcaption" for e in fig.iter()):
            fails.append("%s: no <figcaption>" % name)
        imgs = [e for e in fig.iter() if local(e.tag) == "img"]
        if len(imgs) > 1:
            fails.append("%s: %d pictures, not one" % (name, len(imgs)))
        if imgs:
            drawn += 1
        for im in imgs:
            in_figure.add(id(im))
            check_img(im, name, fails)
    for n, im in enumerate(by_tag.get("img", []), 1):
        if id(im) not in in_figure:
            check_img(im, "<img> %d (outside the figures)" % n, fails)
    if expect_figures is not None:
        want, at_least = expect_figures
        if (drawn < want) if at_least else (drawn != want):
            fails.append("%d drawn figures, want %s%d" % (drawn, "at least " if at_least else "", want))
    return fails


def parse_expect_figures(s):
    m = re.match(r"^([0-9]+)(\+?)$", s)
    if not m:
        raise ValueError("--expect-figures N or N+, not %r" % s)
    return int(m.group(1)), bool(m.group(2))


# The self-test's pages.
GOOD_SVG = (b'<?xml version="1.0" encoding="utf-8"?>\n'
            b'<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
            b'width="60" height="40" viewBox="0 0 60 40"><defs><path id="p" d="M0,0 h2"/></defs>'
            b'<rect x="0" y="0" width="60" height="40" fill="none"/>'
            b'<path d="M5,35 L55,5" stroke="black"/><use xlink:href="#p" x="3" y="3"/></svg>\n')


def data_svg(svg):
    return SVG_DATA_PREFIX + base64.b64encode(svg).decode()


def sample_page(figs=None, head="", sections=None, h1="<h1>primbench report</h1>",
                lang=' lang="en"', style="@media print { body { color: black; } }",
                generator="primbench 1.0", doctype="<!DOCTYPE html>\n", extra=""):
    """A polyglot page like the contract's; the keywords replace one part."""
    if figs is None:
        figs = ['<figure class="pb-figure" id="fig-1"><h3>one</h3><img src="%s" alt="a line" />'
                '<figcaption>one</figcaption></figure>' % data_svg(GOOD_SVG),
                '<figure class="pb-figure" id="fig-2"><h3>two</h3><img src="%s" alt="another" />'
                '<figcaption>two</figcaption></figure>' % data_svg(GOOD_SVG)]
    if sections is None:
        sections = ["summary", "machine", "figures", "tables"]
    body = []
    for s in sections:
        inner = "\n".join(figs) if s == "figures" else "<p>%s &amp; more</p>" % s
        body.append('<section id="%s"><h2>%s</h2>\n%s\n</section>' % (s, s, inner))
    return ('%s<html xmlns="http://www.w3.org/1999/xhtml"%s>\n<head>\n<meta charset="utf-8" />\n'
            '<meta name="generator" content="%s" />\n<title>primbench report</title>\n'
            '<style>body { max-width: 80ch; }\n%s</style>\n%s</head>\n<body>\n<header>%s</header>\n'
            '%s\n%s<footer><p><a href="#summary">top</a></p></footer>\n</body>\n</html>\n'
            % (doctype, lang, generator, style, head, h1, "\n".join(body), extra))


def self_test():
    fig = '<figure class="pb-figure" id="fig-%d"><img src="%s" alt="%s" /><figcaption>c</figcaption></figure>'
    good_figs = [fig % (1, data_svg(GOOD_SVG), "a line")]
    cases = [
        # (what, page, options, the failure lines' starts)
        ("clean page", sample_page(), {"expect_figures": (2, False)}, []),
        ("clean page, at least 1 figure", sample_page(), {"expect_figures": (1, True)}, []),
        ("clean comparison page", sample_page(sections=["summary", "comparison", "machine", "figures",
                                                        "tables"]),
         {"expect_sections": ["comparison"]}, []),
        ("script element", sample_page(head='<script>console.error("x")</script>\n'), {},
         ["<script> element"]),
        ("event handler", sample_page(extra='<p onclick="x()">x</p>\n'), {},
         ["<p onclick=...>: event handler attribute"]),
        ("external image", sample_page(figs=good_figs + [fig % (2, "http://example.invalid/x.png", "x")]), {},
         ['fig-2: <img src="http://example.invalid/x.png">: not a data:image/svg+xml',
          '<img src="http://example.invalid/x.png">: external reference']),
        ("external style sheet", sample_page(head='<link rel="stylesheet" href="https://example.invalid/a.css" />\n'),
         {}, ['<link href="https://example.invalid/a.css">: external reference']),
        ("external link", sample_page(extra='<p><a href="https://example.invalid/">x</a></p>\n'), {},
         ['<a href="https://example.invalid/">: external reference']),
        ("css url()", sample_page(style="@media print { body { color: black; } }\n"
                                        "body { background: url(http://example.invalid/bg.png); }"), {},
         ["<style>: url(http://example.invalid/bg.png): external reference"]),
        ("style attribute url()", sample_page(extra='<p style="background: url(\'x.png\')">x</p>\n'), {},
         ["<p style>: url(x.png): external reference"]),
        ("css @import", sample_page(style="@import 'x.css';\n@media print { body { color: black; } }"), {},
         ["<style>: @import"]),
        ("javascript: URL", sample_page(extra='<p><a href="javascript:alert(1)">x</a></p>\n'), {},
         ['<a href="javascript:alert(1)">: javascript: URL']),
        ("meta refresh", sample_page(head='<meta http-equiv="refresh" content="0; url=#summary" />\n'), {},
         ['<meta http-equiv="refresh">']),
        ("not an SVG", sample_page(figs=good_figs + [fig % (2, data_svg(b"<notsvg>hello</notsvg>"), "x")]), {},
         ["fig-2: the image's root is <notsvg>, not <svg>"]),
        ("not XML", sample_page(figs=good_figs + [fig % (2, data_svg(b"GIF89a\x00\x01"), "x")]), {},
         ["fig-2: the image is not XML"]),
        ("bad base64", sample_page(figs=good_figs + [fig % (2, SVG_DATA_PREFIX + "PHN2Zz4*!", "x")]), {},
         ["fig-2: the image's base64 does not decode"]),
        ("PNG data URL", sample_page(figs=good_figs + [fig % (2, "data:image/png;base64,iVBORw0KGgo=", "x")]), {},
         ['fig-2: <img src="data:image/png;base64,iVBORw0KGgo=">: not a data:image/svg+xml']),
        ("script inside the SVG",
         sample_page(figs=good_figs + [fig % (2, data_svg(GOOD_SVG.replace(
             b"</svg>", b"<script>alert(1)</script></svg>")), "x")]), {},
         ["fig-2's SVG: <script> element"]),
        ("external reference inside the SVG",
         sample_page(figs=good_figs + [fig % (2, data_svg(GOOD_SVG.replace(
             b'xlink:href="#p"', b'xlink:href="http://example.invalid/p.svg#p"')), "x")]), {},
         ['fig-2\'s SVG: <use href="http://example.invalid/p.svg#p">: external reference']),
        ("empty alt", sample_page(figs=[fig % (1, data_svg(GOOD_SVG), " ")]), {},
         ["fig-1: <img> without a text alternative (alt)"]),
        ("no alt", sample_page(figs=['<figure class="pb-figure" id="fig-1"><img src="%s" />'
                                     '<figcaption>c</figcaption></figure>' % data_svg(GOOD_SVG)]), {},
         ["fig-1: <img> without a text alternative (alt)"]),
        ("duplicate id", sample_page(figs=good_figs + [fig % (1, data_svg(GOOD_SVG), "again")]), {},
         ['id "fig-1" used 2 times']),
        ("figure without caption", sample_page(figs=[
            '<figure class="pb-figure" id="fig-1"><img src="%s" alt="x" /></figure>' % data_svg(GOOD_SVG)]), {},
         ["fig-1: no <figcaption>"]),
        ("figure id not fig-N", sample_page(figs=[
            '<figure class="pb-figure" id="one"><img src="%s" alt="x" /><figcaption>c</figcaption></figure>'
            % data_svg(GOOD_SVG)]), {}, ["one: id is not fig-N"]),
        ("figure outside section#figures", sample_page(extra=fig % (9, data_svg(GOOD_SVG), "x") + "\n"), {},
         ['fig-9: not inside <section id="figures">']),
        ("missing section", sample_page(sections=["summary", "figures", "tables"]), {},
         ['no <section id="machine">']),
        ("missing expected section", sample_page(), {"expect_sections": ["comparison"]},
         ['no <section id="comparison">']),
        ("sections out of order", sample_page(sections=["machine", "summary", "figures", "tables"]), {},
         ["sections out of order"]),
        ("no print style sheet", sample_page(style="body { color: black; }"), {},
         ["no print style sheet"]),
        ("no lang", sample_page(lang=""), {}, ["<html> has no lang attribute"]),
        ("two h1", sample_page(h1="<h1>a</h1><h1>b</h1>"), {}, ["2 <h1> elements, not one"]),
        ("no h1", sample_page(h1="<p>a</p>"), {}, ["0 <h1> elements, not one"]),
        ("no generator", sample_page(generator="gnuplot"), {},
         ['no <meta name="generator" content="primbench ...">']),
        ("no doctype", sample_page(doctype=""), {}, ["does not start with <!DOCTYPE html>"]),
        ("not polyglot", sample_page(extra="<p>a<br>b</p>\n"), {}, ["not well-formed XML"]),
        ("figures: exact count", sample_page(), {"expect_figures": (3, False)},
         ["2 drawn figures, want 3"]),
        ("figures: at least", sample_page(figs=[]), {"expect_figures": (1, True)},
         ["0 drawn figures, want at least 1"]),
    ]
    d = tempfile.mkdtemp(prefix="check_page.")
    failed = 0
    try:
        for n, (what, page, opts, want) in enumerate(cases):
            path = os.path.join(d, "p%d.html" % n)
            with open(path, "w", encoding="utf-8") as f:
                f.write(page)
            got = check(path, **opts)
            ok = len(got) == len(want) and all(g.startswith(w) for g, w in zip(sorted(got), sorted(want)))
            if not ok:
                failed += 1
                print("self-test %s: want %r, got %r" % (what, want, got))
        # The command line: exit statuses.
        good = os.path.join(d, "p0.html")
        bad = os.path.join(d, "p3.html")
        for args, want in (([good, "--expect-figures", "2"], 0), ([bad], 1),
                           ([good, "--expect-figures", "x"], 2), ([os.path.join(d, "none.html")], 2)):
            devnull = open(os.devnull, "w")
            saved = sys.stdout, sys.stderr
            sys.stdout = sys.stderr = devnull
            try:
                rc = main(["check_page.py"] + args)
            finally:
                sys.stdout, sys.stderr = saved
                devnull.close()
            if rc != want:
                failed += 1
                print("self-test exit status of %s: want %d, got %d" % (" ".join(args[1:]) or "a page", want, rc))
    finally:
        shutil.rmtree(d)
    total = len(cases) + 4
    print("%d passed, %d failed" % (total - failed, failed))
    return 1 if failed else 0


def main(argv):
    args = argv[1:]
    if args == ["--self-test"]:
        return self_test()
    usage = __doc__.strip().splitlines()[-1]
    page = None
    figures = None
    sections = []
    i = 0
    try:
        while i < len(args):
            a = args[i]
            if a == "--expect-figures" and i + 1 < len(args):
                figures = parse_expect_figures(args[i + 1])
                i += 2
            elif a == "--expect-section" and i + 1 < len(args):
                sections.append(args[i + 1])
                i += 2
            elif not a.startswith("-") and page is None:
                page = a
                i += 1
            else:
                raise ValueError("unexpected argument %r" % a)
        if page is None:
            raise ValueError("no page given")
    except ValueError as e:
        print("check_page.py: %s\n%s" % (e, usage), file=sys.stderr)
        return 2
    try:
        fails = check(page, figures, sections)
    except OSError as e:
        print("check_page.py: %s" % e, file=sys.stderr)
        return 2
    for f in fails:
        print("%s: %s" % (page, f))
    if fails:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
