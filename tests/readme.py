#!/usr/bin/env python3
"""The README's command lines parse, and the cheap ones run.

    tests/readme.py PRIMBENCH [--root DIR] [--kernels-arch ARCH] [-v]

Which lines are commands. In the fenced code blocks (``` or ~~~; not
those marked ```text, which hold output only) of README.md and docs/*.md,
after joining a line that ends in a backslash with the next: a line whose
first word, after an optional "$ " prompt and any NAME=VALUE assignments,
is primbench or a path ending in /primbench (./build/primbench,
build/primbench). In a block where some line starts with "$ ", only those
lines are commands: the others are their output. The line is split as
sh would split it (quotes, a "# comment" at the end) and ends at the first
|, ||, &&, ;, &, >, >> or < (the rest is the shell's, not primbench's).
Leading NAME=VALUE assignments are dropped (LD_PRELOAD, GLIBC_TUNABLES:
the README's reader's environment, not this test's); $VARIABLES are not
expanded.

What is checked.
 1. Every command line, with PRIMBENCH_PARSE_ONLY=1 (docs/primbench.1,
    ENVIRONMENT): must exit 0. Parse-only checks the line against this
    machine too, as a run would; a line refused only for a fact of this
    machine (a kernel it cannot run, a CPU it does not have, a page size it
    has not: MACHINE_ERRORS below) is counted as skipped, not failed, so
    the test does not depend on the machine it runs on.
 2. The cheap lines run for real and must exit 0: any line with -h, --help
    or help; `--version`; list; info without --latency; syscall --list;
    report, compare, stats and plot when each input file is known. plot
    runs with --script-only DIR added (gnuplot is not needed).
Placeholders. An input file of report, compare, stats or plot that is not
a file in the repository (before.json, old.txt, FILE) is a fixture of
tests/data copied to that name in the scratch directory, chosen by the name (FIXTURES below: the first rule
whose pattern the name matches; the k-th distinct name gets the rule's
k-th fixture, cycling). A line whose input file no rule covers is parsed
only. Input files are the operands: the words that are not options or
option values (which options take a value is read from `CMD --help`).
Every command runs in a scratch directory, stdin from /dev/null, 20 s at
most; nothing is timed.

Exit status: 0 all passed (skips included), 1 a line failed, 77 skipped
(the README's examples name x86-64 kernels and features: another ISA's
build skips).
"""
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

# An exit 2 for a fact of this machine, not of the line (src/cli, src/suites).
MACHINE_ERRORS = [
    r"is not usable here",
    r"--cpu \d+: (no such CPU|not allowed for this process)",
    r"none of these page sizes is available here",
    r"no usable \w+ kernel on this machine",
    r"--cpu: .*(not online|not allowed|only \d+ CPU)",
    r"--threads .*more than",
    r"no hardware counters here",
    # `primbench kernel` off x86-64 (the module is x86-64's)
    r"the module \(kmod/\) exists for x86-64 only",
    # the reader's own file (--vs-env LD_PRELOAD=$PWD/libmymem.so)
    r"--vs-env LD_PRELOAD: .*No such file or directory",
]

# (pattern on the file's base name, fixtures relative to tests/data)
FIXTURES = [
    (r"^lat", ["latency/curve_a.json", "latency/curve_b.json"]),
    (r"^map.*thread", ["latency/map_threads.json"]),
    (r"^map", ["latency/map_a.json", "latency/map_b.json"]),
    (r"^(sys|syscall)", ["compare/sys_a.json", "compare/sys_b.json"]),
    (r"^xsave", ["compare/xsave.json"]),
    (r"^kernel", ["format/kernel.json"]),
    (r"^(gz|cmd|ab)", ["plot/cmd_ab.json"]),
    # README's "In CI": the regression gate's A/A pair (exit 0)
    (r"^(main|pr)\.json$", ["gate/a1.json", "gate/a2.json"]),
    (r"\.json$", ["compare/mem_a.json", "compare/mem_b.json"]),
    (r"\.csv$", ["stats/columns.csv", "stats/columns-b.csv"]),
    (r"^[\w.-]+$", ["stats/ticks-a", "stats/ticks-b"]),
]

CHEAP_FILES = {"report", "compare", "stats", "plot"}
OPERATORS = {"|", "||", "&&", ";", "&", ">", ">>", "<", ";;", "|&"}
PROGRAM = re.compile(r"^(?:[\w.~-]*/)*primbench$")
ASSIGNMENT = re.compile(r"^[A-Za-z_]\w*=")


