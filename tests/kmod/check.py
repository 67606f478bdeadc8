#!/usr/bin/env python3
"""check.py - the host's half of make test-kmod (tests/kmod/run.sh): reads
the serial log of the VM that tests/kmod/init.sh ran in.

  check.py --log SERIAL_LOG --out DIR --primbench PRIMBENCH

Checks, one line each ("PASS name" or "FAIL name: why"):
  - init started, finished ("PB-KMOD: DONE") and dumped the kernel log;
  - every check init.sh runs is there and passed (corrupt may be skipped
    only while kmod/primbench_kmod.c has no corrupt_variant parameter);
  - the kernel log since init started (init clears the boot's messages
    first: a CPU model's boot may warn about its mitigations) has no
    WARNING:, BUG:, Oops, Call Trace (nor a panic or a general protection
    fault), nor has the console after init's first line; the out-of-tree
    module's taint lines are expected and only shown;
  - every variant of every op abi_test listed (INFO) is available exactly
    as the guest CPU's flags say (copy_page's SIMD ones as clear_page's;
    fpu's and user_copy's always, save_restore and copy_page's kernel
    unless the kernel does not export switch_fpu_return, copy_page);
  - the result files init.sh sent (base64 between FILE-BEGIN and FILE-END)
    decode to JSON of schema primbench-result; run.json has a kernel case
    for every page size (4K, 2M) and cache state (hot, flushed) asked for,
    each with samples; ops.json (every op in one run) has every copy_page,
    fpu and user_copy case with samples, every check passed, and break-even
    entries that agree with their own figures; sig.json is marked
    interrupted and kept samples;
  - PRIMBENCH report reads each file (exit 0), compare run.json and
    ops.json against themselves, plot draws them (gnuplot, SVGs in DIR),
    report --html and kernel --vs-user read ops.json.
Writes the decoded files and the kernel log into DIR. Exit status 0 when
every check passed, 1 otherwise.
"""
import argparse
import base64
import json
import math
import os
import re
import subprocess
import sys

# The checks init.sh runs, in its order.
INIT_CHECKS = [
    "noload", "insmod", "abi_test", "list", "run", "irqs_off", "ops", "bad_variant", "bad_pages",
    "bad_cache", "bad_budget", "bad_unavailable", "bad_op", "bad_sizes", "bad_upper", "signal", "rmmod",
    "insmod_short", "abi_test_etime", "rmmod_again", "corrupt", "corrupt_copy_page", "corrupt_user_copy"
]
# Init checks that may be skipped (SKIP, or not run): each with the string
# whose presence in the host's module source makes the skip a failure
# (corrupt needs the module's test-only corrupt_variant parameter).
SKIPPABLE = {"corrupt": "corrupt_variant", "corrupt_copy_page": "corrupt_variant",
             "corrupt_user_copy": "corrupt_variant"}
MODULE_SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "kmod", "primbench_kmod.c")
# Kernel log lines that fail the test (any module, any time).
BAD_KERNEL = re.compile(r"WARNING:|BUG:|Oops|Call Trace|Kernel panic|general protection fault|"
                        r"UBSAN:|KASAN:|refcount_t:|list_add corruption|list_del corruption")
# The ones expected from an unsigned out-of-tree module (shown, not failed).
EXPECTED_TAINT = re.compile(r"loading out-of-tree module taints kernel|module verification failed")

ESCAPES = re.compile(r"\x1b(\[[0-9;?]*[A-Za-z]|c)")
PAGES = {"4K": 4096, "2M": 2097152}
CACHES = ["hot", "flushed"]

results = []


def report(ok, name, why=""):
    results.append(ok)
    print(("PASS " if ok else "FAIL ") + name + ("" if ok or not why else ": " + why))


def section(lines, begin, end):
    """The lines strictly between the first `begin` line and the next
    `end` line, or None without both."""
    try:
        i = lines.index(begin)
        j = lines.index(end, i + 1)
    except ValueError:
        return None
    return lines[i + 1:j]


def kernel_cases(doc):
    """The cases whose key's suite is "kernel" (docs/results-schema.md, "A
    `kernel` case": key {suite, op, variant, page_bytes, cache_state})."""
    return [c for c in doc.get("cases", []) if c.get("key", {}).get("suite") == "kernel"]


