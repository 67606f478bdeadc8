#!/usr/bin/env python3
"""bench/auto-vs-libc.py RESULT.json... - auto against libc per size, from
`primbench mem OP --kernels auto,libc --sizes 16..64M/4 --cache hot,dram -o
RESULT.json` (one interleaved run in R >= 2 replicates, mem's default 5).

Per op, cache state and size: the ratio libc time / auto time (auto's speed
as a multiple of libc's; > 1: auto faster). With replicates, the ratio is
the geometric mean of the replicates' ratios (replicate i of auto against
replicate i of libc: the two were interleaved in the same pass) and its
95% interval Student's t on their logarithms, R - 1 degrees of freedom:
the run-level interval of docs/statistics.md "What varies between runs".
A size is a LOSS when pb_verdict (src/stats/twosample.c) calls auto slower:
the interval lies below 1 and the ratio below 1 - margin (--margin,
default the one margin, 1%). Without replicates, the ratio of the medians, no verdict.

Then the figures of issue 35's done-when, per file: the geometric mean
per op and state over all sizes, over dram 8..64 MiB, and the losses.
--check exits 1 when a file misses them (dram 8..64 MiB geomean >= 1.10,
every op x state geomean >= 1.00, no loss). A hand-run analysis (python3
only; not part of make test). Bad input: one line on stderr, exit 2."""
import json
import math
import signal
import statistics
import sys

MIB = 1 << 20


def t_cdf(t, df):
    """Student's t CDF by Simpson's rule on the density (df >= 1)."""
    if t < 0:
        return 1 - t_cdf(-t, df)
    c = math.exp(math.lgamma((df + 1) / 2) - math.lgamma(df / 2)) / math.sqrt(df * math.pi)
    n = 2000
    h = t / n
    s = 0.0
    for i in range(n + 1):
        x = i * h
        w = 1 if i in (0, n) else (4 if i % 2 else 2)
        s += w * c * (1 + x * x / df) ** (-(df + 1) / 2)
    return 0.5 + s * h / 3


def t_quantile(p, df):
    lo, hi = 0.0, 1000.0
    for _ in range(100):
        mid = (lo + hi) / 2
        if t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


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


def cases(doc):
    """(op, state, size) -> {kernel: (median, [replicate medians])}"""
    out = {}
    for c in doc["cases"]:
        k = c["key"]
        pc = c.get("per_call")
        if not pc or "median" not in pc:
            continue
        reps = [r["median"] for r in c.get("replicates", []) if r.get("median")]
        out.setdefault((k["op"], k["cache_state"], k["size_bytes"]), {})[k["kernel"]] = (
            pc["median"], reps)
    return out


def ratio(auto, libc, tq):
    """libc/auto: (estimate, lo, hi); lo, hi None without replicates."""
    am, ar = auto
    lm, lr = libc
    if len(ar) >= 2 and len(ar) == len(lr):
        logs = [math.log(l / a) for a, l in zip(ar, lr)]
        m = statistics.fmean(logs)
        h = tq[len(logs) - 1] * statistics.stdev(logs) / math.sqrt(len(logs))
        return math.exp(m), math.exp(m - h), math.exp(m + h)
    return lm / am, None, None


def size_text(n):
    return f"{n // MIB}M" if n >= MIB and n % MIB == 0 else str(n)


def main():
    args = sys.argv[1:]
    check = "--check" in args
    margin = 0.01
    paths = []
    i = 0
    while i < len(args):
        if args[i] == "--check":
            pass
        elif args[i] == "--margin" and i + 1 < len(args):
            try:
                margin = float(args[i + 1].rstrip("%")) / 100
            except ValueError:
                fail(f"bad --margin '{args[i + 1]}' (a percentage)")
            i += 1
        else:
            paths.append(args[i])
        i += 1
    if not paths:
        fail("usage: auto-vs-libc.py [--check] [--margin P%] RESULT.json...")
    tq = {df: t_quantile(0.975, df) for df in range(1, 40)}
    missed = False
    for path in paths:
        try:
            with open(path) as f:
                doc = json.load(f)
            m = cases(doc)
        except (OSError, ValueError, KeyError, TypeError) as e:
            fail(f"{path}: not a readable primbench mem result ({e})")
        pairs = {k: v for k, v in m.items() if "auto" in v and "libc" in v}
        if not pairs:
            fail(f"{path}: no auto and libc cases (run mem with --kernels auto,libc)")
        print(f"{path}: libc/auto (> 1: auto faster); loss: auto slower by the "
              f"run-level 95% interval, beyond {margin * 100:g}%")
        for op, st in sorted({(o, s) for o, s, _ in pairs}):
            rows = []
            for n in sorted(n for o, s, n in pairs if (o, s) == (op, st)):
                v = pairs[(op, st, n)]
                tq_ok = tq if len(v["auto"][1]) - 1 in tq else None
                est, lo, hi = ratio(v["auto"], v["libc"], tq_ok or tq)
                rows.append((n, est, lo, hi))
            g = math.exp(statistics.fmean(math.log(r) for _, r, _, _ in rows))
            loss = [(n, r, lo, hi) for n, r, lo, hi in rows if hi is not None and hi < 1 and r < 1 - margin]
            print(f"{op} {st}: {len(rows)} sizes, geomean {g:.3f}, min "
                  f"{min(r for _, r, _, _ in rows):.3f}, max {max(r for _, r, _, _ in rows):.3f}, "
                  f"{len(loss)} loss{'es' if len(loss) != 1 else ''}")
            if g < 1.0:
                missed = True
            if loss:
                missed = True
            wrapped("  losses: ", [f"{size_text(n)} {r:.3f} [{lo:.3f},{hi:.3f}]," for n, r, lo, hi in loss]
                    or ["none"])
            if st == "dram":
                big = [r for n, r, _, _ in rows if 8 * MIB <= n <= 64 * MIB]
                if big:
                    gb = math.exp(statistics.fmean(math.log(r) for r in big))
                    print(f"  dram 8..64 MiB: {len(big)} sizes, geomean {gb:.3f}")
                    if gb < 1.10:
                        missed = True
            wrapped("  ", [f"{size_text(n)}:{r:.2f}" for n, r, _, _ in rows])
    if check:
        print("done-when figures: " + ("missed" if missed else "met"))
        sys.exit(1 if missed else 0)


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # quiet under | head
    main()
