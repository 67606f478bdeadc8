#!/usr/bin/env python3
"""The formats CI trackers read (docs/formats.md: bmf, gbench, action) on
every loadable fixture of tests/data/{plot,format,latency,compare}: each
output validates against its JSON Schema (tests/schemas/), names are unique
in a file (no member twice in a bmf object either), each value is the
case's per_call median converted to the stated unit (ns: x 1e9 /
machine.timer.hz (a kernel file: kernel.tsc_khz) for a counter unit, as is for "ns"; else the case's own
unit) and each bound its per_call ci_lo / ci_hi the same way, and a case's
name is the same when the file's cases come in the reverse order (names
depend on the key alone). A default run, syscall runs and a cmd A/B must
be among the loadable fixtures.

usage: ci_formats.py PRIMBENCH DATA_DIR SCHEMA_DIR
Exit 0: passed; 1: failed; 77: python3-jsonschema is missing (skipped).
"""
import glob
import json
import math
import os
import subprocess
import sys
import tempfile

try:
    import jsonschema
except ImportError:
    print("skipped: python3-jsonschema is not installed (scripts/deps.sh installs it)")
    sys.exit(77)

FORMATS = ("bmf", "gbench", "action")
COUNTER_UNITS = ("tsc_ticks", "cntvct_ticks")
REQUIRED = ("plot/run_default.json", "format/syscall.json", "compare/sys_a.json",
            "plot/cmd_ab.json", "format/kernel.json")
# a kernel case's name (docs/formats.md "Names"): "kernel", then these
# fields' values where the key has them, then the rest as field=value
KERNEL_LEAD = ("op", "variant", "page_bytes", "size_bytes", "upper_state", "cache_state")

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def no_dup_object(pairs):
    seen = set()
    for k, _ in pairs:
        if k in seen:
            raise ValueError("member %r twice" % k)
        seen.add(k)
    return dict(pairs)


def report(primbench, path, fmt):
    """(exit status, parsed output or None, stderr)."""
    p = subprocess.run([primbench, "report", path, "-f", fmt], capture_output=True, text=True)
    if p.returncode != 0:
        return p.returncode, None, p.stderr
    try:
        return 0, json.loads(p.stdout, object_pairs_hook=no_dup_object), p.stderr
    except ValueError as e:
        fail("%s -f %s: not JSON (or a member twice): %s" % (path, fmt, e))
        return 0, None, p.stderr


def number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def close(a, b):
    return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-300)


def expected(doc):
    """Per case with samples, in file order: (unit, value, lo, hi, mem),
    lo and hi None where there is no interval."""
    hz = ((doc.get("machine") or {}).get("timer") or {}).get("hz")
    # a kernel file's TSC ticks are the module's: its tsc_khz (reader.h)
    khz = (doc.get("kernel") or {}).get("tsc_khz")
    if number(khz) and khz > 0:
        hz = khz * 1e3
    out = []
    for c in doc["cases"]:
        if not c.get("samples"):
            continue
        pc = c.get("per_call") or {}
        unit = c["unit"]
        scale = None
        if unit == "ns":
            scale = 1.0
        elif unit in COUNTER_UNITS and number(hz) and hz > 0:
            scale = 1e9 / hz
        med, lo, hi = pc.get("median"), pc.get("ci_lo"), pc.get("ci_hi")
        if not (number(lo) and number(hi) and number(med) and lo <= med <= hi):
            lo = hi = None
        s = scale if scale else 1.0
        out.append({
            "unit": "ns" if scale else unit,
            "value": med * s if number(med) else None,
            "lo": lo * s if lo is not None else None,
            "hi": hi * s if hi is not None else None,
            "mem": c["key"].get("suite") == "mem",
            "key": json.dumps(c["key"], sort_keys=True),
            "kernel_name": kernel_name(c["key"]) if c["key"].get("suite") == "kernel" else None,
        })
    return out


def kernel_name(key):
    """The CI name docs/formats.md gives a kernel key (values without '/'
    or '%', as the fixtures' are)."""
    parts = ["kernel"] + [str(key[f]) for f in KERNEL_LEAD if key.get(f) is not None]
    for f in sorted(k for k in key if k not in KERNEL_LEAD and k != "suite"):
        v = key[f]
        if v is None or (f == "irqs_off" and v is False):
            continue
        parts.append("%s=%s" % (f, "true" if v is True else "false" if v is False else v))
    return "/".join(parts)


def check_value(where, got, want):
    if want is None:  # a file without per_call: computed by primbench
        if not number(got):
            fail("%s: %r is not a number" % (where, got))
    elif not (number(got) and close(got, want)):
        fail("%s: %r, expected %r" % (where, got, want))


def entries(fmt, out):
    """[(name, value, lo, hi, unit)] of an output, in its order."""
    res = []
    if fmt == "bmf":
        for name, measures in out.items():
            m = measures.get("latency")
            unit = "ns"
            if m is None:
                unit, m = next((k, v) for k, v in measures.items() if k != "throughput")
            res.append((name, m["value"], m.get("lower_value"), m.get("upper_value"), unit,
                        measures.get("throughput")))
    elif fmt == "gbench":
        for b in out["benchmarks"]:
            res.append((b["name"], b["real_time"], b.get("ci_lo"), b.get("ci_hi"), "ns", None))
            if b["cpu_time"] != b["real_time"] or b["run_name"] != b["name"]:
                fail("gbench %s: cpu_time or run_name differ" % b["name"])
    else:
        for a in out:
            lo = hi = None
            res.append((a["name"], a["value"], lo, hi, a["unit"], a))
    return res