def case_is(c, variant, page_bytes, cache, op="clear_page"):
    k = c.get("key", {})
    return (k.get("op") == op and k.get("variant") == variant and k.get("page_bytes") == page_bytes and
            k.get("cache_state") == cache and not k.get("irqs_off"))


def of_op(variants, op):
    """The module's variants (the kernel object's) of one op; a variant
    without "op" (a module of ABI 1) is clear_page's."""
    return [v for v in variants if variant_op(v) == op]


def check_ops(doc):
    """ops.json (`primbench kernel all ...` in init.sh step 5c): every
    available variant of copy_page (4K, 2M x hot, flushed), fpu (every
    upper state the run measured) and user_copy (64, 4096, 1048576 bytes x
    hot, flushed) has one case with samples; every check passed; the
    break-even entries are there for the SIMD clear_page variants measured
    and agree with their own figures."""
    cases = kernel_cases(doc)
    kobj = doc.get("kernel", {})
    variants = kobj.get("variants", [])
    missing = []
    n_want = 0

    def want(pred, label):
        these = [c for c in cases if pred(c.get("key", {}))]
        if len(these) != 1 or n_samples(these[0]) == 0:
            missing.append(label)

    for v in of_op(variants, "copy_page"):
        if not v.get("available"):
            continue
        for page in PAGES:
            for cache in CACHES:
                n_want += 1
                want(lambda k, v=v, page=page, cache=cache: k.get("op") == "copy_page" and
                     k.get("variant") == v["name"] and k.get("page_bytes") == PAGES[page] and
                     k.get("cache_state") == cache and not k.get("irqs_off"),
                     "copy_page/%s/%s/%s" % (v["name"], page, cache))
    uppers = sorted({c["key"].get("upper_state") for c in cases if c["key"].get("op") == "fpu"} - {None})
    report("clean" in uppers, "ops.json: fpu upper states measured: %s" % " ".join(uppers),
           "no fpu case at upper state clean (have: %s)" % (" ".join(uppers) or "none"))
    for v in of_op(variants, "fpu"):
        if not v.get("available"):
            continue
        for up in uppers:
            n_want += 1
            want(lambda k, v=v, up=up: k.get("op") == "fpu" and k.get("variant") == v["name"] and
                 k.get("upper_state") == up and not k.get("irqs_off"), "fpu/%s/%s" % (v["name"], up))
    for v in of_op(variants, "user_copy"):
        if not v.get("available"):
            continue
        for size in (64, 4096, 1048576):
            for cache in CACHES:
                n_want += 1
                want(lambda k, v=v, size=size, cache=cache: k.get("op") == "user_copy" and
                     k.get("variant") == v["name"] and k.get("size_bytes") == size and
                     k.get("cache_state") == cache and not k.get("irqs_off"),
                     "user_copy/%s/%d/%s" % (v["name"], size, cache))
    report(n_want > 0 and not missing, "ops.json: every copy_page, fpu and user_copy case has samples (%d)" % n_want,
           "%d of %d missing or empty: %s" % (len(missing), n_want, " ".join(missing)))
    # The timed-from field says who read the TSC.
    wrong = [c["key"]["variant"] for c in cases if c["key"].get("op") == "fpu" and
             c.get("timed_from") != ("user" if c["key"]["variant"].startswith("ioctl_") else "kernel")]
    report(not wrong, "ops.json: fpu cases say where they were timed", "wrong timed_from: %s" % " ".join(wrong))
    checks = kobj.get("checks", [])
    bad = [c for c in checks if c.get("result") != "ok"]
    ops_checked = sorted({c.get("op", "clear_page") for c in checks})
    report(checks and not bad and {"copy_page", "user_copy"} <= set(ops_checked),
           "ops.json: %d correctness checks ok (%s)" % (len(checks), " ".join(ops_checked)),
           "%d not ok: %s; ops checked: %s" % (len(bad), bad[:3], ops_checked))
    # The break-even: one entry per SIMD clear_page variant measured at 4K
    # hot (an FPU variant) and upper state; each agrees with its own
    # figures (pages = floor(roundtrip / (rep - simd)) + 1 when rep > simd).
    fpu_names = {v["name"] for v in of_op(variants, "clear_page") if "fpu" in v.get("flags", [])}
    simd = sorted({c["key"]["variant"] for c in cases if c["key"].get("op") == "clear_page" and
                   c["key"]["variant"] in fpu_names and c["key"].get("page_bytes") == 4096 and
                   c["key"].get("cache_state") == "hot" and n_samples(c) > 0})
    be = [b for b in kobj.get("breakeven", []) or [] if b.get("op") == "clear_page"]
    have = sorted({(b.get("simd_variant"), b.get("upper_state")) for b in be})
    wanted = sorted({(v, up) for v in simd for up in uppers})
    report(bool(simd) and set(wanted) <= set(have),
           "ops.json: clear_page break-even entries for %s x %s" % (" ".join(simd), " ".join(uppers)),
           "have %s, want %s" % (have, wanted))
    incoherent = []
    for b in kobj.get("breakeven", []) or []:
        try:
            rt, sp, rp = b["roundtrip_ticks"], b["simd_ticks_per_page"], b["rep_ticks_per_page"]
            if rp > sp:
                # the smallest whole n with rt + n sp < n rp (docs/kernel.md)
                n = math.floor(rt / (rp - sp)) + 1 if rt > 0 else 1
                ok = b.get("pages") is not None and abs(b["pages"] - n) <= 1 and b.get("bytes") == b["pages"] * 4096
            elif rp <= sp:
                ok = b.get("pages") is None and b.get("bytes") is None
            else:
                ok = True
        except (KeyError, TypeError) as e:
            ok = False
            b = dict(b, error=str(e))
        if not ok:
            incoherent.append(b)
    report(not incoherent, "ops.json: %d break-even entries agree with their figures" % len(kobj.get("breakeven", []) or []),
           "%d do not: %s" % (len(incoherent), incoherent[:2]))
    report(doc.get("interrupted") is not True, "ops.json: not interrupted", "marked interrupted")


