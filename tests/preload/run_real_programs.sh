#!/bin/sh
# run_real_programs.sh LIB PRIMBENCH SRCDIR - real programs under
# LD_PRELOAD=LIB must write byte for byte what they write without it
# (issue 6, item 5: differential correctness).
#
# Programs (inputs generated here, deterministic):
#   sort     LC_ALL=C sort of a 2 MiB text (line lengths 0 to ~1000), and a
#            keyed stable sort of it;
#   gzip     gzip -9 -n -c of 2 MiB (1.5 MiB of that text, 0.5 MiB of hex);
#   gunzip   gunzip -c of gzip's reference output (must give the file back);
#   python3  hashlib sha256/md5 over bytes joins, str replace/split/join/
#            upper of MB-sized strings, bytearray inserts/deletes/slices and
#            memoryview copies (PYTHON below);
#   cc       cc -O2 -g -c of src/util/sizes.c.
# Configurations: each kernel of each op usable here (`primbench list --op
# OP`, "yes" in the usable column; the others are listed and skipped), two
# multi-band policies per op built from usable kernels, the other ops unset
# (libc); then all three ops at once, with the first and then the second
# policies. Every program, every configuration: exit status 0, nothing on
# stderr, output identical to the reference run without the library (run
# twice first: the references must be reproducible). Before a
# configuration's programs, `env` under it with PRIMBENCH_PRELOAD_DEBUG=1
# must show its policies in force (the library is loaded, nothing refused).
# A program not installed (python3 is not in scripts/deps.sh) is skipped
# with "SKIP: NAME not installed", and the summary names it.
# PRIMBENCH_TEST_JOBS: configurations run at once [2].
# Exit: 0 every run passed, 1 otherwise (the work directory is then kept
# for reproduction, its path printed).
set -u
lib=$1 pb=$2 src=$3
jobs=${PRIMBENCH_TEST_JOBS:-2}
# The reference runs must not see the library, nor anything of it.
unset LD_PRELOAD PRIMBENCH_MEMSET PRIMBENCH_MEMCPY PRIMBENCH_MEMMOVE PRIMBENCH_ACCOUNT \
	PRIMBENCH_ACCOUNT_DIR PRIMBENCH_ACCOUNT_SAMPLE PRIMBENCH_PRELOAD_DEBUG PRIMBENCH_HIDE_FEATURES
export LC_ALL=C
start=$(date +%s)
tmp=$(mktemp -d) || exit 1
keep=0
trap '[ $keep -eq 1 ] || rm -rf "$tmp"' EXIT
in=$tmp/in
mkdir "$in" || exit 1

# ---- the programs ---------------------------------------------------------
progs="" skipped=""
for p in sort gzip gunzip; do
	if command -v "$p" >/dev/null 2>&1; then
		progs="$progs $p"
	else
		echo "SKIP: $p not installed"
		skipped="$skipped $p"
	fi
done
py=""
if command -v python3 >/dev/null 2>&1; then
	# The interpreter itself, not a wrapper script (pyenv's shim).
	py=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null)
	[ -x "$py" ] || py=$(command -v python3)
	if "$py" -c 'import sys; sys.exit(sys.version_info < (3, 9))' 2>/dev/null; then
		progs="$progs python3"
	else
		echo "SKIP: python3 older than 3.9 (no random.randbytes)"
		skipped="$skipped python3"
	fi
else
	echo "SKIP: python3 not installed"
	skipped="$skipped python3"
fi
cc=""
for c in cc gcc; do
	if command -v "$c" >/dev/null 2>&1; then
		cc=$(command -v "$c")
		break
	fi
done
if [ -n "$cc" ]; then
	progs="$progs cc"
else
	echo "SKIP: cc not installed"
	skipped="$skipped cc"
fi

# Double quotes only: it goes to python3 -c '...' as one shell word.
PYTHON='
import hashlib, random
r = random.Random(20261130)
out = []
def h(name, b):
    out.append("%s %d %s %s" % (name, len(b), hashlib.sha256(b).hexdigest(),
                                hashlib.md5(b).hexdigest()))
