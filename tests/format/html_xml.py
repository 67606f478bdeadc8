#!/usr/bin/env python3
"""html_xml.py - the HTML tables of result files and of comparisons
(include/primbench/format.h pb_format_html_tables, compare.h
pb_compare_html) parse as XML, polyglot HTML5's rule, and hold the tables
their contracts describe.

Usage: html_xml.py HTML_TABLES DATA_DIR
HTML_TABLES: tests/format/html_tables.c's program; DATA_DIR: tests/data.
Each output parses with xml.etree (every element closed, attributes
quoted); its only character references are &amp; &lt; &gt; &quot; &apos;;
every <table> has class="pb-table", a caption, one header row of
<th scope="col"> and body rows of one <th scope="row"> and a cell per
other column; the tables' ids (result files) are unique and start with
the prefix; number cells have class="num"; a comparison's verdict cells
have one of the four verdict classes. An edited fixture (labels and a
group with '<', '&' and quotes) comes back as its text.
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

REFS = re.compile(r"&(?!(?:amp|lt|gt|quot|apos);)")
VERDICTS = {"verdict-different", "verdict-equivalent", "verdict-none", "verdict-one-run"}
failed = set()  # the outputs (or checks) that failed
checked = 0


def fail(what, msg):
    failed.add(what)
    print(f"FAIL {what}: {msg}")


def run(prog, args):
    p = subprocess.run([prog] + args, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(args)}: exit {p.returncode}: {p.stderr.strip()}")
    return p.stdout


def parse(what, text):
    global checked
    checked += 1
    bad = REFS.search(text)
    if bad:
        fail(what, f"a character reference not of the five: {text[bad.start():bad.start() + 12]!r}")
    try:
        return ET.fromstring(text)
    except ET.ParseError as e:
        fail(what, f"not XML: {e}")
        return None


def check_table(what, t):
    """The table's shape; its header cells' texts."""
    if t.get("class") != "pb-table":
        fail(what, f"table class {t.get('class')!r}")
    cap = t.find("caption")
    if cap is None or not (cap.text or "").strip():
        fail(what, "no caption")
    head = t.findall("thead/tr")
    if len(head) != 1:
        fail(what, f"{len(head)} header rows")
        return []
    ths = list(head[0])
    if not ths or any(c.tag != "th" or c.get("scope") != "col" for c in ths):
        fail(what, "a header cell not <th scope=\"col\">")
    rows = t.findall("tbody/tr")
    if not rows:
        fail(what, "no body row")
    for r in rows:
        cells = list(r)
        if len(cells) != len(ths):
            fail(what, f"a row of {len(cells)} cells under {len(ths)} headers")
            continue
        if cells[0].tag != "th" or cells[0].get("scope") != "row":
            fail(what, "a row's first cell not <th scope=\"row\">")
        for h, c in zip(ths[1:], cells[1:]):
            if c.tag != "td":
                fail(what, f"a <{c.tag}> cell")
            if (h.get("class") == "num") != (c.get("class") == "num"):
                fail(what, f"column {h.text!r}: cell class {c.get('class')!r}")
    return [h.text for h in ths]


def check_tables(prog, path, prefix="f1-"):
    what = os.path.relpath(path)
    root = parse(what, run(prog, ["tables", prefix, path]))
    if root is None:
        return None
    tables = root.findall("table")
    ids = [t.get("id") for t in tables]
    if len(set(ids)) != len(ids):
        fail(what, f"ids not unique: {ids}")
    for i in ids:
        if not i or not i.startswith(prefix) or not re.fullmatch(r"[a-z0-9-]+", i[len(prefix):]):
            fail(what, f"id {i!r}")
    for t in tables:
        heads = check_table(what, t)
        if heads[:4] != ["case", "n", "median", "95% CI"] or heads[4:] not in ([], ["ns/call", "GB/s"]):
            fail(what, f"header cells {heads}")
    if not tables and root.find("p") is None:
        fail(what, "no table and no paragraph")
    return root


def check_compare(prog, a, b, matched=True):
    what = f"{os.path.relpath(a)} vs {os.path.relpath(b)}"
    root = parse(what, run(prog, ["compare", a, b]))
    if root is None:
        return None
    if root.find("ul") is None:
        fail(what, "no list of the files")
    tables = root.findall("table")
    if matched != bool(tables):
        fail(what, f"{len(tables)} tables")
    if not matched and root.find("p") is None:
        fail(what, "no paragraph saying why nothing matched")
    for t in tables:
        heads = check_table(what, t)
        if t.find("caption").text == "geomean":
            if heads != ["unit", "old", "new", "delta", "cases"]:
                fail(what, f"geomean header {heads}")
            continue
        if len(heads) != 7 or heads[0] != "case" or heads[3] != "delta" or heads[6] != "verdict":
            fail(what, f"header cells {heads}")
        for r in t.findall("tbody/tr"):
            if list(r)[-1].get("class") not in VERDICTS:
                fail(what, f"verdict class {list(r)[-1].get('class')!r}")
    return root


def main():
    prog, data = sys.argv[1], sys.argv[2]
    files = []
    for sub in ("format", "plot", "latency", "compare"):
        d = os.path.join(data, sub)
        for name in sorted(os.listdir(d)):
            if name.endswith(".json"):
                files.append(os.path.join(d, name))
    n = 0
    for path in files:
        try:
            run(prog, ["tables", "x-", path])
        except RuntimeError:
            continue  # a bad-input fixture: it does not load
        check_tables(prog, path)
        n += 1
    if n < 20:
        fail("fixtures", f"only {n} result files loaded")
    pairs = [("compare/mem_a.json", "compare/mem_b.json"),
             ("compare/sys_a.json", "compare/sys_b.json"),
             ("compare/mem_a.json", "compare/sw_diff.json"),
             ("latency/curve_a.json", "latency/curve_b.json"),
             ("latency/map_a.json", "latency/map_b.json")]
    for a, b in pairs:
        check_compare(prog, os.path.join(data, a), os.path.join(data, b))
    # nothing in both: a paragraph, no table
    check_compare(prog, os.path.join(data, "compare/mem_a.json"),
                  os.path.join(data, "compare/sys_a.json"), matched=False)

    # texts with HTML's characters: they come back as they were
    with open(os.path.join(data, "format", "mem.json")) as fh:
        doc = json.load(fh)
    odd = "a<b&c\"d'e>"
    for c in doc["cases"]:
        if c["key"]["cache_state"] == "hot":
            c["key"]["cache_state"] = "hot & <cold>"
    doc["cases"][0]["key"]["kernel"] = odd
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "odd.json")
        with open(path, "w") as fh:
            json.dump(doc, fh)
        root = check_tables(prog, path, prefix="odd-")
        if root is not None:
            caps = [t.find("caption").text for t in root.findall("table")]
            if "memcpy hot & <cold> (tsc_ticks per call)" not in caps:
                fail("odd.json", f"captions {caps}")
            labels = [r.find("th").text for r in root.iter("tr") if r.find("th") is not None]
            if not any(odd in (l or "") for l in labels):
                fail("odd.json", f"no label with {odd!r}: {labels}")
            ids = [t.get("id") for t in root.findall("table")]
            if "odd-memcpy-hot-cold" not in ids:
                fail("odd.json", f"ids {ids}")
        root = check_compare(prog, os.path.join(data, "format", "mem.json"), path)
    print(f"{checked - len(failed)} passed, {len(failed)} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
