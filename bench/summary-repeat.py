#!/usr/bin/env python3
"""bench/summary-repeat.py RUN1.json RUN2.json [RUN3.json ...] - do the
default run's verdicts on libc repeat in other processes?

Each file is a default run's result (`primbench -q -o F`), run in its own
process. For every (op, cache state, size) in all of them it reads
`summary.libc[].verdict` (ahead, behind, within_noise, cannot_tell) and its
ratio and interval, and prints the points whose "ahead" or "behind" is not
given in every file (a flip), then a count line. It also lists every point
that some file calls "behind" beyond x1.08 (or "ahead" below 1/1.08)
and another file does not: issue 31's done-when, "every verdict
beyond x1.08 is still given".

Exit status 0 when no point flips, 1 when one does, 2 on bad input. Run by
hand; nothing here is a test. Python 3 standard library only.
"""
import json
import sys

FAR = 1.08


def fail(msg):
    print("summary-repeat.py: " + msg, file=sys.stderr)
    sys.exit(2)


def load(path):
    """(points, margin, interrupted) of a default run's result file."""
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        fail("%s: %s" % (path, e))
    s = doc.get("summary") if isinstance(doc, dict) else None
    if not isinstance(s, dict) or not isinstance(s.get("libc"), list):
        fail("%s: no summary.libc (not a default run's result)" % path)
    out = {}
    for i, x in enumerate(s["libc"]):
        try:
            key = (x["op"], x["cache_state"], int(x["size_bytes"]))
            if not isinstance(x["verdict"], str):
                raise TypeError("verdict")
        except (KeyError, TypeError, ValueError) as e:
            fail("%s: summary.libc[%d]: bad or missing %s" % (path, i, e))
        out[key] = x
    margin = doc.get("equivalence", 0.01)
    if not isinstance(margin, (int, float)) or isinstance(margin, bool):
        fail("%s: equivalence: not a number" % path)
    return out, margin, bool(doc.get("interrupted"))


def size_text(n):
    for unit, div in (("M", 1 << 20), ("K", 1 << 10)):
        if n >= div and n % div == 0:
            return "%d%s" % (n // div, unit)
    return str(n)


def show(x):
    ci = x.get("ratio_ci") or [None, None]
    r = x.get("ratio")
    t = "%s x%.3f" % (x["verdict"], r) if isinstance(r, (int, float)) else x["verdict"]
    if isinstance(ci[0], (int, float)) and isinstance(ci[1], (int, float)):
        t += " [%.3f, %.3f]" % (ci[0], ci[1])
    return t + " (" + str(x.get("fastest_other")) + ")"


def main(argv):
    if len(argv) < 3:
        fail("needs two or more result files of the default run "
             "(usage: summary-repeat.py RUN1.json RUN2.json [RUN3.json ...])")
    loaded = [load(p) for p in argv[1:]]
    margins = sorted(set(m for _, m, _ in loaded))
    if len(margins) > 1:
        fail("the files were judged with different margins (equivalence %s): their "
             "verdicts differ by the margin, not by the runs" %
             ", ".join("%g" % m for m in margins))
    for p, (_, _, stopped) in zip(argv[1:], loaded):
        if stopped:
            print("summary-repeat.py: warning: %s was interrupted: its points are those "
                  "it measured" % p, file=sys.stderr)
    runs = [r for r, _, _ in loaded]
    keys = sorted(set.intersection(*(set(r) for r in runs)))
    if not keys:
        fail("no point in common")
    flips = []
    far_lost = []
    same = 0
    for k in keys:
        vs = [r[k]["verdict"] for r in runs]
        decided = [v for v in vs if v in ("ahead", "behind")]
        if decided and len(set(vs)) > 1:
            flips.append(k)
        elif len(set(vs)) == 1:
            same += 1
        for r in runs:
            ratio = r[k].get("ratio")
            v = r[k]["verdict"]
            if not isinstance(ratio, (int, float)) or v not in ("ahead", "behind"):
                continue
            far = ratio > FAR if v == "behind" else ratio < 1 / FAR
            if far and any(w != v for w in vs) and k not in far_lost:
                far_lost.append(k)
    for k in flips:
        print("flips: %s %s %s" % (k[0], k[1], size_text(k[2])))
        for i, r in enumerate(runs):
            print("  run %d: %s" % (i + 1, show(r[k])))
    for k in far_lost:
        print("beyond x%.2f in a run, not given in all: %s %s %s" % (FAR, k[0], k[1],
                                                                   size_text(k[2])))
        for i, r in enumerate(runs):
            print("  run %d: %s" % (i + 1, show(r[k])))
    print("%d points in all %d runs: %d with the same verdict in all, %d flip "
          "(an ahead or behind not given in every run), %d beyond x%.2f not given in all" %
          (len(keys), len(runs), same, len(flips), len(far_lost), FAR))
    return 1 if flips or far_lost else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