blob = r.randbytes(1 << 20)
h("blob", blob)
words = [r.randbytes(r.randrange(0, 300)) for _ in range(6000)]
j = b"".join(words)
h("join", j)
h("join2", b"|".join(words[::-1]))
s = j.hex()
h("hex", s.encode())
t = s.replace("ab", "XYZ").replace("0", "")
h("replace", t.encode())
h("split", "\n".join(t.split("f")).encode())
h("upper", s.upper().encode())
ba = bytearray(blob)
for i in range(40):
    a = r.randrange(len(ba)); n = r.randrange(1, 5000)
    if i % 2:
        del ba[a:a + n]
    else:
        ba[a:a] = blob[n:2 * n]
ba[7:] = ba[:-7]
ba += bytes(1 << 20)
mv = memoryview(ba)
ba2 = bytearray(len(ba))
ba2[5:] = mv[:-5]
ba2[0:1 << 20] = mv[1 << 19:3 << 19]
h("bytearray", ba2)
h("slices", b"".join(blob[i:i + r.randrange(1, 70000)] for i in range(0, len(blob), 65536)))
h("zero", bytes(2 << 20) + b"x" * 1000000)
print("\n".join(out))
'

printf '%s\n' "$PYTHON" >"$in/prog.py" # for a reproduction

# Inputs: a 32-bit LCG whose products stay below 2^53, so mawk and gawk
# give the same bytes.
awk 'BEGIN {
	x = 12345
	a = "the quick brown fox jumps over the lazy dog THE QUICK BROWN FOX 0123456789 ,.;:!?-_ "
	a = a a a a a a a a a a a a
	al = length(a)
	n = 0
	while (n < 2097152) {
		x = (x * 69069 + 1) % 4294967296
		r = int(x / 65536)
		k = r % 16
		if (k == 0) len = 0
		else if (k < 10) len = r % 24
		else if (k < 15) len = 20 + r % 100
		else len = 100 + r % 900
		x = (x * 69069 + 1) % 4294967296
		line = substr(a, 1 + int(x / 65536) % (al - len), len)
		if (r % 7 == 0) line = line sprintf("%d", x)
		print line
		n += length(line) + 1
	}
}' >"$in/text" || exit 1
awk 'BEGIN {
	x = 777
	for (i = 0; i < 8192; i++) {
		line = ""
		for (j = 0; j < 8; j++) {
			x = (x * 69069 + 1) % 4294967296
			line = line sprintf("%08x", x)
		}
		print line
	}
}' >"$in/hex" || exit 1
head -c 1572864 "$in/text" | cat - "$in/hex" >"$in/gz" || exit 1

# run_prog NAME OUTDIR: one program, stdout to OUTDIR/NAME.out (cc: the
# object file), stderr to OUTDIR/NAME.err; in the environment as it is.
run_prog() {
	case $1 in
	sort)
		{ sort "$in/text" && sort -s -t ' ' -k 3,3 -k 1,1r "$in/text"; } \
			</dev/null >"$2/sort.out" 2>"$2/sort.err" ;;
	gzip) gzip -9 -n -c <"$in/gz" >"$2/gzip.out" 2>"$2/gzip.err" ;;
	gunzip) gunzip -c <"$ref/gzip.out" >"$2/gunzip.out" 2>"$2/gunzip.err" ;;
	python3) "$py" -I -c "$PYTHON" </dev/null >"$2/python3.out" 2>"$2/python3.err" ;;
	cc)
		# In a fixed directory (-g records it); the object file is the
		# output, and anything the compiler prints counts as stderr.
		(cd "$in" && "$cc" -std=gnu11 -O2 -g -Wall -Wextra -I"$src/include" -I"$src/src" \
			-c "$src/src/util/sizes.c" -o "$2/cc.out") </dev/null >"$2/cc.err" 2>&1 ;;
	esac
}

command_of() { # NAME: the command line, for messages
	case $1 in
	sort) echo "sort $in/text; sort -s -t ' ' -k 3,3 -k 1,1r $in/text (LC_ALL=C)" ;;
	gzip) echo "gzip -9 -n -c <$in/gz" ;;
	gunzip) echo "gunzip -c <$ref/gzip.out" ;;
	python3) echo "$py -I -c \"\$(cat $in/prog.py)\"" ;;
	cc) echo "cd $in && $cc -std=gnu11 -O2 -g -Wall -Wextra -I$src/include -I$src/src -c $src/src/util/sizes.c -o OUT" ;;
	esac
}

