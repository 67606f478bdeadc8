#!/usr/bin/env python3
"""bench/verdict-study.py - how many runs does `cmd --until-verdict` need,
and how often is it wrong, per setting? (docs/statistics.md, "Runs to a
verdict: placement, pairs, duets"). Live trials, run by hand; it measures
this machine for minutes. Python 3 standard library only.

usage: bench/verdict-study.py [-t TRIALS] [-m MAX_RUNS] [--iters N]
           [--diff PCT] [--aa] [-o CSV] PRIMBENCH SPIN 'LABEL=OPTIONS' ...

Each trial runs `PRIMBENCH cmd -q --until-verdict --max-runs MAX_RUNS
OPTIONS -o F --vs 'SPIN N*(1+PCT/100)' -- SPIN N` (bench/spin.c, N =
--iters, 50,000,000 by default: about 60 ms here) and reads F: how the
session ended, the verdict, the runs per side at the last look. With --aa
both sides run `SPIN N` (an A/A: every "different" is false). The settings
are interleaved trial by trial (setting 1's trial 1, setting 2's trial 1,
...), so that a change of the machine over the minutes hits them all.

Printed per setting: trials; right, wrong, equivalent and no verdicts;
runs per side to the verdict (median, 90th percentile; a trial without
one counts as more than MAX_RUNS) and the share of trials with a right
verdict within 20 runs per side; for --aa the false-verdict share with its
95% Wilson interval and the share "equivalent" within MAX_RUNS. -o CSV
keeps one line per trial (label, trial, ended_by, verdict, ratio,
runs_per_side, seconds).

Exit status 0; 2 on bad usage or a trial that could not run.
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time


def wilson(k, n, z=1.959964):
    if n == 0:
        return (float("nan"), float("nan"))
    p = k / n
    mid = (p + z * z / (2 * n)) / (1 + z * z / n)
    hw = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return (max(0.0, mid - hw), min(1.0, mid + hw))


def pct(v, q):
    s = sorted(v)
    return s[min(len(s) - 1, int(q * len(s)))]


def trial(args, label, options, path):
    n = args.iters
    nb = n if args.aa else int(round(n * (1 + args.diff / 100)))
    cmd = ([args.primbench, "cmd", "-q", "--until-verdict", "--max-runs", str(args.max_runs)]
           + options.split() + ["-o", path, "--vs", "%s %d" % (args.spin, nb), "--",
                                args.spin, str(n)])
    t0 = time.monotonic()
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    secs = time.monotonic() - t0
    if p.returncode not in (0, 1):
        sys.exit("verdict-study.py: %s: %s: exit %d: %s" %
                 (label, " ".join(cmd), p.returncode, p.stderr.strip()))
    try:
        with open(path) as f:
            d = json.load(f)
        uv = d["ab"]["until_verdict"]
        looks = uv["looks"]
        last = looks[-1] if looks else {}
        return {"ended_by": uv["ended_by"], "verdict": uv["verdict"],
                "ratio": last.get("ratio"), "lo": last.get("ci_lo"),
                "runs": last.get("runs_per_side", 0), "secs": secs}
    except (OSError, ValueError, KeyError, TypeError, IndexError) as e:
        sys.exit("verdict-study.py: %s: unreadable result %s: %s" % (label, path, e))


def main():
    ap = argparse.ArgumentParser(add_help=True)
    ap.add_argument("-t", "--trials", type=int, default=20)
    ap.add_argument("-m", "--max-runs", type=int, default=60)
    ap.add_argument("--iters", type=int, default=50000000)
    ap.add_argument("--diff", type=float, default=2.0)
    ap.add_argument("--aa", action="store_true")
    ap.add_argument("-o", "--csv")
    ap.add_argument("primbench")
    ap.add_argument("spin")
    ap.add_argument("settings", nargs="+")
    try:
        args = ap.parse_args()
    except SystemExit as e:
        sys.exit(2 if e.code else 0)
    settings = []
    for s in args.settings:
        if "=" not in s:
            print("verdict-study.py: a setting is LABEL=OPTIONS, not '%s'" % s,
                  file=sys.stderr)
            sys.exit(2)
        label, opts = s.split("=", 1)
        settings.append((label, opts))
    if args.trials < 1 or args.max_runs < 6:
        print("verdict-study.py: -t at least 1, -m at least 6", file=sys.stderr)
        sys.exit(2)
    res = {label: [] for label, _ in settings}
    out = open(args.csv, "w") if args.csv else None
    if out:
        out.write("label,trial,ended_by,verdict,ratio,runs_per_side,seconds\n")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "t.json")
        for t in range(args.trials):
            for label, opts in settings:
                r = trial(args, label, opts, path)
                res[label].append(r)
                if out:
                    out.write("%s,%d,%s,%s,%s,%d,%.1f\n" % (
                        label, t + 1, r["ended_by"], r["verdict"], r["ratio"],
                        r["runs"], r["secs"]))
                    out.flush()
                print("  %-24s trial %2d: %-10s %-10s runs %3d ratio %s (%.0f s)" % (
                    label, t + 1, r["ended_by"], r["verdict"], r["runs"], r["ratio"],
                    r["secs"]), file=sys.stderr, flush=True)
    what = ("A/A, spin %d both sides" % args.iters if args.aa else
            "B %g%% slower: spin %d against %d" % (args.diff, args.iters,
                                                   round(args.iters * (1 + args.diff / 100))))
    print("%s; --until-verdict --max-runs %d; %d trials per setting, interleaved" %
          (what, args.max_runs, args.trials))
    if args.aa:
        print("%-24s %6s %6s %16s %7s %9s" % ("setting", "trials", "false", "95% Wilson",
                                               "equiv", "min/med s"))
    else:
        print("%-24s %6s %6s %6s %6s %6s %6s %5s %7s" % (
            "setting", "trials", "right", "wrong", "equiv", "none", "median", "p90",
            "<=20"))
    for label, _ in settings:
        rs = res[label]
        n = len(rs)
        secs = sorted(r["secs"] for r in rs)
        if args.aa:
            false = sum(r["verdict"] == "different" for r in rs)
            equiv = sum(r["verdict"] == "equivalent" for r in rs)
            lo, hi = wilson(false, n)
            print("%-24s %6d %5.0f%% [%5.1f%%, %5.1f%%] %6.0f%% %4.0f/%.0f" % (
                label, n, 100 * false / n, 100 * lo, 100 * hi, 100 * equiv / n, secs[0],
                secs[n // 2]))
        else:
            right = [r for r in rs if r["verdict"] == "different" and (r["lo"] or 0) > 1]
            wrong = sum(r["verdict"] == "different" for r in rs) - len(right)
            equiv = sum(r["verdict"] == "equivalent" for r in rs)
            none = sum(r["verdict"] == "none" for r in rs)
            at = [r["runs"] if r in right else args.max_runs + 1 for r in rs]
            m, p90 = pct(at, 0.5), pct(at, 0.9)
            fmt = lambda v: ">%d" % args.max_runs if v > args.max_runs else str(v)
            within = sum(r["runs"] <= 20 for r in right)
            print("%-24s %6d %6d %6d %6d %6d %6s %5s %6.0f%%" % (
                label, n, len(right), wrong, equiv, none, fmt(m), fmt(p90),
                100 * within / n))
    if out:
        out.close()


if __name__ == "__main__":
    main()
