#!/usr/bin/env python3
"""Trims result files of `primbench mem` to the first KEEP samples of each
replicate (the replicate structure kept valid: replicates[].samples is the
count kept and replicates[].median the median per call of those; per_call,
median_derived and outliers still describe the whole run, so tests compute
from the samples). Usage: python3 trim.py IN.json OUT.json [KEEP]"""
import json
import statistics
import sys


def trim(doc, keep):
    for case in doc["cases"]:
        reps = case.get("replicates")
        samples = case["samples"]
        if not reps:
            case["samples"] = samples[:keep]
            continue
        out, at = [], 0
        for rep in reps:
            mine = samples[at:at + rep["samples"]][:keep]
            at += rep["samples"]
            rep["samples"] = len(mine)
            rep["median"] = statistics.median(v / c for v, c in mine)
            out.extend(mine)
        case["samples"] = out
    return doc


if __name__ == "__main__":
    keep = int(sys.argv[3]) if len(sys.argv) > 3 else 12
    with open(sys.argv[1]) as f:
        doc = trim(json.load(f), keep)
    with open(sys.argv[2], "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
