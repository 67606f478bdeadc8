#!/usr/bin/env python3
"""Derives the bad and edited result files of tests/data/compare from the
real ones (mem_a.json, mem_b.json: `primbench mem memset --kernels
libc,bytes,rep_stosb` and `--kernels libc,bytes,avx2`, sizes 64,4K, hot,
20 samples; sys_a.json, sys_b.json: `primbench syscall null umask`, 12
samples; xsave.json: `primbench xsave --no-breakeven`, 12 samples).
Run from this directory: python3 make_fixtures.py"""
import copy
import json


def load(name):
    with open(name) as f:
        return json.load(f)


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


def save(name, doc):
    if isinstance(doc, dict) and "machine" in doc:
        doc["machine"]["fingerprint_hash"] = fingerprint_hash(doc["machine"])
    with open(name, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


a, b = load("mem_a.json"), load("mem_b.json")
assert fingerprint_hash(a["machine"]) == a["machine"]["fingerprint_hash"]

# Other hardware: another CPU model and CPU count.
d = copy.deepcopy(b)
d["machine"]["cpu"]["model"] = 143
d["machine"]["cpu"]["online_cpus"] = 4
save("other_hw.json", d)

# Only software differs: the before/after of a kernel patch.
d = copy.deepcopy(b)
m = d["machine"]
m["kernel"] = "6.1.0-20-amd64"
m["kernel_version"] = "#1 SMP PREEMPT_DYNAMIC Debian 6.1.85-1 (2024-04-11)"
m["mitigations"]["cmdline"] = "off"
m["mitigations"]["vulnerabilities"]["retbleed"] = "Mitigation: IBRS"
m["build"]["primbench_version"] = "v0.2-3-gabcdef0"
save("sw_diff.json", d)

# The same measurements in ns (as with the clock_gettime fallback).
d = copy.deepcopy(b)
hz = d["machine"]["timer"]["hz"]
for c in d["cases"]:
    c["unit"] = "ns"
    c["samples"] = [[v * 1e9 / hz, n] for v, n in c["samples"]]
save("ns.json", d)

# A case interrupted before its first sample.
d = copy.deepcopy(b)
d["cases"][0]["samples"] = []
del d["cases"][0]["per_call"]
del d["cases"][0]["median_derived"]
save("no_samples.json", d)

# A sample that is not [value, calls].
d = copy.deepcopy(a)
d["cases"][1]["samples"][2] = ["x", 10]
save("bad_sample.json", d)

# A negative time: impossible (suites clamp samples at 0).
d = copy.deepcopy(a)
d["cases"][1]["samples"][3][0] = -5
save("negative.json", d)

# Two cases with one key.
d = copy.deepcopy(a)
d["cases"][3]["key"] = copy.deepcopy(d["cases"][0]["key"])
save("dup_key.json", d)

# Not a result, or another version of one.
d = copy.deepcopy(a)
d["schema"] = "primbench-compare"
save("wrong_schema.json", d)
d = copy.deepcopy(a)
d["schema_version"] = 3
save("wrong_version.json", d)
d = copy.deepcopy(d)
d["schema_version"] = "2"
save("version_string.json", d)
save("not_object.json", [1, 2])

# Truncated: the first 3000 bytes of mem_a.json.
with open("mem_a.json", "rb") as f:
    text = f.read()
with open("truncated.json", "wb") as f:
    f.write(text[:3000])

# Malformed: the comma after "schema_version": 1 removed (line 3).
lines = text.decode().split("\n")
assert lines[2].startswith(' "schema_version": 1,'), lines[2]
lines[2] = lines[2].rstrip(",")
with open("malformed.json", "w") as f:
    f.write("\n".join(lines))

open("empty.json", "w").close()
