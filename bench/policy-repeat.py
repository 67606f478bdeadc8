#!/usr/bin/env python3
"""bench/policy-repeat.py A.json B.json - does a break-even policy repeat in
a second process?

A and B are result files of the same `primbench mem ... --breakeven -o F`
command (or two default runs, `primbench -o F`), run in separate processes.
For each (op, cache state) in both, it prints the two policies and whether
they repeat (issue 31's done-when): the same kernels in the same order, and
each switch's bound of one file inside the other file's interval for that
switch (`switches[].ci_overlap_bytes`: the sizes between the last one where
the lower kernel is faster by the one rule and the first one where the
upper one is; an open end reaches the end of the sizes measured). A switch
whose bounds fall outside each other's intervals is a policy that fits
noise, or a machine that changed between the runs.

Exit status 0 when every policy repeats, 1 when one does not, 2 on bad
input.
"""
import json
import sys


def load(path):
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit("policy-repeat.py: %s: %s" % (path, e))
    out = {}
    for b in doc.get("breakeven") or []:
        out[(b["op"], b["cache_state"])] = b
    if not out:
        print("policy-repeat.py: %s: no break-even section (run with --breakeven)" % path,
              file=sys.stderr)
        sys.exit(2)
    return out


def kernels(policy):
    return [p.split("<=")[0] for p in policy.split(",")]


def inside(bound, sw):
    lo, hi = sw["ci_overlap_bytes"]
    lo_open, hi_open = sw.get("ci_overlap_open", [False, False])
    return (lo_open or bound >= lo - 1) and (hi_open or bound <= hi + 1)


def interval(sw):
    lo, hi = sw["ci_overlap_bytes"]
    lo_open, hi_open = sw.get("ci_overlap_open", [False, False])
    return "[%s%d, %d%s]" % ("<=" if lo_open else "", lo, hi, "+" if hi_open else "")


def main():
    if len(sys.argv) != 3:
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        sys.exit(2)
    a, b = load(sys.argv[1]), load(sys.argv[2])
    bad = 0
    for key in sorted(set(a) & set(b)):
        pa, pb = a[key]["policy"], b[key]["policy"]
        print("%s %s:\n  A %s\n  B %s" % (key[0], key[1], pa, pb))
        if kernels(pa) != kernels(pb):
            print("  other kernels: does not repeat")
            bad += 1
            continue
        ok = True
        for sa, sb in zip(a[key].get("switches", []), b[key].get("switches", [])):
            ba, bb = sa["bound_bytes"], sb["bound_bytes"]
            fit = inside(bb, sa) and inside(ba, sb)
            ok &= fit
            print("  %s -> %s: A %d in %s, B %d in %s: %s" %
                  (sa["below"], sa["above"], ba, interval(sa), bb, interval(sb),
                   "within each other's interval" if fit else "outside"))
        print("  " + ("repeats" if ok else "does not repeat"))
        bad += not ok
    sys.exit(1 if bad else 0)


main()
