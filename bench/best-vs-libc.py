#!/usr/bin/env python3
"""bench/best-vs-libc.py CHOOSE.json [CHECK.json] - how far any size policy
could beat glibc here: the upper bound for `auto` against libc.

Input: results of `primbench mem OP --kernels all --sizes 16..64M/4 --cache
hot,dram -o FILE` (one or more ops per file). Per op and cache state it
prints the geometric mean over sizes of libc's median / the best kernel's
median (> 1: the best kernel is faster), three ways:

  in-sample      the fastest kernel at each size, chosen and scored in
                 CHOOSE.json: biased upwards (the minimum of ~10 noisy
                 medians is lower than any kernel's true time);
  cross-checked  chosen in CHOOSE.json, scored in CHECK.json (an
                 independent run): an honest estimate of the best per-state
                 choice;
  one policy     one kernel per size for both states (the kernel with the
                 best geometric mean over hot and dram in CHOOSE.json),
                 scored in CHECK.json: what a policy file can do at most,
                 before the cost of dispatch. This is the bound for auto.

Kernels that only demonstrate a technique (bytes, strided, rbw) and auto are
not candidates. A hand-run analysis (python3 only; not part of make test).
Bad input: one line on stderr, exit 2."""
import json
import math
import signal
import statistics
import sys

SKIP = {"libc", "auto", "bytes", "strided", "rbw"}


def fail(msg):
    print("best-vs-libc.py: " + msg, file=sys.stderr)
    sys.exit(2)


def medians(path):
    try:
        with open(path) as f:
            doc = json.load(f)
        out = {}
        for c in doc["cases"]:
            k = c["key"]
            s = [t / n for t, n in c.get("samples", []) if n]
            if s:
                key = (k["op"], k["cache_state"], k["size_bytes"])
                out.setdefault(key, {})[k["kernel"]] = statistics.median(s)
        return out
    except OSError as e:
        fail("cannot read '%s': %s" % (path, e.strerror))
    except (ValueError, KeyError, TypeError) as e:
        fail("'%s' is not a primbench mem result: %s" % (path, e))


def best(cell):
    cands = [(v, k) for k, v in cell.items() if k not in SKIP and v > 0]
    return min(cands)[1] if cands else None


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def main():
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    if len(sys.argv) not in (2, 3) or sys.argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        sys.exit(0 if len(sys.argv) == 2 else 2)
    choose = medians(sys.argv[1])
    check = medians(sys.argv[2]) if len(sys.argv) == 3 else None
    ops = sorted({op for op, _, _ in choose})
    for op in ops:
        states = sorted({st for o, st, _ in choose if o == op})
        sizes = sorted({n for o, _, n in choose if o == op})
        # one kernel per size for all states: best geomean over the states
        policy = {}
        for n in sizes:
            cells = [choose.get((op, st, n), {}) for st in states]
            names = set.intersection(*(set(c) for c in cells)) - SKIP if cells else set()
            if names:
                policy[n] = min(names, key=lambda k: sum(math.log(c[k]) for c in cells))
        for st in states:
            ins, cross, pol, low = [], [], [], []
            for n in sizes:
                cell = choose.get((op, st, n), {})
                k = best(cell)
                if k is None or "libc" not in cell:
                    continue
                ins.append(cell["libc"] / cell[k])
                if check is None:
                    continue
                other = check.get((op, st, n), {})
                if "libc" in other and k in other:
                    cross.append(other["libc"] / other[k])
                pk = policy.get(n)
                if pk and "libc" in other and pk in other:
                    r = other["libc"] / other[pk]
                    pol.append(r)
                    if r < 0.95:
                        low.append("%d B %.2f (%s)" % (n, r, pk))
            line = "%s %s: %d sizes; libc/best geomean in-sample %.3f" % (op, st, len(ins),
                                                                          geomean(ins))
            if check is not None:
                line += ", cross-checked %.3f, one policy %.3f" % (geomean(cross), geomean(pol))
            print(line)
            if check is not None:
                print("  one policy below 0.95: " + (", ".join(low) if low else "none"))


if __name__ == "__main__":
    main()
