#!/usr/bin/env python3
"""check_layers.py - the layering check of docs/architecture.md.

Reads every #include line of the files under src/ and of the public headers
under include/primbench/, maps each including file and each included
primbench header to its module, and prints one line per forbidden edge:

    path:line: from-module -> to-module (header): why

The modules, the headers each owns, the allowed edges and the private
headers other modules may include are written once, in the fenced
```layers block of docs/architecture.md; this script only parses them.
A file under src/<module>/ belongs to <module>; a public header
include/primbench/<name>.h to the module the block says owns it.

Forbidden: an edge the block does not allow (every module may include a
leaf module; the top module may include every public header); anything
including the top module (cli); another module's private header under
src/<module>/ unless the block lists it (never timer/timer_internal.h); a
public header the block does not place; an include that resolves to no
file; a library header an `external` line reserves (jansson.h: results)
included by a file of another module; and any cycle between modules (also one made of allowed edges, so a
bad block fails too).

Exit status: 0 clean, 1 violations (listed on stdout), 2 usage or a
malformed block. --self-test builds small fake trees in a temporary
directory and checks that a clean one passes and that a forbidden edge, a
cycle, a private header, an include of cli, an unplaced header and a
reserved library header included elsewhere are each reported.

Usage: check_layers.py [--root DIR] | --self-test
"""
import os
import re
import shutil
import sys
import tempfile

DOC = "docs/architecture.md"
INCLUDE_RE = re.compile(r'^\s*#\s*include\s*([<"])([^">]+)[">]')
# Private headers that no other module may include, whatever the block says.
NEVER_SHARED = {"timer/timer_internal.h"}
SOURCE_EXT = (".c", ".h")


class BlockError(Exception):
    pass


