#!/usr/bin/env python3
"""make_acct_seeds.py - writes the seeds of fuzz_accounting
(tests/fuzz/corpus/accounting): two option bytes (fuzz_accounting.c), then
one struct pb_acct_file (include/primbench/account.h, version 2), native
little-endian x86-64/arm64 layout: 13664 bytes.

    python3 tests/fuzz/make_acct_seeds.py tests/fuzz/corpus/accounting
"""
import os
import struct
import sys

BUCKETS = 65
NPRIM = 6
TEXT = 256
MAGIC = b"PBACCT\0\1"
VERSION = 2
HEAD = struct.Struct("<8sIIiiIIQddII")  # magic .. policy_ok: 64 bytes
SIZE = HEAD.size + TEXT + 3 * TEXT + NPRIM * (16 + BUCKETS * 32)
assert SIZE == 13664


def acct(ticks=0, sample_every=0, overhead=0.0, forked=0, policy_ok=1, exe=b"/usr/bin/cc",
         policies=(b"", b"", b""), prims=None, version=VERSION, size_bytes=SIZE,
         magic=MAGIC):
    """prims: {prim: {bucket: (calls, bytes, sampled_calls, sampled_ticks)}}."""
    out = HEAD.pack(magic, version, size_bytes, 1234, 1, ticks, sample_every,
                    1700000000000000000, overhead, 0.0, forked, policy_ok)
    out += exe.ljust(TEXT, b"\0")
    for p in policies:
        out += p.ljust(TEXT, b"\0")
    for p in range(NPRIM):
        b = (prims or {}).get(p, {})
        calls = min(sum(v[0] for v in b.values()), 2**64 - 1)
        nbytes = min(sum(v[1] for v in b.values()), 2**64 - 1)
        out += struct.pack("<QQ", calls, nbytes)
        for k in range(BUCKETS):
            out += struct.pack("<QQQQ", *b.get(k, (0, 0, 0, 0)))
    assert len(out) == SIZE
    return out


def main():
    d = sys.argv[1]
    os.makedirs(d, exist_ok=True)
    seeds = {
        # counts only, memset and memcpy; plain report
        "counts": (0x00, 0, acct(prims={0: {0: (3, 0, 0, 0), 5: (100, 2000, 0, 0)},
                                        3: {13: (7, 40000, 0, 0)}})),
        # ticks mode, every primitive, buckets, TSC and CPU time known, added 20 times
        "ticks-all": (0x2d, 19, acct(ticks=1, sample_every=64, overhead=38.5,
                                     policies=(b"avx2", b"rep_movsb<=2K,avx2", b""),
                                     prims={p: {1 + p: (1000, 1500, 16, 900),
                                                20 + p: (5, 5 << 20, 0, 0),
                                                64: (1, 1 << 63, 1, 1 << 63)}
                                            for p in range(NPRIM)})),
        # a forked child whose policies failed; calls unlike the buckets' sum
        "forked-failed": (0x03, 1, acct(forked=1, policy_ok=0, prims={5: {9: (10, 3000, 0, 0)}})
                          [:HEAD.size + 4 * TEXT] + struct.pack("<QQ", 11, 3001)
                          + acct(forked=1, policy_ok=0, prims={5: {9: (10, 3000, 0, 0)}})
                          [HEAD.size + 4 * TEXT + 16:]),
        # saturating counts
        "huge": (0x3e, 63, acct(ticks=1, sample_every=1, prims={3: {
            k: (2**64 - 1, 2**64 - 1, 2**64 - 1, 2**63 - 1) for k in range(BUCKETS)}})),
        # no call at all
        "empty": (0x01, 0, acct()),
        # headers a reader must refuse
        "version-3": (0x00, 0, acct(version=3)),
        "size-bytes": (0x00, 0, acct(size_bytes=12)),
        "no-version": (0x00, 0, acct(version=0)),
    }
    for name, (opt, times, body) in seeds.items():
        with open(os.path.join(d, name), "wb") as f:
            f.write(bytes([opt, times]) + body)
    # short ones: magic only, a truncated header
    with open(os.path.join(d, "truncated"), "wb") as f:
        f.write(bytes([0, 0]) + acct()[:100])
    with open(os.path.join(d, "magic-only"), "wb") as f:
        f.write(bytes([0, 0]) + MAGIC)


if __name__ == "__main__":
    main()
