#!/usr/bin/env python3
"""Extends tests/data/format/kernel.json (the fake device's clear_page run,
written by tests/test_kernel_suite.c --write-fixture) with the ABI v2 ops
as docs/results-schema.md "A `kernel` case" gives them: copy_page, fpu
(timed_from kernel and user), user_copy cases and a "breakeven" array, and
writes tests/data/format/mem-pages.json (clear_page and copy_page cases as
`mem` keys them, for `kernel --vs-user`). Every new case is the first case
(clear_page kernel 4K hot) scaled by a factor: samples, per_call and
replicates alike, so the file stays consistent; medians, ns and GB/s are
derived as the writer derives them. Synthetic: nothing was measured.

usage: kernel_fixture.py IN_KERNEL_JSON OUT_KERNEL_JSON MEM_PAGES_SRC OUT_MEM_JSON
(MEM_PAGES_SRC: tests/data/plot/clear_page.json, a real `mem clear_page`).
"""
import copy
import json
import math
import sys

src, out, mem_src, mem_out = sys.argv[1:5]
d = json.load(open(src))
KHZ = d["kernel"]["tsc_khz"]
base = d["cases"][0]
assert base["key"]["variant"] == "kernel" and base["key"]["cache_state"] == "hot"
M = base["per_call"]["median"]


def scaled(s):
    c = copy.deepcopy(base)
    c["samples"] = [[v * s, n] for v, n in base["samples"]]
    for k in ("min", "p10", "median", "p90", "max", "mean", "stddev", "ci_lo", "ci_hi"):
        c["per_call"][k] = base["per_call"][k] * s
    for r in c["replicates"]:
        r["median"] *= s
    return c


def ns(ticks):
    return ticks * 1e6 / KHZ


def page_case(op, variant, state, s, page=4096):
    c = scaled(s)
    c["key"] = {"suite": "kernel", "op": op, "variant": variant, "page_bytes": page,
                "cache_state": state}
    m = c["per_call"]["median"]
    c["median_derived"] = {"ns_per_call": ns(m), "ticks_per_page": m * 4096 / page,
                           "gb_per_s": page / ns(m)}
    return c


def fpu_case(variant, upper, s):
    c = scaled(s)
    c["key"] = {"suite": "kernel", "op": "fpu", "variant": variant, "upper_state": upper}
    user = variant.startswith("ioctl_")
    c["timed_from"] = "user" if user else "kernel"
    c["overhead_subtracted"] = not user
    c["median_derived"] = {"ns_per_call": ns(c["per_call"]["median"])}
    # keep the member order of the writer's cases: timed_from after unit
    order = ["key", "replicates", "unit", "timed_from", "overhead_subtracted", "samples",
             "per_call", "median_derived", "migrations", "outliers"]
    return {k: c[k] for k in order}


def user_case(variant, size, state, s):
    c = scaled(s)
    c["key"] = {"suite": "kernel", "op": "user_copy", "variant": variant, "size_bytes": size,
                "cache_state": state}
    m = c["per_call"]["median"]
    c["median_derived"] = {"ns_per_call": ns(m), "gb_per_s": size / ns(m)}
    return c


# ABI v2 numbers (include/primbench/kmod_abi.h, enum pb_kmod_variant)
variants = [
    ("clear_page", "kernel", 0, True, ["kernel"]),
    ("clear_page", "rep_stosb", 4, True, []),
    ("clear_page", "movnti", 7, True, ["nt"]),
    ("clear_page", "avx2", 10, True, ["fpu"]),
    ("clear_page", "avx512", 12, False, ["fpu"]),
    ("copy_page", "kernel", 15, True, ["kernel"]),
    ("copy_page", "rep_movsb", 16, True, []),
    ("copy_page", "avx2", 22, True, ["fpu"]),
    ("fpu", "begin_end", 26, True, []),
    ("fpu", "save_restore", 27, True, []),
    ("fpu", "ioctl_null", 28, True, ["call"]),
    ("fpu", "ioctl_fpu", 29, True, ["call"]),
    ("user_copy", "copy_to_user", 30, True, []),
    ("user_copy", "copy_from_user", 31, True, []),
    ("user_copy", "clear_user", 32, True, []),
]
k = d["kernel"]
k["abi_version"] = 2
k["limits"]["max_user_bytes"] = 64 << 20
k["variants"] = []
for op, name, num, avail, flags in variants:
    v = {"name": name, "op": op, "number": num, "available": avail}
    if not avail:
        v["why"] = "CPU lacks AVX-512F"
    v["flags"] = flags
    k["variants"].append(v)
checks = []
for op, name, num, avail, flags in variants:
    if not avail:
        continue
    if op == "user_copy":
        for size in (64, 4096):
            checks.append({"op": op, "variant": name, "size_bytes": size, "result": "ok"})
    elif op in ("clear_page", "copy_page"):
        pages = (4096, 2097152) if name in ("kernel", "movnti") and op == "clear_page" else (4096,)
        for pg in pages:
            checks.append({"op": op, "variant": name, "page_bytes": pg, "result": "ok"})
    else:
        checks.append({"op": op, "variant": name, "page_bytes": 4096, "result": "ok"})
k["checks"] = checks

