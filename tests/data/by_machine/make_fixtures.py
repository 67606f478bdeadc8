#!/usr/bin/env python3
"""Makes the SYNTHETIC third machine of tests/data/by_machine (README):
two runs of a made-up machine, each a copy of
../summary/loses-large.json (a real default run on the AMD EPYC) with
its machine fields edited, its memcpy cases dropped, every sample's value
scaled (x0.80 in synthetic_1.json, x0.84 in synthetic_2.json), and a
memset dram 32 MiB case per kernel made from that kernel's dram 1 MiB
case with its values x40. Nothing in them was measured on the machine
they name. Run from this directory: python3 make_fixtures.py"""
import copy
import json
import os



def load(name):
    with open(name) as f:
        return json.load(f)


# as ../compare/make_fixtures.py computes it
def fingerprint_hash(m):
    """docs/results-schema.md, "fingerprint_hash"."""
    def g(*path):
        o = m
        for k in path:
            o = o.get(k) if isinstance(o, dict) else None
        return o
    clock, hz = g("timer", "clock"), g("timer", "hz")
    glibc = {"version": g("glibc", "version")}
    for k in ("x86_rep_movsb_threshold", "x86_rep_stosb_threshold",
              "x86_non_temporal_threshold", "x86_shared_cache_size",
              "x86_data_cache_size"):
        glibc[k] = g("glibc", k)
    inp = {
        "cpu": {k: g("cpu", k) for k in
                ("vendor", "family", "model", "stepping", "microcode")},
        "features_usable": g("features", "usable"),
        "caches": {"L1d": g("caches", "L1d", "size_bytes"),
                   "L2": g("caches", "L2", "size_bytes"),
                   "LLC": g("caches", "LLC", "size_bytes"),
                   "line_bytes": g("caches", "line_bytes")},
        "clock": clock,
        "tsc_mhz": (int(hz / 1e6 + 0.5) if clock == "tsc" and
                    isinstance(hz, (int, float)) else None),
        "kernel_release": g("kernel"),
        "mitigations": {"vulnerabilities": g("mitigations", "vulnerabilities"),
                        "cmdline": g("mitigations", "cmdline")},
        "thp": {"enabled": g("thp", "enabled"), "defrag": g("thp", "defrag")},
        "preemption": {"model": g("preemption", "model"),
                       "dynamic": g("preemption", "dynamic")},
        "cpufreq_governor": g("cpufreq", "governor"),
        "glibc": glibc,
        "build": {k: g("build", k) for k in
                  ("compiler", "build_flags", "primbench_version")},
    }
    text = json.dumps(inp, sort_keys=True, separators=(",", ":"),
                      ensure_ascii=False).encode()
    h = 0xcbf29ce484222325
    for byte in text:
        h = ((h ^ byte) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return "%016x" % h


def synthetic(src, scale):
    d = copy.deepcopy(src)
    m = d["machine"]
    m["cpu"].update({"vendor": "SyntheticVendor", "brand": "Synthetic CPU (test fixture)",
                     "family": 99, "model": 1, "stepping": 0, "microcode": "0x0"})
    m["hostname"] = "synthetic"
    m["kernel"] = "6.1.0-synthetic"
    m["glibc"]["version"] = "2.41"
    cases = []
    for c in d["cases"]:
        k = c["key"]
        if k["suite"] == "mem" and k["op"] != "memset":
            continue
        c["samples"] = [[v * scale, calls] for v, calls in c["samples"]]
        cases.append(c)
        if k["suite"] == "mem" and k["cache_state"] == "dram" and k["size_bytes"] == 1048576:
            big = copy.deepcopy(c)
            big["key"]["size_bytes"] = 32 * 1048576
            big["samples"] = [[v * 40, calls] for v, calls in c["samples"]]
            cases.append(big)
    d["cases"] = cases
    d["command_line"] = ["synthetic: tests/data/by_machine/make_fixtures.py"]
    m["fingerprint_hash"] = fingerprint_hash(m)
    return d


src = load(os.path.join("..", "summary", "loses-large.json"))
for name, scale in (("synthetic_1.json", 0.80), ("synthetic_2.json", 0.84)):
    with open(name, "w") as f:
        json.dump(synthetic(src, scale), f, indent=1)
        f.write("\n")
