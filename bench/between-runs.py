#!/usr/bin/env python3
"""between-runs.py - what varies between runs, and how often compare is
fooled by it (docs/statistics.md, "What varies between runs"). Run by hand;
nothing here is a test. Python 3 standard library only.

  between-runs.py study   [--primbench P] [--procs N] [--out DIR] -- ARGS...
      N processes of `primbench ARGS --replicates R` per factor (plain;
      ASLR off with `setarch -R`; 4 KiB more environment; --replicates 1),
      and per case: the spread of the replicates' log medians inside a
      process (fresh buffers, calibration and seed) against the spread of
      the processes' figures. Prints the medians over the cases.

  between-runs.py aa      [--primbench P] [--pairs N] [--out DIR]
                          [--env-b NAME=VALUE] [--case SUBSTRING] [--runs K]
                          -- ARGS...
      N pairs of separate processes of `primbench ARGS -o F` (A, then B,
      alternating which goes first), each pair compared with `primbench
      compare A B -o C`; counts the cases called different (every one is
      false for an A/A pair). With --env-b, side B runs with that variable
      (an A/B: then "different" is what is wanted, counted for the cases
      whose label contains --case). With --runs K, K files a side, A and
      B alternating in time, compared as runs (`compare A1..AK -- B1..BK`).

Rates: per pair (any case different), with the Wilson 95% interval, and
per case comparison with a bootstrap over pairs (the pair is the unit:
the cases of one pair share its two processes).
"""
import argparse
import json
import math
import os
import random
import statistics
import subprocess
import sys
import tempfile


def wilson(k, n, z=1.959964):
    if n == 0:
        return (float("nan"), float("nan"))
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return (max(0.0, c - h), min(1.0, c + h))


def cluster_bootstrap(per_pair, reps=4000, seed=29):
    """per_pair: [(hits, cases)]; the rate sum(hits)/sum(cases) and its
    95% percentile interval, pairs drawn with replacement."""
    rng = random.Random(seed)
    n = len(per_pair)
    rate = sum(h for h, _ in per_pair) / max(1, sum(c for _, c in per_pair))
    boots = []
    for _ in range(reps):
        draw = [per_pair[rng.randrange(n)] for _ in range(n)]
        boots.append(sum(h for h, _ in draw) / max(1, sum(c for _, c in draw)))
    boots.sort()
    return rate, boots[int(0.025 * reps)], boots[int(0.975 * reps) - 1]


