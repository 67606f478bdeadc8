#!/usr/bin/env python3
"""bench/auto-vs-libc.py RESULT.json... - auto against libc per size, from
`primbench mem OP --kernels auto,libc --sizes 16..64M/4 --cache hot,dram -o
RESULT.json` (one interleaved run: the ratio of the two medians at each size
and cache state). Prints, per op and state, libc's median time / auto's
(auto's speed as a multiple of libc's; > 1: auto faster), the geometric mean
and the sizes below 0.95. A hand-run analysis (python3 only; not part of
make test). Bad input: one line on stderr, exit 2."""
import json
import signal
import math
import statistics
import sys


def medians(doc):
    out = {}
    for c in doc["cases"]:
        k = c["key"]
        s = [t / n for t, n in c.get("samples", []) if n]
        if s:
            out[(k["op"], k["cache_state"], k["size_bytes"], k["kernel"])] = statistics.median(s)
    return out


def fail(msg):
    print("auto-vs-libc.py: " + msg, file=sys.stderr)
    sys.exit(2)


def wrapped(prefix, items):
    line = prefix
    for item in items:
        if len(line) + len(item) + 1 > 78 and line.strip():
            print(line.rstrip())
            line = "    "
        line += item + " "
    print(line.rstrip())


def main():
    if len(sys.argv) < 2:
        fail("usage: auto-vs-libc.py RESULT.json...")
    for path in sys.argv[1:]:
        try:
            with open(path) as f:
                doc = json.load(f)
            m = medians(doc)
        except (OSError, ValueError, KeyError, TypeError) as e:
            fail(f"{path}: not a readable primbench mem result ({e})")
        if not any(k == "auto" for _, _, _, k in m) or not any(k == "libc" for _, _, _, k in m):
            fail(f"{path}: no auto and libc cases (run mem with --kernels auto,libc)")
        groups = sorted({(op, st) for op, st, _, _ in m})
        for op, st in groups:
            sizes = sorted({n for o, s, n, _ in m if (o, s) == (op, st)})
            rows = []
            for n in sizes:
                a, l = m.get((op, st, n, "auto")), m.get((op, st, n, "libc"))
                if a and l:
                    rows.append((n, l / a))
            if not rows:
                continue
            g = math.exp(sum(math.log(r) for _, r in rows) / len(rows))
            low = [(n, r) for n, r in rows if r < 0.95]
            print(f"{op} {st}: {len(rows)} sizes, libc/auto geomean {g:.3f}, "
                  f"min {min(r for _, r in rows):.3f}, max {max(r for _, r in rows):.3f}")
            wrapped("  below 0.95: ", [f"{n} B {r:.2f}," for n, r in low] or ["none"])
            wrapped("  ", [f"{n}:{r:.2f}" for n, r in rows])


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # quiet under | head
    main()