def code_blocks(text):
    """(first line number, [lines]) of each fenced code block but those
    marked ```text (output only)."""
    blocks, fence, start, lines, output = [], None, 0, [], False
    for n, line in enumerate(text.split("\n"), 1):
        m = re.match(r"^\s*(`{3,}|~{3,})\s*(\S*)", line)
        if fence is None and m:
            fence, start, lines = m.group(1), n + 1, []
            output = m.group(2) == "text"
        elif fence is not None and line.strip().startswith(fence) and \
                line.strip() == line.strip()[0] * len(line.strip()):
            if not output:
                blocks.append((start, lines))
            fence = None
        elif fence is not None:
            lines.append(line)
    return blocks


def command_lines(text):
    """(line number, words, text) of every primbench command line."""
    out = []
    for start, lines in code_blocks(text):
        joined, i = [], 0
        while i < len(lines):
            n, line = start + i, lines[i]
            while line.endswith("\\") and i + 1 < len(lines):
                i += 1
                line = line[:-1] + " " + lines[i].strip()
            joined.append((n, line))
            i += 1
        prompted = any(l.lstrip().startswith("$ ") for _, l in joined)
        for n, line in joined:
            s = line.strip()
            if prompted:
                if not s.startswith("$ "):
                    continue
                s = s[2:]
            words = split(s)
            if words is None:
                continue
            while words and ASSIGNMENT.match(words[0]):
                words = words[1:]
            if words and PROGRAM.match(words[0]):
                out.append((n, words[1:], s))
    return out


def split(s):
    """sh's words up to the first control operator; None if unbalanced."""
    lex = shlex.shlex(s, posix=True, punctuation_chars=True)
    lex.whitespace_split = True
    lex.commenters = "#"
    words = []
    try:
        for w in lex:
            if w in OPERATORS or (w and set(w) <= set("|&;<>()")):
                break
            words.append(w)
    except ValueError:
        return None
    return words


class Binary:
    def __init__(self, path, scratch):
        self.path, self.scratch = path, scratch
        self.valued = {}

    def run(self, args, parse_only, timeout=20):
        env = dict(os.environ)
        env.pop("PRIMBENCH_PARSE_ONLY", None)
        if parse_only:
            env["PRIMBENCH_PARSE_ONLY"] = "1"
        try:
            p = subprocess.run([self.path] + args, cwd=self.scratch, env=env,
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, timeout=timeout)
        except subprocess.TimeoutExpired:
            return 124, "", "timed out after %d s" % timeout
        return (p.returncode, p.stdout.decode(errors="replace"),
                p.stderr.decode(errors="replace"))

    def valued_options(self, cmd):
        """The options of cmd that take a value, from `primbench CMD --help`."""
        if cmd not in self.valued:
            _, out, _ = self.run([cmd, "--help"], False)
            opts = set()
            for line in out.split("\n"):
                m = re.match(r"^\s{1,4}(-[A-Za-z])?(?:, )?(--[a-z][\w-]*)?[ =]"
                             r"([A-Z][A-Z0-9_.%]*)\b", line)
                if m and (m.group(1) or m.group(2)):
                    opts.update(o for o in m.group(1, 2) if o)
            self.valued[cmd] = opts
        return self.valued[cmd]


def operands(words, valued):
    """Indices of the operands of a subcommand's words (after its name)."""
    idx, i, after_dd = [], 1, False
    while i < len(words):
        w = words[i]
        if after_dd or w == "-" or not w.startswith("-"):
            idx.append(i)
        elif w == "--":
            after_dd = True
        elif "=" not in w and (w in valued or (not w.startswith("--") and len(w) == 2 and
                                               w in valued)):
            i += 1
        i += 1
    return idx


def fixture_for(name, used, data):
    base = os.path.basename(name)
    for pattern, files in FIXTURES:
        if re.search(pattern, base):
            k = used.setdefault(pattern, {})
            if name not in k:
                k[name] = len(k)
            return os.path.join(data, files[k[name] % len(files)])
    return None


def is_cheap(words):
    if not words:
        return False  # the default suite
    if any(w in ("-h", "--help") for w in words) or words[0] == "help":
        return True
    cmd = words[0]
    if cmd == "--version" or cmd == "list":
        return True
    if cmd == "info":
        return not any(w.startswith("--latency") for w in words)
    if cmd == "syscall":
        return "--list" in words
    return cmd in CHEAP_FILES


