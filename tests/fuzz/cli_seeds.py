#!/usr/bin/env python3
"""cli_seeds.py - the cli fuzz target's seeds from the CLI's golden cases.

    python3 tests/fuzz/cli_seeds.py   (from the repository root)

Reads tests/cli/cases and tests/cli/*.cases (EXIT | STDERR_REGEX | ENV |
ARGS), splits each ARGS as a shell would, names the fixture files of the
target's scratch directory in place of paths (a number file: 'numbers', a
.json: 'result.json'), drops cases that still have a path, a shell
expansion or a redirection, and keeps a small set that covers every
(subcommand, option) pair and both statuses the cases have: the greedy
cover, at most MAX_SEEDS files. Writes them to tests/fuzz/corpus/cli/, one
word a line (fuzz_cli.c's format), replacing what was there; and the
dictionary tests/fuzz/dict/cli.dict: the subcommands (src/cli/main.c's
table), every long option of src/cli's option tables, and the values the
options take by name (ops, cache states, formats, syscall benchmarks,
kernel sets, the fixture files, completion's shells)."""
import glob
import os
import re
import shlex

MAX_SEEDS = 60
root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
out = os.path.join(root, "tests", "fuzz", "corpus", "cli")


def fixture(word):
    if "$" not in word and "/" not in word:
        return word
    m = re.fullmatch(r'"?\$(PB_TESTDATA|here)(/[^ "$]*)?"?', word)
    if not m:
        return None
    path = m.group(2) or ""
    if path.endswith(".json"):
        return "result.json"
    if "/stats/" in path:
        return "numbers2" if path.endswith(("chameleon", "-b.csv", "-y")) else "numbers"
    return None


cases = []
for f in sorted(glob.glob(os.path.join(root, "tests", "cli", "*cases"))):
    for line in open(f):
        line = line.rstrip("\n")
        if not line.strip() or line.startswith("#"):
            continue
        line = re.sub(r"^(x86|native):", "", line)
        parts = line.split("|", 3)
        if len(parts) < 4 or parts[2].strip() not in ("", "PRIMBENCH_PARSE_ONLY=1"):
            continue
        status = parts[0].strip()
        try:
            raw = shlex.split(parts[3], posix=False)
        except ValueError:
            continue
        words = []
        for w in raw:
            if w.startswith(("<", ">", "2>")):
                words = None
                break
            if w.startswith(("'", '"')) and w.endswith(w[0]) and len(w) >= 2 and "$" not in w:
                w = w[1:-1]
            w = fixture(w)
            if w is None:
                words = None
                break
            words.append(w)
        if words is None:
            continue
        cmd = words[0] if words and not words[0].startswith("-") else "run"
        feats = {(cmd, "status " + status)}
        for w in words[1:]:
            if w.startswith("-"):
                feats.add((cmd, w.split("=")[0]))
        cases.append((words, feats))

chosen, covered = [], set()
while len(chosen) < MAX_SEEDS:
    best = max(cases, key=lambda c: (len(c[1] - covered), -len(" ".join(c[0]))), default=None)
    if best is None or not best[1] - covered:
        break
    chosen.append(best[0])
    covered |= best[1]

os.makedirs(out, exist_ok=True)
for old in glob.glob(os.path.join(out, "*")):
    os.remove(old)
for i, words in enumerate(chosen):
    name = "%02d-%s" % (i, re.sub(r"[^A-Za-z0-9_]+", "-", " ".join(words[:2]))[:24].strip("-"))
    with open(os.path.join(out, name), "w") as f:
        f.write("\n".join(words))
src = os.path.join(root, "src")
cli_text = "".join(open(f).read() for f in sorted(glob.glob(os.path.join(src, "cli", "*.[ch]"))))
main_c = open(os.path.join(src, "cli", "main.c")).read()
subcommands = re.findall(r'\{"([a-z]+)", cmd_[a-z_]+,', main_c)
longopts = sorted(set(re.findall(r'\{"([a-z0-9-]+)", *(?:no|required|optional)_argument', cli_text)))
sc = open(os.path.join(src, "results", "syscall_write.c")).read()
benches = re.findall(r'"([a-z-]+)"', sc[sc.index("names[PB_SC_COUNT]"):sc.index("};", sc.index("names[PB_SC_COUNT]"))])
states = ["hot", "l2", "llc", "dram", "fault", "fault-thp", "repeat"]
values = (["memset", "memcpy", "memmove", "clear_page", "copy_page", "map"] + states +
          ["text", "json", "csv", "markdown", "benchfmt", "libc", "auto", "all", "numbers",
           "numbers2", "result.json", "acct", "--", "-", "-o", "-f", "-n", "-q", "-h",
           "64..4K", "4K", "1M", "2G", ",", "=", ".."] + benches +
          ["bmf", "gbench", "action"] +  # report -f's CI formats
          ["--fail-if-slower=2%", "page.html", "mem/memset/hot/4K",
           "suite=syscall+benchmark=null@ns"] +  # compare's gate, report's --html, --figures
          ["bash", "zsh"])  # completion's shells
with open(os.path.join(root, "tests", "fuzz", "dict", "cli.dict"), "w") as f:
    f.write("# cli.dict - fuzz_cli's words (made by tests/fuzz/cli_seeds.py)\n")
    for w in subcommands:
        f.write('sub_%s="%s"\n' % (re.sub(r"\W", "_", w), w))
    for w in longopts:
        f.write('opt_%s="--%s"\n' % (re.sub(r"\W", "_", w), w))
    for i, w in enumerate(dict.fromkeys(values)):
        f.write('val_%d="%s"\n' % (i, w))
    f.write('sep_nl="\\x0a"\nsep_nul="\\x00"\n')
print("dictionary: %d subcommands, %d long options" % (len(subcommands), len(longopts)))
print("%d cases, %d seeds, %d (subcommand, option) pairs" % (len(cases), len(chosen), len(covered)))