# ---- references: twice without the library, identical ---------------------
ref=$tmp/ref
mkdir "$ref" "$tmp/ref2" || exit 1
failed=0
for p in $progs; do
	for d in "$ref" "$tmp/ref2"; do
		if ! run_prog "$p" "$d" || [ -s "$d/$p.err" ]; then
			echo "FAIL $p without the library: exit status not 0 or stderr not empty: $(command_of "$p")"
			sed 's/^/    /' "$d/$p.err"
			failed=1
		fi
	done
	if [ $failed -eq 0 ] && ! cmp "$ref/$p.out" "$tmp/ref2/$p.out"; then
		echo "FAIL $p without the library: two runs differ (not reproducible): $(command_of "$p")"
		failed=1
	fi
done
if [ -e "$ref/gunzip.out" ] && ! cmp "$in/gz" "$ref/gunzip.out"; then
	echo "FAIL gunzip without the library does not give gzip's input back"
	failed=1
fi
if [ $failed -ne 0 ]; then
	keep=1
	echo "the reference runs failed: nothing to compare with (kept: $tmp)"
	exit 1
fi

# ---- the configurations ---------------------------------------------------
for op in memset memcpy memmove; do
	"$pb" list --op $op >"$tmp/list.$op" || { echo "FAIL: $pb list --op $op"; keep=1; exit 1; }
	# Kernel lines: "op/name requires usable", the usable column "yes"
	# or "no: why".
	awk '/^[a-z]+\// && $3 == "yes" { sub(/^[a-z]+\//, "", $1); print $1 }' "$tmp/list.$op" \
		>"$tmp/usable.$op"
	awk '/^[a-z]+\// && $3 != "yes" { i = index($0, " " $3); print "not usable here, skipped: " $1 " (" substr($0, i + 1) ")" }' \
		"$tmp/list.$op"
	if [ ! -s "$tmp/usable.$op" ]; then
		echo "FAIL: no usable $op kernel listed by $pb list --op $op"
		keep=1
		exit 1
	fi
done

pick() { # OP CANDIDATES...: the first one usable here
	o=$1
	shift
	for k; do
		if grep -qx "$k" "$tmp/usable.$o"; then
			echo "$k"
			return
		fi
	done
}
policy() { # OP BAND...: BAND is BOUND:CANDIDATE,... (the last one BOUND -)
	o=$1 pol=""
	shift
	for band; do
		bound=${band%%:*}
		# shellcheck disable=SC2046 # one word per candidate
		k=$(pick "$o" $(echo "${band#*:}" | tr ',' ' '))
		[ -n "$k" ] || continue
		if [ "$bound" = - ]; then pol="$pol$k"; else pol="$pol$k<=$bound,"; fi
	done
	echo "$pol"
}
# The first policy: the docs' shape (rep for small, vector to 1M, then
# non-temporal); the second: byte loop, two more bands, another last kernel.
# Generic kernels close every candidate list, so each band finds one.
setA=$(policy memset 2K:rep_stosb,gpr_unrolled 1M:avx512,avx2,sse2,gpr_unrolled \
	-:avx512_nt,avx2_nt,sse2_nt,movnti,rep_stosq,libc)
setB=$(policy memset 15:bytes 255:sse2,gpr_unrolled 64K:rbw,gpr_unrolled \
	-:clzero,movnti,rep_stosq,libc)
cpyA=$(policy memcpy 2K:rep_movsb,gpr_unrolled 1M:avx512,avx2,sse2,gpr_unrolled \
	-:avx512_nt,avx2_nt,sse2_nt,movnti,rep_movsq,libc)
cpyB=$(policy memcpy 15:bytes 255:sse2,gpr_unrolled 64K:strided,gpr_unrolled \
	-:movnti,rep_movsq,libc)
movA=$(policy memmove 2K:rep_movsb,gpr_unrolled 1M:avx512,avx2,gpr_unrolled \
	-:rep_movsb_fwd_movsq_bwd,rep_movsb,libc)
movB=$(policy memmove 15:bytes 255:gpr_unrolled 64K:rep_movsb,gpr_unrolled \
	-:avx2,avx512,libc)