def n_samples(c):
    s = c.get("samples")
    return len(s) if isinstance(s, list) else 0


# The guest CPU's feature (its /proc/cpuinfo flag) each module variant
# needs: with it the variant must be available, without it not. The same
# names in clear_page and copy_page need the same (kmod/primbench_kmod.c,
# PB_VARIANTS).
NEEDS = {
    "sse2": "sse2", "sse2_nt": "sse2", "movnti": "sse2", "avx2": "avx2", "avx2_nt": "avx2",
    "avx512": "avx512f", "avx512_nt": "avx512f", "clzero": "clzero"
}
# Variants that are always available on x86-64, by op (the rest: by NEEDS,
# or the kernel's own routines, available or unavailable with the reason
# naming the symbol the kernel does not export).
ALWAYS = {
    "clear_page": {"rep_stosb", "rep_stosq", "gpr_unrolled"},
    "copy_page": {"rep_movsb", "rep_movsq", "gpr_unrolled"},
    "fpu": {"begin_end", "ioctl_null", "ioctl_fpu"},
    "user_copy": {"copy_to_user", "copy_from_user", "clear_user"},
}
# An unavailable kernel routine's reason names what is missing.
EXPORT_WHY = {("copy_page", "kernel"): "copy_page", ("fpu", "save_restore"): "switch_fpu_return"}
# kmod_abi.h's numbering, for files whose variants carry no "op".
OP_RANGES = [(0, 15, "clear_page"), (15, 26, "copy_page"), (26, 30, "fpu"), (30, 33, "user_copy")]


def variant_op(v):
    """A result file's variant's op: its "op", else by its number."""
    if v.get("op"):
        return v["op"]
    n = v.get("number", -1)
    return next((op for lo, hi, op in OP_RANGES if lo <= n < hi), "?")