def real_args(words, binary, root, data, used, scratch):
    """The words to run for real, or (None, why) when the line is parsed only."""
    words = list(words)
    if not words or words[0] not in CHEAP_FILES or any(w in ("-h", "--help") for w in words):
        return words, None
    cmd = words[0]
    for i in operands(words, binary.valued_options(cmd)):
        w = words[i]
        if w == "-":
            return None, "reads standard input"
        path = w if os.path.isabs(w) else os.path.join(root, w)
        if os.path.isfile(path):
            words[i] = path
            continue
        if os.path.isabs(w) or ".." in w.split("/"):
            return None, "no fixture for '%s'" % w
        f = fixture_for(w, used, data)
        if not f:
            return None, "no fixture for '%s'" % w
        # the fixture under the line's own name, in the scratch directory
        # the line runs in: distinct names stay distinct files
        copy = os.path.join(scratch, w)
        os.makedirs(os.path.dirname(copy), exist_ok=True)
        shutil.copyfile(f, copy)
    if cmd == "plot" and "--script-only" not in words:
        words[1:1] = ["--script-only", os.path.join(scratch, "plot-script")]
    return words, None


# The README and every docs/ page (the README's reference moved there):
# every command line they show is one a reader may paste.
def docs_of(root):
    return ["README.md"] + sorted(
        os.path.join("docs", n) for n in os.listdir(os.path.join(root, "docs"))
        if n.endswith(".md"))


def main():
    args = sys.argv[1:]
    verbose = "-v" in args
    args = [a for a in args if a != "-v"]
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    karch = "x86_64"
    if "--root" in args:
        i = args.index("--root")
        root = args[i + 1]
        del args[i:i + 2]
    if "--kernels-arch" in args:
        i = args.index("--kernels-arch")
        karch = args[i + 1]
        del args[i:i + 2]
    if len(args) != 1:
        sys.exit(__doc__.split("\n\n")[1])
    if karch != "x86_64":
        print("skipped: the README's examples name x86-64 kernels and features "
              "(this build's kernels: %s)" % karch)
        sys.exit(77)
    data = os.path.join(root, "tests", "data")
    lines = []
    for doc in docs_of(root):
        with open(os.path.join(root, doc), encoding="utf-8") as f:
            found = command_lines(f.read())
        if not found and doc == "README.md":
            print("FAIL: no primbench command line in %s's code blocks" % doc)
            sys.exit(1)
        lines += [(doc, n, words, text) for n, words, text in found]
    machine = re.compile("|".join(MACHINE_ERRORS))
    fail = parsed = ran = 0
    skipped = []
    with tempfile.TemporaryDirectory() as scratch:
        binary = Binary(os.path.abspath(args[0]), scratch)
        used = {}
        for doc, n, words, text in lines:
            where = "%s:%d: %s" % (doc, n, text)
            rc, out, err = binary.run(words, True)
            if rc != 0 and rc == 2 and machine.search(err.replace("\n    ", " ")):
                skipped.append("%s\n    (this machine: %s)" % (where, err.strip()))
                continue
            if rc != 0 or out:
                fail += 1
                print("FAIL (parse-only): %s\n  exit %d, stdout %d bytes, stderr:" %
                      (where, rc, len(out)))
                print("".join("    " + l + "\n" for l in err.rstrip().split("\n")), end="")
                continue
            parsed += 1
            if not is_cheap(words):
                continue
            run, why = real_args(words, binary, root, data, used, scratch)
            if run is None:
                skipped.append("%s\n    (run skipped: %s)" % (where, why))
                continue
            rc, out, err = binary.run(run, False)
            if rc != 0:
                fail += 1
                print("FAIL (run): %s\n  ran: primbench %s\n  exit %d, stderr:" %
                      (where, " ".join(shlex.quote(w) for w in run), rc))
                print("".join("    " + l + "\n" for l in err.rstrip().split("\n")), end="")
                continue
            ran += 1
            if verbose:
                print("ran: primbench %s" % " ".join(shlex.quote(w) for w in run))
    for s in skipped:
        print("skipped: %s" % s)
    print("%d command lines: %d parsed, %d of them run, %d failed, %d skipped" %
          (len(lines), parsed, ran, fail, len(skipped)))
    sys.exit(1 if fail else 0)


if __name__ == "__main__":
    main()