def check_file(primbench, schemas, rel, path, doc):
    want = expected(doc)
    names = {}
    for fmt in FORMATS:
        rc, out, err = report(primbench, path, fmt)
        if rc != 0 or out is None:
            fail("%s -f %s: exit %d: %s" % (rel, fmt, rc, err.strip()))
            continue
        try:
            jsonschema.validate(out, schemas[fmt])
        except jsonschema.ValidationError as e:
            fail("%s -f %s: %s at %s" % (rel, fmt, e.message, list(e.absolute_path)))
            continue
        got = entries(fmt, out)
        w = [x for x in want if fmt != "gbench" or x["unit"] == "ns"]
        if len(got) != len(w):
            fail("%s -f %s: %d entries for %d cases" % (rel, fmt, len(got), len(w)))
            continue
        seen = set()
        for (name, value, lo, hi, unit, more), x in zip(got, w):
            where = "%s -f %s: %s" % (rel, fmt, name)
            if name in seen:
                fail(where + ": name twice")
            seen.add(name)
            if names.setdefault(x["key"], name) != name:
                fail(where + ": named %r in another format" % names[x["key"]])
            if x["kernel_name"] and name != x["kernel_name"]:
                fail(where + ": expected the name %r" % x["kernel_name"])
            if unit != x["unit"] and not (fmt == "bmf" and unit ==
                                           x["unit"].replace("_", "-").lower()):
                fail(where + ": unit %r, expected %r" % (unit, x["unit"]))
            check_value(where + " value", value, x["value"])
            if fmt == "action":
                rng = more.get("range")
                if (rng is None) != (x["lo"] is None):
                    fail(where + ": range %r for interval %r..%r" % (rng, x["lo"], x["hi"]))
                elif rng is not None:
                    r = float(rng.split()[1])
                    side = max(x["value"] - x["lo"], x["hi"] - x["value"])
                    if not math.isclose(r, side, rel_tol=1e-5, abs_tol=1e-9):
                        fail(where + ": range %r, the interval's larger side %r" % (rng, side))
                continue
            if x["lo"] is None or x["value"] is None:
                if lo is not None or hi is not None:
                    fail(where + ": bounds %r..%r without an interval" % (lo, hi))
            else:
                check_value(where + " lower bound", lo, x["lo"])
                check_value(where + " upper bound", hi, x["hi"])
            if fmt == "bmf":
                if x["mem"] and x["unit"] == "ns" and x["value"]:
                    if more is None or not close(more["value"], 1e9 / x["value"]):
                        fail(where + ": throughput %r, expected 1e9 / %r" % (more, x["value"]))
                elif more is not None:
                    fail(where + ": a throughput for a case that is not mem in ns")
    return names


def check_order(primbench, rel, doc, names):
    """The names of the file with its cases reversed: the same per key."""
    rev = dict(doc)
    rev["cases"] = list(reversed(doc["cases"]))
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as t:
        json.dump(rev, t)
    try:
        rc, out, err = report(primbench, t.name, "action")
        if rc != 0 or out is None:
            fail("%s reversed: exit %d: %s" % (rel, rc, err.strip()))
            return
        want = [x["key"] for x in expected(rev)]
        for key, a in zip(want, out):
            if names.get(key) != a["name"]:
                fail("%s reversed: %r, in file order %r" % (rel, a["name"], names.get(key)))
    finally:
        os.unlink(t.name)


def main():
    if len(sys.argv) != 4:
        print(__doc__)
        return 2
    primbench, data, schema_dir = sys.argv[1:]
    schemas = {}
    for fmt in FORMATS:
        with open(os.path.join(schema_dir, fmt + ".schema.json")) as f:
            schemas[fmt] = json.load(f)
        jsonschema.validators.validator_for(schemas[fmt]).check_schema(schemas[fmt])
    checked = []
    for path in sorted(glob.glob(os.path.join(data, "*", "*.json"))):
        rel = os.path.relpath(path, data)
        if rel.split(os.sep)[0] not in ("plot", "format", "latency", "compare"):
            continue
        # loadable: primbench reads it (as json); the others are the
        # reader's bad inputs and must fail every format alike
        rc = subprocess.run([primbench, "report", path, "-f", "json"],
                            capture_output=True).returncode
        if rc != 0:
            for fmt in FORMATS:
                if report(primbench, path, fmt)[0] != rc:
                    fail("%s: -f json exits %d, -f %s does not" % (rel, rc, fmt))
            continue
        with open(path) as f:
            doc = json.load(f)
        names = check_file(primbench, schemas, rel, path, doc)
        check_order(primbench, rel, doc, names)
        checked.append(rel)
    for r in REQUIRED:
        if r not in checked:
            fail("%s: not loadable" % r)
    # with no case: an empty object / list, still valid
    print("%d fixtures in %s, %s: %s" % (len(checked), ", ".join(FORMATS),
                                          "schemas, names, values",
                                          "FAILED" if failures else "ok"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
