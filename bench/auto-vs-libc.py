#!/usr/bin/env python3
"""bench/auto-vs-libc.py RESULT.json... - auto against libc per size, from
`primbench mem OP --kernels auto,libc --sizes 16..64M/4 --cache hot,dram -o
RESULT.json` (one interleaved run: the ratio of the two medians at each size
and cache state). Prints, per op and state, libc/auto (speed of auto as a
multiple of libc's; > 1: auto faster), the geometric mean and the sizes below
0.95. A hand-run analysis (python3 only; not part of make test)."""
import json
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


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: auto-vs-libc.py RESULT.json...")
    for path in sys.argv[1:]:
        m = medians(json.load(open(path)))
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
            print("  below 0.95: " + (", ".join(f"{n} B {r:.2f}" for n, r in low) or "none"))
            line = "  "
            for n, r in rows:
                item = f"{n}:{r:.2f} "
                if len(line) + len(item) > 78:
                    print(line.rstrip())
                    line = "  "
                line += item
            print(line.rstrip())


if __name__ == "__main__":
    main()