def check_variants(variants, flags, where):
    """Each variant is available exactly when the guest CPU has what it
    needs (NEEDS; ALWAYS: always; the kernel's routines: or a reason)."""
    if not flags:
        report(False, "guest CPU flags", "init printed no /proc/cpuinfo flags line")
        return
    wrong = []
    for v in variants:
        op, name, avail = v["op"], v["name"], bool(v.get("available"))
        need = NEEDS.get(name) if op in ("clear_page", "copy_page") else None
        if need is not None and avail != (need in flags):
            wrong.append("%s/%s (%s %s, available %s)" % (op, name, need, "present" if need in flags else "absent",
                                                          avail))
        elif name in ALWAYS.get(op, ()) and not avail:
            wrong.append("%s/%s (unavailable: %s; always available on x86-64)" % (op, name, v.get("why")))
        elif (op, name) in EXPORT_WHY and not avail and EXPORT_WHY[(op, name)] not in (v.get("why") or ""):
            wrong.append("%s/%s (unavailable: %s; want a reason naming %s)" %
                         (op, name, v.get("why"), EXPORT_WHY[(op, name)]))
        elif not avail and not v.get("why"):
            wrong.append("%s/%s (unavailable, no reason)" % (op, name))
    ops = sorted({v["op"] for v in variants})
    report(not wrong, "%s: %d variants of %s available exactly as the guest CPU's flags say" %
           (where, len(variants), ", ".join(ops)), "; ".join(wrong))


def abi_list(lines):
    """The variants abi_test listed (its "variant NN OP NAME available|
    unavailable [flags][: why]" lines, indented under init's check), the
    first listing only."""
    out = {}
    for l in lines:
        m = re.match(r"\s*\| variant\s+(\d+) (\S+)\s+(\S+)\s+(available|unavailable)(.*)", l)
        if m and int(m.group(1)) not in out:
            why = m.group(5).split(": ", 1)[1].strip() if ": " in m.group(5) else ""
            out[int(m.group(1))] = {"number": int(m.group(1)), "op": m.group(2), "name": m.group(3),
                                    "available": m.group(4) == "available", "why": why}
    return [out[n] for n in sorted(out)]


def load(out_dir, files, name):
    if name not in files:
        report(False, name, "not sent by the VM")
        return None
    path = os.path.join(out_dir, name)
    try:
        with open(path, "wb") as f:
            f.write(base64.b64decode("".join(files[name]), validate=True))
        with open(path) as f:
            doc = json.load(f)
    except (ValueError, OSError) as e:
        report(False, name, "not valid base64 JSON: %s" % e)
        return None
    if doc.get("schema") != "primbench-result":
        report(False, name, "schema %r, not primbench-result" % doc.get("schema"))
        return None
    report(True, name + " is a primbench-result JSON (%d bytes)" % os.path.getsize(path))
    return path, doc