# One configuration a line: its environment, words without blanks.
{
	for op in memset memcpy memmove; do
		var=PRIMBENCH_$(echo $op | tr '[:lower:]' '[:upper:]')
		while read -r k; do
			echo "$var=$k"
		done <"$tmp/usable.$op"
	done
	echo "PRIMBENCH_MEMSET=$setA"
	echo "PRIMBENCH_MEMSET=$setB"
	echo "PRIMBENCH_MEMCPY=$cpyA"
	echo "PRIMBENCH_MEMCPY=$cpyB"
	echo "PRIMBENCH_MEMMOVE=$movA"
	echo "PRIMBENCH_MEMMOVE=$movB"
	echo "PRIMBENCH_MEMSET=$setA PRIMBENCH_MEMCPY=$cpyA PRIMBENCH_MEMMOVE=$movA"
	echo "PRIMBENCH_MEMSET=$setB PRIMBENCH_MEMCPY=$cpyB PRIMBENCH_MEMMOVE=$movB"
} >"$tmp/configs"
nconf=$(wc -l <"$tmp/configs")
echo "programs:$progs; $nconf configurations, $jobs at a time"

# config N ENV: every program under ENV; a log and a count of failures.
config() {
	n=$1 envs=$2
	d=$tmp/c$n
	mkdir "$d" || return
	bad=0
	log=$d/log
	set -f # the policies' words are not patterns
	# The debug line must show each policy in force.
	# shellcheck disable=SC2086 # ENV: one assignment a word
	env LD_PRELOAD="$lib" PRIMBENCH_PRELOAD_DEBUG=1 $envs env >/dev/null 2>"$d/debug"
	for a in $envs; do
		var=${a%%=*}
		o=$(echo "${var#PRIMBENCH_}" | tr '[:upper:]' '[:lower:]')
		if ! grep -q "ready .*$o '${a#*=}'" "$d/debug"; then
			echo "FAIL [$envs]: the library's debug line does not show $o '${a#*=}':" >>"$log"
			sed 's/^/    /' "$d/debug" >>"$log"
			bad=$((bad + 1))
		fi
	done
	for p in $progs; do
		# shellcheck disable=SC2086
		run_prog_env "$p" "$d" $envs
		st=$?
		if [ $st -ne 0 ]; then
			echo "FAIL $p [$envs]: exit status $st (0 without the library)" >>"$log"
		elif [ -s "$d/$p.err" ]; then
			echo "FAIL $p [$envs]: stderr not empty (empty without the library):" >>"$log"
		elif ! cmp "$ref/$p.out" "$d/$p.out" >"$d/cmp" 2>&1; then
			echo "FAIL $p [$envs]: output differs from the run without the library: $(cat "$d/cmp")" >>"$log"
		else
			continue
		fi
		sed 's/^/    /' "$d/$p.err" >>"$log"
		echo "    reproduce: LD_PRELOAD=$lib $envs $(command_of "$p")" >>"$log"
		bad=$((bad + 1))
	done
	set +f
	[ $bad -ne 0 ] || echo "PASS$progs [$envs]" >>"$log"
	echo $bad >"$d/failed"
}
run_prog_env() { # NAME DIR ENV...: run_prog with the ENV exported
	rp=$1 rd=$2
	shift 2
	(
		export LD_PRELOAD="$lib"
		for a; do
			# shellcheck disable=SC2163 # exports the assignment in $a
			export "$a"
		done
		run_prog "$rp" "$rd"
	)
}

# JOBS stripes at once, each its configurations one after the other.
s=0
while [ $s -lt "$jobs" ]; do
	n=0
	while IFS= read -r envs; do
		n=$((n + 1))
		[ $((n % jobs)) -ne $s ] || config $n "$envs" </dev/null
	done <"$tmp/configs" &
	s=$((s + 1))
done
wait

failed=0 passed=0
i=1
while [ $i -le "$nconf" ]; do
	cat "$tmp/c$i/log"
	if [ "$(cat "$tmp/c$i/failed" 2>/dev/null)" = 0 ]; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
	fi
	i=$((i + 1))
done
echo "$passed configurations passed, $failed failed; programs:$progs${skipped:+; SKIPPED:$skipped}; $(($(date +%s) - start)) s"
if [ $failed -ne 0 ]; then
	keep=1
	echo "inputs and outputs kept in $tmp"
	exit 1
fi
exit 0