def parse_block(text):
    """The ```layers block of the architecture document: a dict with
    modules (ordered list), owner (header name -> module), allow (module ->
    set), leaf (set), top (module or None) and shared (private path ->
    set of modules allowed to include it)."""
    m = re.search(r"^```layers\s*\n(.*?)^```", text, re.S | re.M)
    if not m:
        raise BlockError("no ```layers block")
    spec = {"modules": [], "owner": {}, "allow": {}, "leaf": set(), "top": None, "shared": {},
            "external": {}}

    def module(name, lineno):
        if name not in spec["modules"]:
            raise BlockError("line %d: unknown module '%s' (declare it with 'module')" % (lineno, name))
        return name

    for lineno, raw in enumerate(m.group(1).splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        words = line.replace(",", " ").split()
        kind = words[0]
        if kind == "module":
            # module NAME [leaf|top]: HEADER ...
            head, _, rest = line.partition(":")
            hw = head.split()
            if len(hw) not in (2, 3) or (len(hw) == 3 and hw[2] not in ("leaf", "top")):
                raise BlockError("line %d: 'module NAME [leaf|top]: headers...'" % lineno)
            name = hw[1]
            if name in spec["modules"]:
                raise BlockError("line %d: module '%s' declared twice" % (lineno, name))
            spec["modules"].append(name)
            spec["allow"][name] = set()
            if len(hw) == 3 and hw[2] == "leaf":
                spec["leaf"].add(name)
            if len(hw) == 3 and hw[2] == "top":
                if spec["top"]:
                    raise BlockError("line %d: a second top module" % lineno)
                spec["top"] = name
            for h in rest.replace(",", " ").split():
                if h in spec["owner"]:
                    raise BlockError("line %d: %s owned twice" % (lineno, h))
                spec["owner"][h] = name
        elif kind == "allow":
            # allow FROM -> TO, TO ...
            if len(words) < 4 or words[2] != "->":
                raise BlockError("line %d: 'allow FROM -> TO, ...'" % lineno)
            frm = module(words[1], lineno)
            for to in words[3:]:
                spec["allow"][frm].add(module(to, lineno))
        elif kind == "private":
            # private MODULE/PATH -> MODULE, ...
            if len(words) < 4 or words[2] != "->":
                raise BlockError("line %d: 'private MODULE/PATH -> MODULE, ...'" % lineno)
            path = words[1]
            if path in NEVER_SHARED:
                raise BlockError("line %d: %s is never shared" % (lineno, path))
            module(path.split("/", 1)[0], lineno)
            spec["shared"].setdefault(path, set()).update(module(w, lineno) for w in words[3:])
        elif kind == "external":
            # external HEADER ... -> MODULE, ...: a header from outside the
            # tree (a library's) that only those modules may include
            if "->" not in words or words.index("->") < 2 or words.index("->") == len(words) - 1:
                raise BlockError("line %d: 'external HEADER ... -> MODULE, ...'" % lineno)
            arrow = words.index("->")
            mods = {module(w, lineno) for w in words[arrow + 1:]}
            for h in words[1:arrow]:
                spec["external"].setdefault(h, set()).update(mods)
        else:
            raise BlockError("line %d: unknown line '%s'" % (lineno, line))
    if not spec["modules"]:
        raise BlockError("no modules")
    return spec


def cycles(edges):
    """Strongly connected components of more than one module (Tarjan,
    iterative), each as a sorted list; edges: module -> set of modules."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]
    nodes = sorted(set(edges) | {t for ts in edges.values() for t in ts})
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges.get(w, ())))))
                    advanced = True
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return sorted(out)


def files_of(root):
    """(relative path, owning module or None for a public header) of every
    source and header under src/ and include/primbench/, sorted."""
    out = []
    for base in ("src", "include/primbench"):
        top = os.path.join(root, base)
        for d, dirs, names in os.walk(top):
            dirs.sort()
            for n in sorted(names):
                if n.endswith(SOURCE_EXT):
                    out.append(os.path.relpath(os.path.join(d, n), root))
    return out


def check(root):
    """The violation lines of the tree at root (empty: clean)."""
    try:
        with open(os.path.join(root, DOC), encoding="utf-8") as f:
            spec = parse_block(f.read())
    except (OSError, BlockError) as e:
        raise BlockError("%s: %s" % (DOC, e))
    modules, owner, top = spec["modules"], spec["owner"], spec["top"]
    bad = []
    edges = {}  # module -> {module: first (path, line, header)}

    def module_of_file(rel):
        parts = rel.split("/")
        if parts[0] == "src":
            return parts[1] if len(parts) > 2 else None
        return owner.get(parts[-1])

    def resolve(rel, name):
        """(module, kind, shown) of an included name, kind 'public' or
        'private'; None when not a primbench file (system headers)."""
        if name.startswith("primbench/"):
            h = name[len("primbench/"):]
            if not os.path.exists(os.path.join(root, "include", name)):
                return ("?", "missing", name)
            return (owner.get(h, "?"), "public", name)
        first = name.split("/", 1)[0]
        if "/" in name and os.path.exists(os.path.join(root, "src", name)):
            return (first, "private", name)
        # A bare or relative name: the including file's directory, else
        # any directory of its own module (the arch and generic include
        # directories the build adds).
        here = os.path.dirname(rel)
        if os.path.exists(os.path.join(root, here, name)):
            p = os.path.normpath(os.path.join(here, name))
            if p.startswith("src/"):
                return (p.split("/")[1], "private", name)
            return (owner.get(os.path.basename(p), "?"), "public", name)
        mod = module_of_file(rel)
        if rel.startswith("src/") and mod:
            for d, _, names in os.walk(os.path.join(root, "src", mod)):
                if os.path.basename(name) in names and os.path.exists(os.path.join(d, name)):
                    return (mod, "private", name)
        return None

    for rel in files_of(root):
        frm = module_of_file(rel)
        if rel.startswith("include/") and frm is None:
            bad.append("%s: public header not placed: add it to a module in %s" % (rel, DOC))
            continue
        if rel.startswith("src/") and frm not in modules:
            bad.append("%s: src/%s is not a module of %s" % (rel, frm, DOC))
            continue
        with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
            lines = f.readlines()
        for ln, text in enumerate(lines, 1):
            m = INCLUDE_RE.match(text)
            if not m:
                continue
            name = m.group(2)
            r = resolve(rel, name)
            if r is None and name in spec["external"] and frm not in spec["external"][name]:
                bad.append("%s:%d: %s includes %s: only %s may (%s)" % (
                    rel, ln, frm, name, ", ".join(sorted(spec["external"][name])), DOC))
                continue
            if r is None:
                if m.group(1) == '"':
                    bad.append("%s:%d: %s -> ? (%s): no such file in the tree" % (rel, ln, frm, name))
                continue
            to, kind, shown = r
            where = "%s:%d: %s -> %s (%s)" % (rel, ln, frm, to, shown)
            if kind == "missing":
                bad.append("%s: no such public header" % where)
                continue
            if to == "?":
                bad.append("%s: header not placed in %s" % (where, DOC))
                continue
            if to == frm:
                continue
            edges.setdefault(frm, {}).setdefault(to, (rel, ln, shown))
            if to == top:
                bad.append("%s: nothing includes %s" % (where, top))
            elif kind == "private" and shown in NEVER_SHARED:
                bad.append("%s: %s is private to src/%s" % (where, shown, to))
            elif kind == "private" and frm not in spec["shared"].get(shown, ()):
                bad.append("%s: private header of %s, not listed as shared in %s" % (where, to, DOC))
            elif kind == "public" and not (frm == top or to in spec["leaf"] or to in spec["allow"][frm]):
                bad.append("%s: edge not allowed (%s)" % (where, DOC))

    for comp in cycles({m: set(spec["allow"][m]) for m in modules}):
        bad.append("%s: the allowed edges make a cycle: %s" % (DOC, " <-> ".join(comp)))
    for comp in cycles({f: set(t) for f, t in edges.items()}):
        inside = sorted(
            "%s:%d (%s -> %s, %s)" % (p, ln, f, t, h)
            for f in comp for t, (p, ln, h) in edges.get(f, {}).items() if t in comp)
        bad.append("cycle %s: %s" % (" <-> ".join(comp), "; ".join(inside)))
    return bad


def self_test():
    good_doc = """# fake
```layers
module base leaf: base.h
module low: low.h
module mid: mid.h
module app top:
allow mid -> low
private low/low_rows.h -> mid
external ext.h -> low
```
"""
    files = {
        "include/primbench/base.h": "",
        "include/primbench/low.h": '#include "primbench/base.h"\n',
        "include/primbench/mid.h": '#include "primbench/low.h"\n',
        "src/base/base.c": '#include "primbench/base.h"\n#include <stdio.h>\n',
        "src/low/low.c": '#include "primbench/low.h"\n#include "low_rows.h"\n#include <ext.h>\n',
        "src/low/low_rows.h": "",
        "src/low/low_internal.h": "",
        "src/mid/mid.c": '#include "primbench/mid.h"\n#include "low/low_rows.h"\n',
        "src/app/app.h": "",
        "src/app/main.c": '#include "primbench/mid.h"\n#include "app/app.h"\n',
    }

    def tree(extra, doc=good_doc):
        d = tempfile.mkdtemp(prefix="check_layers.")
        allf = dict(files)
        allf.update(extra)
        allf[DOC] = doc
        for p, text in allf.items():
            os.makedirs(os.path.join(d, os.path.dirname(p)), exist_ok=True)
            with open(os.path.join(d, p), "w") as f:
                f.write(text)
        return d

    cases = [
        ("clean tree", {}, good_doc, []),
        ("forbidden edge", {"src/low/up.c": '#include "primbench/mid.h"\n'}, good_doc,
         ["src/low/up.c:1: low -> mid (primbench/mid.h): edge not allowed",
          "cycle low <-> mid: src/low/up.c:1 (low -> mid, primbench/mid.h); "
          "src/mid/mid.c:2 (mid -> low, low/low_rows.h)"]),
        ("cycle of allowed edges", {}, good_doc.replace("allow mid -> low", "allow mid -> low\nallow low -> mid"),
         ["docs/architecture.md: the allowed edges make a cycle: low <-> mid"]),
        ("private header", {"src/mid/peek.c": '#include "low/low_internal.h"\n'}, good_doc,
         ["src/mid/peek.c:1: mid -> low (low/low_internal.h): private header of low"]),
        ("includes the top module", {"src/mid/cli.c": '#include "app/app.h"\n'}, good_doc,
         ["src/mid/cli.c:1: mid -> app (app/app.h): nothing includes app",
          "cycle app <-> mid: src/app/main.c:1 (app -> mid, primbench/mid.h); "
          "src/mid/cli.c:1 (mid -> app, app/app.h)"]),
        ("external header outside its module", {"src/mid/ext.c": '#include <ext.h>\n',
                                                 "include/primbench/mid2.h": '#include "ext.h"\n'},
         good_doc.replace("module mid: mid.h", "module mid: mid.h mid2.h"),
         ["include/primbench/mid2.h:1: mid includes ext.h: only low may",
          "src/mid/ext.c:1: mid includes ext.h: only low may"]),
        ("unplaced header", {"include/primbench/new.h": ""}, good_doc,
         ["include/primbench/new.h: public header not placed"]),
        ("missing header", {"src/mid/typo.c": '#include "primbench/nosuch.h"\n'}, good_doc,
         ["src/mid/typo.c:1: mid -> ? (primbench/nosuch.h): no such public header"]),
        ("leaf includes up", {"src/base/up.c": '#include "primbench/low.h"\n'}, good_doc,
         ["src/base/up.c:1: base -> low (primbench/low.h): edge not allowed",
          "cycle base <-> low: include/primbench/low.h:1 (low -> base, primbench/base.h); "
          "src/base/up.c:1 (base -> low, primbench/low.h)"]),
    ]
    failed = 0
    for what, extra, doc, want in cases:
        d = tree(extra, doc)
        try:
            got = check(d)
        finally:
            shutil.rmtree(d)
        ok = len(got) == len(want) and all(g.startswith(w) for g, w in zip(sorted(got), sorted(want)))
        if not ok:
            failed += 1
            print("self-test %s: want %r, got %r" % (what, want, got))
    # The never-shared private header cannot be listed.
    try:
        parse_block("```layers\nmodule timer:\nmodule x:\nprivate timer/timer_internal.h -> x\n```\n")
        failed += 1
        print("self-test: listing timer/timer_internal.h as shared was accepted")
    except BlockError:
        pass
    print("%d passed, %d failed" % (len(cases) + 1 - failed, failed))
    return 1 if failed else 0


def main(argv):
    root = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    args = argv[1:]
    if args == ["--self-test"]:
        return self_test()
    if len(args) == 2 and args[0] == "--root":
        root = args[1]
    elif args:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    try:
        bad = check(root)
    except BlockError as e:
        print(e, file=sys.stderr)
        return 2
    for b in bad:
        print(b)
    if bad:
        print("%d layering violation%s (docs/architecture.md)" % (len(bad), "" if len(bad) == 1 else "s"))
        return 1
    print("layers: every include follows docs/architecture.md")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
