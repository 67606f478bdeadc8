#!/usr/bin/env python3
"""fault-bridge.py - `syscall fault` and `mem map` side by side, from the
small recycled mapping `syscall fault` times to the 1 GiB fresh region
`mem map` faults by default (docs/methodology.md, "Two page-fault
figures").

Each pass runs, one process after another on one CPU:
  syscall fault                       (4K: a few pages; THP: 1-32 x 2 MiB)
  mem map --size S --pages P          for each (S, P) of REGIONS
and reads the free page reporting counter
(/sys/module/page_reporting/parameters/reported_kib, where the kernel has
one) around each process. Passes repeat the whole list, so every figure
sees the same minutes of the machine; the table gives the median of the
passes and their range, in ns per 4 KiB of memory faulted, and the MiB the
guest reported free to the host during that process.

Usage: bench/fault-bridge.py [--primbench PATH] [--passes N] [--cpu N]
                              [--rounds N] [--regions 8K:4K,2M:2M,...]
Exit status: 0, or 2 with one line on stderr (primbench failed, bad
option, a file it wrote is not what this script reads).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

REPORTED = "/sys/module/page_reporting/parameters/reported_kib"
DEFAULT_REGIONS = "8K:4K,64M:4K,1G:4K,2M:2M,64M:2M,1G:2M"


def die(msg):
    print("fault-bridge.py: " + msg, file=sys.stderr)
    sys.exit(2)


def reported_kib():
    try:
        with open(REPORTED) as f:
            return int(f.read().strip())
    except (OSError, ValueError):
        return None


def run(cmd, out):
    before = reported_kib()
    p = subprocess.run(cmd + ["-q", "-o", out], stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    after = reported_kib()
    if p.returncode != 0:
        die("%s: exit %d: %s" % (" ".join(cmd), p.returncode, p.stderr.strip()[:300]))
    try:
        with open(out) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        die("%s: %s" % (out, e))
    mib = (after - before) / 1024.0 if before is not None and after is not None else None
    return doc, mib


def syscall_figures(doc):
    """ns per 4 KiB of the fault cases: {"4K": x, "2M": y}."""
    got = {}
    for c in doc.get("cases", []):
        key = c.get("key", {})
        if key.get("benchmark") != "fault":
            continue
        ns = c.get("median_derived", {}).get("ns_per_call")
        page = key.get("page_bytes")
        if not isinstance(ns, (int, float)) or page not in (4096, 2 << 20):
            die("syscall fault: a case without ns_per_call or page_bytes")
        got["4K" if page == 4096 else "2M"] = ns * 4096.0 / page
    return got


def map_figure(doc, page):
    for c in doc.get("cases", []):
        if c.get("key", {}).get("page_bytes") == page:
            ns = c.get("median_derived", {}).get("ns_per_4k_page")
            if isinstance(ns, (int, float)):
                return ns
    return None


def parse_size(text):
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    try:
        return int(text[:-1]) * mult[text[-1].upper()]
    except (KeyError, ValueError, IndexError):
        die("bad size '%s' (a number and K, M or G)" % text)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--primbench", default="build/primbench")
    ap.add_argument("--passes", type=int, default=3)
    ap.add_argument("--cpu", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=0,
                    help="mem map --rounds for every region (default: 512 MiB of faults a "
                         "region, 10 to 200 rounds: a small region's few rounds would be "
                         "its first, colder faults)")
    ap.add_argument("--regions", default=DEFAULT_REGIONS,
                    help="SIZE:PAGES list (default %s)" % DEFAULT_REGIONS)
    a = ap.parse_args()
    if a.passes < 1 or (a.rounds and a.rounds < 5):
        die("--passes must be at least 1 and --rounds at least 5")
    if not os.access(a.primbench, os.X_OK):
        die("'%s' is not an executable primbench (--primbench)" % a.primbench)
    regions = []
    for item in a.regions.split(","):
        size, _, pages = item.partition(":")
        if pages not in ("4K", "2M"):
            die("bad region '%s' (SIZE:4K or SIZE:2M)" % item)
        regions.append((size, pages, parse_size(size)))

    rows = {}  # label -> ([ns], [MiB])

    def add(label, ns, mib):
        r = rows.setdefault(label, ([], []))
        if ns is not None:
            r[0].append(ns)
        if mib is not None:
            r[1].append(mib)

    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "r.json")
        for n in range(a.passes):
            print("pass %d of %d" % (n + 1, a.passes), file=sys.stderr)
            doc, mib = run([a.primbench, "syscall", "fault", "--cpu", str(a.cpu)], out)
            fig = syscall_figures(doc)
            add("syscall fault 4K", fig.get("4K"), mib)
            add("syscall fault THP", fig.get("2M"), mib)
            for size, pages, nbytes in regions:
                rounds = a.rounds or min(200, max(10, (512 << 20) // nbytes))
                cmd = [a.primbench, "mem", "map", "--cpu", str(a.cpu), "--size", size,
                       "--pages", pages, "--rounds", str(rounds)]
                doc, mib = run(cmd, out)
                add("mem map %s %s" % (pages if pages == "4K" else "THP", size),
                    map_figure(doc, 4096 if pages == "4K" else 2 << 20), mib)

    print("%-24s %12s %23s %16s" % ("figure", "ns/4KiB", "range of the passes",
                                    "reported MiB"))
    for label, (ns, mib) in rows.items():
        if not ns:
            print("%-24s %12s" % (label, "skipped"))
            continue
        rep = "%.0f-%.0f" % (min(mib), max(mib)) if mib else "not counted"
        print("%-24s %12.1f %11.1f-%-11.1f %16s" % (label, statistics.median(ns), min(ns),
                                                  max(ns), rep))
    print("ns/4KiB: the median over %d passes of each process's figure (syscall: the "
          "replicates' geometric mean of medians; mem map: the same, of its --rounds); "
          "reported MiB: free memory the guest handed the host during that process"
          % a.passes)


if __name__ == "__main__":
    main()