def read_by_report(primbench, path, name):
    p = subprocess.run([primbench, "report", path], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True, timeout=120)
    if p.returncode == 0 and p.stdout.strip():
        report(True, "primbench report %s" % name)
    else:
        report(False, "primbench report %s" % name, "exit %d: %s" % (p.returncode, p.stdout.strip()[-500:]))
    with open(path + ".report.txt", "w") as f:
        f.write(p.stdout)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--log", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--primbench", required=True)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    with open(a.log, errors="replace") as f:
        # The kernel's console resets the terminal (ESC c, ESC [?7l ...)
        # at the start of a line: those go.
        lines = [ESCAPES.sub("", l).rstrip("\r\n").rstrip("\r") for l in f]

    # --- init's progress
    init = [l for l in lines if l.startswith("PB-KMOD: init")]
    report(bool(init), "init started", "no 'PB-KMOD: init' line: the kernel did not reach /init")
    if init:
        print("     " + init[0])
    done = [l for l in lines if l.startswith("PB-KMOD: DONE")]
    report(bool(done), "init finished", "no 'PB-KMOD: DONE' line (init died, or qemu was killed)")

    # --- init's checks
    seen = {}
    for l in lines:
        m = re.match(r"PB-KMOD: CHECK (\S+) (PASS|FAIL|SKIP)(.*)", l)
        if m:
            seen[m.group(1)] = (m.group(2) if m.group(2) == "SKIP" else m.group(2) == "PASS", m.group(3).strip())
    try:
        with open(MODULE_SOURCE, errors="replace") as f:
            module_source = f.read()
    except OSError:
        module_source = ""
    for name in INIT_CHECKS + [n for n in seen if n not in INIT_CHECKS]:
        if (name not in seen or seen[name][0] == "SKIP") and name in SKIPPABLE:
            why = seen[name][1] if name in seen else "not run"
            needed = SKIPPABLE[name] in module_source
            report(not needed, "vm: %s skipped (%s; kmod/primbench_kmod.c has no %s)" % (name, why, SKIPPABLE[name]),
                   "skipped (%s), but kmod/primbench_kmod.c has %s" % (why, SKIPPABLE[name]))
        elif name not in seen:
            report(False, "vm: " + name, "not run")
        elif seen[name][0] == "SKIP":
            report(False, "vm: " + name, "skipped: " + seen[name][1])
        else:
            ok, detail = seen[name]
            report(ok, "vm: " + name + (" (" + detail + ")" if ok and detail else ""), detail)

    # --- the kernel log
    dmesg = section(lines, "PB-KMOD: DMESG-BEGIN", "PB-KMOD: DMESG-END")
    if dmesg is None:
        report(False, "kernel log", "not dumped")
        dmesg = []
    with open(os.path.join(a.out, "dmesg.txt"), "w") as f:
        f.write("\n".join(dmesg) + "\n")
    boot = section(lines, "PB-KMOD: BOOT-DMESG-BEGIN", "PB-KMOD: BOOT-DMESG-END") or []
    with open(os.path.join(a.out, "boot-dmesg.txt"), "w") as f:
        f.write("\n".join(boot) + "\n")
    # The log since init cleared it (the boot's is not the module's: shown
    # only), and the console after init's first line too: a panic or oops
    # printed straight to it (not the commands' own output, which init.sh
    # indents with "    | ", nor the boot log's dump).
    start = next((i for i, l in enumerate(lines) if l.startswith("PB-KMOD: init")), len(lines))
    console = [l for l in lines[start:] if l not in boot]
    bad = [l for l in console if BAD_KERNEL.search(l) and not l.startswith("    | ")]
    for l in boot:
        if BAD_KERNEL.search(l):
            print("     (boot, not checked) | " + l)
    report(not bad and bool(dmesg), "kernel log: no WARNING/BUG/Oops/Call Trace",
           "%d lines, first: %s" % (len(bad), bad[0] if bad else "(no log)"))
    for l in bad[:40]:
        print("     | " + l)
    for l in dmesg:
        if (EXPECTED_TAINT.search(l) or "primbench" in l) and l not in bad:
            print("     | " + l)

    # --- the guest's CPU flags (init prints its /proc/cpuinfo flags line)
    flags = set()
    for l in lines:
        m = re.match(r"\s*\| flags\s*: (.*)", l)
        if m:
            flags = set(m.group(1).split())
            break

    # --- every op's variants as abi_test listed them (INFO)
    listed = abi_list(lines)
    if len(listed) == 33:
        check_variants(listed, flags, "abi_test --list")
    else:
        report(False, "abi_test's variant list", "%d variants listed, want 33" % len(listed))

    # --- the result files
    files = {}
    cur = None
    for l in lines:
        m = re.match(r"PB-KMOD: FILE-(BEGIN|END) (\S+)", l)
        if m:
            cur = m.group(2) if m.group(1) == "BEGIN" else None
            if cur:
                files[cur] = []
        elif cur is not None and re.fullmatch(r"[A-Za-z0-9+/=]+", l):
            files[cur].append(l)

    got = load(a.out, files, "run.json")
    if got:
        path, doc = got
        cases = kernel_cases(doc)
        report(bool(cases), "run.json: %d kernel cases" % len(cases), "none")
        # `primbench kernel clear_page` measured clear_page's variants only
        variants = [dict(v, op=variant_op(v)) for v in doc.get("kernel", {}).get("variants", [])]
        available = [v["name"] for v in variants if v.get("available") and v["op"] == "clear_page"]
        report(bool(available), "run.json: %d clear_page variants available: %s" % (len(available), " ".join(available)),
               "none available")
        check_variants(variants, flags, "run.json")
        # Each available variant passed its correctness check at both sizes.
        checks = doc.get("kernel", {}).get("checks", [])
        for name in available:
            for page in PAGES:
                r = [c.get("result") for c in checks if c.get("variant") == name and
                     c.get("op", "clear_page") == "clear_page" and c.get("page_bytes") == PAGES[page]]
                if r != ["ok"]:
                    report(False, "run.json: %s %s correctness check" % (name, page), "result %s" % r)
        n_ok = sum(1 for c in checks if c.get("result") == "ok" and c.get("op", "clear_page") == "clear_page")
        report(n_ok == 2 * len(available), "run.json: %d correctness checks ok" % n_ok,
               "%d ok, want %d" % (n_ok, 2 * len(available)))
        # Every case asked for (every available variant x 4K, 2M x hot,
        # flushed) is there with samples.
        missing = []
        for name in available:
            for page in PAGES:
                for cache in CACHES:
                    these = [c for c in cases if case_is(c, name, PAGES[page], cache)]
                    if len(these) != 1 or n_samples(these[0]) == 0:
                        missing.append("%s/%s/%s" % (name, page, cache))
        report(not missing, "run.json: every variant x 4K, 2M x hot, flushed has samples (%d cases)" %
               (4 * len(available)), "%d missing or empty: %s" % (len(missing), " ".join(missing)))
        report(doc.get("interrupted") is not True, "run.json: not interrupted", "marked interrupted")
        read_by_report(a.primbench, path, "run.json")
        # compare reads the kernel suite too (a file against itself: no
        # verdict is judged, only that it is read).
        p = subprocess.run([a.primbench, "compare", path, path], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, universal_newlines=True, timeout=120)
        report(p.returncode == 0 and bool(p.stdout.strip()),
               "primbench compare run.json run.json", "exit %d: %s" % (p.returncode, p.stdout.strip()[-500:]))
        # and plot (gnuplot: scripts/deps.sh's default set)
        svg = os.path.join(a.out, "run.svg")
        p = subprocess.run([a.primbench, "plot", path, "-o", svg], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, universal_newlines=True, timeout=120)
        ok = p.returncode == 0 and os.path.exists(svg) and "<svg" in open(svg, errors="replace").read(4096)
        report(ok, "primbench plot run.json -o %s" % svg, "exit %d: %s" % (p.returncode, p.stdout.strip()[-500:]))
    got = load(a.out, files, "ops.json")
    if got:
        path, doc = got
        check_ops(doc)
        read_by_report(a.primbench, path, "ops.json")
        for what, args in (("compare", ["compare", path, path]),
                           ("kernel --vs-user", ["kernel", "--vs-user", path])):
            p = subprocess.run([a.primbench] + args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               universal_newlines=True, timeout=120)
            report(p.returncode == 0 and bool(p.stdout.strip()), "primbench %s ops.json" % what,
                   "exit %d: %s" % (p.returncode, p.stdout.strip()[-500:]))
            with open(path + "." + what.split()[-1].lstrip("-") + ".txt", "w") as f:
                f.write(p.stdout)
        svg = os.path.join(a.out, "ops.svg")
        p = subprocess.run([a.primbench, "plot", path, "-o", svg], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, universal_newlines=True, timeout=120)
        ok = p.returncode == 0 and os.path.exists(svg) and "<svg" in open(svg, errors="replace").read(4096)
        report(ok, "primbench plot ops.json -o %s" % svg, "exit %d: %s" % (p.returncode, p.stdout.strip()[-500:]))
        html = os.path.join(a.out, "ops.html")
        p = subprocess.run([a.primbench, "report", "--html", html, path], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, universal_newlines=True, timeout=120)
        ok = p.returncode == 0 and os.path.exists(html) and "copy_page" in open(html, errors="replace").read()
        report(ok, "primbench report --html %s ops.json" % html, "exit %d: %s" % (p.returncode, p.stdout.strip()[-500:]))
    got = load(a.out, files, "sig.json")
    if got:
        path, doc = got
        report(doc.get("interrupted") is True, "sig.json: marked interrupted", "not marked")
        kept = sum(n_samples(c) for c in kernel_cases(doc))
        report(kept > 0, "sig.json: kept %d samples" % kept, "no samples kept")
        read_by_report(a.primbench, path, "sig.json")

    n_ok = sum(results)
    n_bad = len(results) - n_ok
    print("test-kmod: %d passed, %d failed" % (n_ok, n_bad))
    return 0 if n_bad == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
