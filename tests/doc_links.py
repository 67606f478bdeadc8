#!/usr/bin/env python3
"""Every relative link of the documentation resolves.

    tests/doc_links.py [--root DIR]

Checks README.md, docs/*.md and tests/README.md (those present): each
Markdown link [text](target) and ![alt](target), each reference
definition [id]: target, and each HTML href="..." or src="...", outside
code blocks and code spans. A target with a scheme (https:, mailto:) is
not checked. A relative target must name an existing file or directory
(from the linking file's directory); its #anchor, when the target is a
Markdown file (or the anchor alone, into the same file), must be a
heading's anchor by GitHub's rules (lowercased; punctuation but - and _
dropped; spaces to -; a repeated heading gets -1, -2, ...) or an explicit
id="..."/name="..." in that file.

Exit status 0 when every link resolves, 1 otherwise (one line each).
"""
import glob
import os
import re
import sys
import urllib.parse

LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFDEF = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?([^\s>]+)>?"
                    r"(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^)]*\)))?\s*$")
HTML = re.compile(r"\b(?:href|src)\s*=\s*\"([^\"]+)\"")
IDS = re.compile(r"\b(?:id|name)\s*=\s*\"([^\"]+)\"")


def strip_code(text):
    """text with fenced blocks blanked and code spans removed, lines kept."""
    out, fence = [], None
    for line in text.split("\n"):
        m = re.match(r"^\s*(`{3,}|~{3,})", line)
        if fence is None and m:
            fence = m.group(1)[0] * len(m.group(1))
            out.append("")
            continue
        if fence is not None:
            if line.strip().startswith(fence) and set(line.strip()) == {fence[0]}:
                fence = None
            out.append("")
            continue
        out.append(re.sub(r"(`+)(?:(?!\1).)+?\1", "", line))
    return out


def slug(heading):
    """GitHub's anchor of a heading's text."""
    t = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # links: their text
    t = re.sub(r"<[^>]+>", "", t)  # HTML tags
    t = t.replace("`", "")
    t = re.sub(r"(\*\*|__|\*|~~)", "", t)
    t = t.strip().lower()
    t = re.sub(r"[^\w\- ]", "", t)
    return t.replace(" ", "-")


def anchors(path, cache={}):
    if path not in cache:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        found, seen = set(), {}
        lines = text.split("\n")
        code = strip_code(text)
        for i, line in enumerate(lines):
            if not code[i] and line.strip():
                continue  # inside a fenced block
            h = None
            m = re.match(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$", line)
            if m:
                h = m.group(2)
            elif i + 1 < len(lines) and line.strip() and \
                    re.match(r"^\s{0,3}(=+|-+)\s*$", lines[i + 1]) and \
                    not re.match(r"^\s{0,3}[-*+|]", line):
                h = line.strip()
            if h is None:
                continue
            s = slug(h)
            n = seen.get(s, 0)
            seen[s] = n + 1
            found.add(s if n == 0 else "%s-%d" % (s, n))
        found.update(IDS.findall(text))
        cache[path] = found
    return cache[path]


def targets(path):
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(strip_code(f.read()), 1):
            for m in LINK.finditer(line):
                yield n, m.group(1)
            m = REFDEF.match(line)
            if m:
                yield n, m.group(1)
            for m in HTML.finditer(line):
                yield n, m.group(1)


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if sys.argv[1:2] == ["--root"]:
        root = sys.argv[2]
    files = [os.path.join(root, "README.md")] + sorted(glob.glob(os.path.join(root, "docs", "*.md")))
    files += [os.path.join(root, "tests", "README.md")]
    files = [f for f in files if os.path.isfile(f)]
    bad = checked = 0
    for md in files:
        rel = os.path.relpath(md, root)
        for n, t in targets(md):
            if re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:", t) or t.startswith("//"):
                continue
            checked += 1
            target, _, anchor = t.partition("#")
            dest = md if not target else os.path.normpath(
                os.path.join(os.path.dirname(md), urllib.parse.unquote(target)))
            why = None
            if not os.path.exists(dest):
                why = "no such file"
            elif anchor and dest.endswith(".md") and \
                    urllib.parse.unquote(anchor) not in anchors(dest):
                why = "no heading with anchor #%s in %s" % (anchor, os.path.relpath(dest, root))
            if why:
                bad += 1
                print("%s:%d: %s: %s" % (rel, n, t, why))
    print("%d files, %d relative links, %d broken" % (len(files), checked, bad))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