def run(cmd, env=None, prefix=()):
    e = dict(os.environ)
    if env:
        e.update(env)
    r = subprocess.run(list(prefix) + cmd, env=e, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        sys.exit("between-runs: %s failed (%d): %s" % (" ".join(cmd), r.returncode,
                                                       r.stderr.strip()[-300:]))


def case_name(c):
    k = c["key"]
    return json.dumps(k, sort_keys=True)


def replicate_medians(path):
    """{case key: [replicate medians]} of a result file (one run: [median])."""
    d = json.load(open(path))
    out = {}
    for c in d["cases"]:
        if not c.get("samples"):
            continue
        reps = c.get("replicates")
        if reps:
            out[case_name(c)] = [r["median"] for r in reps if r.get("median")]
        else:
            out[case_name(c)] = [c["per_call"]["median"]]
    return out


def sd_log(v):
    v = [math.log(x) for x in v if x and x > 0]
    return statistics.stdev(v) if len(v) >= 2 else float("nan")


def study(a):
    factors = [
        ("plain", {}, (), []),
        ("ASLR off (setarch -R)", {}, ("setarch", os.uname().machine, "-R"), []),
        ("environment +4 KiB", {"PB_PAD": "x" * 4096}, (), []),
        ("--replicates 1", {}, (), ["--replicates", "1"]),
    ]
    os.makedirs(a.out, exist_ok=True)
    print("primbench %s, %d processes per factor" % (" ".join(a.args), a.procs))
    for name, env, prefix, extra in factors:
        files = []
        for i in range(a.procs):
            f = os.path.join(a.out, "study-%s-%d.json" % (name.split()[0].strip("-"), i))
            run([a.primbench] + a.args + extra + ["-q", "-o", f], env, prefix)
            files.append(replicate_medians(f))
        within, between, ratio = [], [], []
        for key in files[0]:
            runs = [f[key] for f in files if key in f]
            if len(runs) < 2:
                continue
            # the figure of a process: the geometric mean of its replicates
            figs = [math.exp(statistics.mean(math.log(x) for x in r)) for r in runs]
            b = sd_log(figs)
            w = [sd_log(r) for r in runs if len(r) >= 2]
            w = statistics.mean(w) if w else float("nan")
            between.append(b)
            if not math.isnan(w):
                within.append(w)
                # what the replicates predict for a process's figure: w / sqrt(R)
                R = statistics.mean(len(r) for r in runs)
                ratio.append(b / (w / math.sqrt(R)) if w > 0 else float("nan"))
        med = lambda v: statistics.median([x for x in v if not math.isnan(x)]) if v else float("nan")
        print("%-24s between processes: median sd %.2f%%, 90th pct %.2f%%; inside a process, "
              "between replicates: median sd %.2f%%; between / (within/sqrt(R)) median %.2f" %
              (name, 100 * med(between),
               100 * sorted(between)[int(0.9 * (len(between) - 1))] if between else float("nan"),
               100 * med(within), med(ratio)))
        sys.stdout.flush()


def aa(a):
    os.makedirs(a.out, exist_ok=True)
    env_b = {}
    if a.env_b:
        n, v = a.env_b.split("=", 1)
        env_b[n] = v
    per_pair, any_diff, runs_unit = [], 0, set()
    for i in range(a.pairs):
        # --runs K: K files a side, A and B alternating (A B B A A B ...),
        # compared as runs with `compare A1..AK -- B1..BK`
        fas = [os.path.join(a.out, "aa-%d-a%d.json" % (i, k)) for k in range(a.runs)]
        fbs = [os.path.join(a.out, "aa-%d-b%d.json" % (i, k)) for k in range(a.runs)]
        order = []
        for k in range(a.runs):
            pair = [(fas[k], {}), (fbs[k], env_b)]
            order += pair if (i + k) % 2 == 0 else pair[::-1]
        for f, e in order:
            run([a.primbench] + a.args + ["-q", "-o", f], e)
        fc = os.path.join(a.out, "aa-%d-cmp.json" % i)
        if a.runs == 1:
            run([a.primbench, "compare", fas[0], fbs[0], "-o", fc])
        else:
            run([a.primbench, "compare", "-o", fc] + fas + ["--"] + fbs)
        cmp = json.load(open(fc))
        rows = cmp["comparisons"][0]["cases"]
        if a.case:
            rows = [r for r in rows if a.case in r["name"]]
        hits = sum(1 for r in rows if r["significant"])
        for r in rows:
            runs_unit.add((r.get("runs") or {}).get("unit", "?"))
        per_pair.append((hits, len(rows)))
        any_diff += hits > 0
        print("pair %2d: %d of %d cases different%s" %
              (i + 1, hits, len(rows),
               "" if not hits else ": " + ", ".join(
                   "%s %+.1f%%" % (r["name"], r["delta"]["pct"]) for r in rows if r["significant"])[:300]))
        sys.stdout.flush()
    lo, hi = wilson(any_diff, len(per_pair))
    rate, blo, bhi = cluster_bootstrap(per_pair)
    print("pairs with a case called different: %d of %d (%.1f%%, Wilson 95%% [%.1f%%, %.1f%%])" %
          (any_diff, len(per_pair), 100 * any_diff / len(per_pair), 100 * lo, 100 * hi))
    print("case comparisons called different: %.2f%% (bootstrap over pairs, 95%% [%.2f%%, %.2f%%]); "
          "runs: %s" % (100 * rate, 100 * blo, 100 * bhi, ", ".join(sorted(runs_unit))))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("mode", choices=["study", "aa"])
    p.add_argument("--primbench", default="build/primbench")
    p.add_argument("--procs", type=int, default=6)
    p.add_argument("--pairs", type=int, default=20)
    p.add_argument("--out", default=tempfile.mkdtemp(prefix="between-runs-"))
    p.add_argument("--env-b")
    p.add_argument("--case")
    p.add_argument("--runs", type=int, default=1,
                   help="aa: files a side, alternating, compared with '--'")
    argv = sys.argv[1:]
    rest = argv.index("--") if "--" in argv else len(argv)
    a = p.parse_args(argv[:rest])
    a.args = argv[rest + 1:]
    if not a.args:
        p.error("no primbench arguments after --")
    (study if a.mode == "study" else aa)(a)


if __name__ == "__main__":
    main()