cases = d["cases"]
for st, f in (("hot", 1.0), ("flushed", 2.0)):
    cases.append(page_case("clear_page", "rep_stosb", st, 0.9 * f))
    cases.append(page_case("clear_page", "avx2", st, 0.75 * f))
    cases.append(page_case("copy_page", "kernel", st, 2.0 * f))
    cases.append(page_case("copy_page", "rep_movsb", st, 1.8 * f))
    cases.append(page_case("copy_page", "avx2", st, 1.9 * f))
fpu = {"begin_end": (0.5, 0.5), "save_restore": (2.0, 3.0), "ioctl_null": (4.0, 4.0),
       "ioctl_fpu": (6.0, 9.0)}
for v, (clean, dirty) in fpu.items():
    cases.append(fpu_case(v, "clean", clean))
    cases.append(fpu_case(v, "dirty", dirty))
for v, s in (("copy_to_user", 1.0), ("copy_from_user", 1.1), ("clear_user", 0.8)):
    cases.append(user_case(v, 64, "hot", s * 0.25))
    cases.append(user_case(v, 4096, "hot", s))
    cases.append(user_case(v, 4096, "flushed", s * 2))


def median(op, variant, **key):
    for c in cases:
        kk = c["key"]
        if kk["op"] == op and kk["variant"] == variant and all(kk.get(a) == b
                                                               for a, b in key.items()):
            return c["per_call"]["median"]
    raise KeyError((op, variant, key))


be = []
for op, simd, rep in (("clear_page", "avx2", "rep_stosb"), ("copy_page", "avx2", "rep_movsb")):
    for upper in ("clean", "dirty"):
        rt = median("fpu", "ioctl_fpu", upper_state=upper) - median("fpu", "ioctl_null",
                                                                      upper_state=upper)
        s = median(op, simd, page_bytes=4096, cache_state="hot")
        r = median(op, rep, page_bytes=4096, cache_state="hot")
        pages = None
        if r > s:
            pages = math.floor(rt / (r - s)) + 1  # the smallest n with rt + n s < n r
        be.append({"op": op, "upper_state": upper, "simd_variant": simd, "rep_variant": rep,
                   "roundtrip_ticks": rt, "simd_ticks_per_page": s, "rep_ticks_per_page": r,
                   "pages": pages, "bytes": pages * 4096 if pages else None})
k["breakeven"] = be
d["command_line"] = ["primbench", "kernel", "all"]
d["notes"][-1] = ("kernel: synthetic: made by tests/test_kernel_suite.c's fake device through "
                  "the real writer, its copy_page, fpu and user_copy cases and breakeven "
                  "added by tests/data/format/kernel_fixture.py (scaled copies of the first "
                  "case); no module ran, nothing was measured")
with open(out, "w") as fp:
    json.dump(d, fp, indent=1)
    fp.write("\n")

# mem-pages.json: clear_page (memset 0 of a page) and copy_page (memcpy,
# both page-aligned) cases of the user-space kernels, hot and dram
m = json.load(open(mem_src))
keep = []
for c in m["cases"]:
    kk = c["key"]
    if kk["kernel"] == "rep_stosb" and kk["cache_state"] in ("hot", "dram"):
        keep.append(c)
        for name, s in (("avx2", 0.85), ("movnti", 2.5)):
            x = copy.deepcopy(c)
            x["key"]["kernel"] = name
            x["samples"] = [[v * s, n] for v, n in c["samples"]]
            for f in ("min", "p10", "median", "p90", "max", "mean", "stddev", "ci_lo",
                      "ci_hi"):
                if x["per_call"].get(f) is not None:
                    x["per_call"][f] *= s
            for r in x.get("replicates") or []:
                r["median"] *= s
            for f in ("ns_per_call", "ticks_per_page"):
                x["median_derived"][f] *= s
            for f in ("bytes_per_tick", "gb_per_s"):
                x["median_derived"][f] /= s
            keep.append(x)
        x = copy.deepcopy(c)
        x["key"].update({"op": "memcpy", "kernel": "rep_movsb", "src_offset_bytes": 0,
                         "fill_value": None})
        s = 2.0
        x["samples"] = [[v * s, n] for v, n in c["samples"]]
        for f in ("min", "p10", "median", "p90", "max", "mean", "stddev", "ci_lo", "ci_hi"):
            if x["per_call"].get(f) is not None:
                x["per_call"][f] *= s
        for r in x.get("replicates") or []:
            r["median"] *= s
        for f in ("ns_per_call", "ticks_per_page"):
            x["median_derived"][f] *= s
        for f in ("bytes_per_tick", "gb_per_s"):
            x["median_derived"][f] /= s
        keep.append(x)
m["cases"] = keep
m.pop("page_op", None)
m.pop("auto_policy", None)
m["command_line"] = ["primbench", "mem", "clear_page"]
m["notes"] = m.get("notes", []) + [
    "synthetic: tests/data/plot/clear_page.json's rep_stosb cases (hot, dram) with scaled "
    "copies as avx2, movnti and memcpy rep_movsb (page-aligned source), by "
    "tests/data/format/kernel_fixture.py; for kernel --vs-user"]
with open(mem_out, "w") as fp:
    json.dump(m, fp, indent=1)
    fp.write("\n")
