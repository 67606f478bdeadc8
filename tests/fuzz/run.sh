#!/bin/sh
# Runs the fuzz targets of a fuzz build (tests/fuzz/README.md).
#
#   run.sh [--smoke] [--replay BUILD] FUZZ_BUILD SECONDS [TARGET...]
#
# Each target (default: every fuzz_* of FUZZ_BUILD/tests/fuzz) runs for
# SECONDS under libFuzzer, the kernels' target once per feature profile
# (x86-64: all features, then avx2, sse2, noerms hidden, as make test's
# profiles). Inputs: its corpus in FUZZ_BUILD/fuzz-corpus/TARGET (kept
# between runs; with --smoke a fresh one each time), seeded with
# tests/fuzz/corpus/TARGET, the regression inputs tests/fuzz/regress/TARGET
# and the fixtures tests/fuzz/seeds/TARGET lists; its dictionary
# tests/fuzz/dict/TARGET.dict when there is one. A crash, sanitizer
# report, leak, hang (-timeout) or failed check stops that target: its
# input is saved as FUZZ_BUILD/fuzz-artifacts/TARGET-crash-* and run.sh
# exits 1 after the others ran. --replay BUILD: afterwards, every corpus
# input through BUILD/tests/fuzz/replay_TARGET (a build without libFuzzer:
# the kernels there are the objects the benchmarks run).
# One line per run: executions, executions a second, coverage (libFuzzer's
# cov: edges; ft: features), corpus size; also in FUZZ_BUILD/fuzz-summary.txt.
set -u
smoke=0
replay=""
while [ $# -gt 0 ]; do
	case "$1" in
	--smoke) smoke=1; shift ;;
	--replay) replay="$2"; shift 2 ;;
	*) break ;;
	esac
done
[ $# -ge 2 ] || { echo "usage: run.sh [--smoke] [--replay BUILD] FUZZ_BUILD SECONDS [TARGET...]" >&2; exit 2; }
build=$(cd "$1" && pwd) || exit 2
seconds=$2
shift 2
src=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$src/../.." && pwd)
bindir="$build/tests/fuzz"
if [ $# -eq 0 ]; then
	set -- $(cd "$bindir" && ls fuzz_* 2>/dev/null | sed 's/^fuzz_//')
fi
[ $# -gt 0 ] || { echo "run.sh: no fuzz targets in $bindir (make build-fuzz)" >&2; exit 2; }

mkdir -p "$build/fuzz-artifacts" "$build/fuzz-logs"
summary="$build/fuzz-summary.txt"
[ "$smoke" = 1 ] && summary="$build/fuzz-smoke-summary.txt"
: >"$summary"
scratch=$(mktemp -d) || exit 2
trap 'rm -rf "$scratch"' EXIT
trap 'exit 130' INT TERM # between runs; through the EXIT trap
failed=0

# The kernels' profiles: NAME=HIDDEN-FEATURES=GLIBC-HWCAPS, as make test's
# (tests/CMakeLists.txt, "Older CPUs' feature sets": the features hidden
# from primbench and from glibc's ifuncs, so libc and auto's libc bands run
# what such a CPU's glibc would); x86-64 only.
profiles_of() {
	if [ "${1#kernels}" != "$1" ] && [ "$(uname -m)" = x86_64 ]; then
		echo "all=="
		echo "avx2=avx512f,avx512bw=-AVX512F,-AVX512VL,-AVX512BW"
		echo "sse2=avx2,avx512f,avx512bw,erms,fsrm,clzero,clflushopt,movdir64b=-AVX2,-AVX_Fast_Unaligned_Load,-AVX512F,-AVX512VL,-AVX512BW,-ERMS"
		echo "noerms=erms,fsrm=-ERMS"
	else
		echo "all=="
	fi
}

# The seeds: the target's corpus and regression inputs, and the fixture
# files tests/fuzz/seeds/TARGET names (globs relative to the repository).
seed_dir() {
	d="$scratch/seeds-$1"
	mkdir -p "$d"
	for f in "$src/corpus/$1"/* "$src/regress/$1"/*; do
		[ -f "$f" ] || continue
		case "$f" in *.expect | */README*) continue ;; esac
		cp "$f" "$d/$(basename "$(dirname "$f")")-$(basename "$f")"
	done
	if [ -f "$src/seeds/$1" ]; then
		grep -v '^#' "$src/seeds/$1" | while read -r g; do
			[ -n "$g" ] || continue
			for f in $root/$g; do
				[ -f "$f" ] && cp "$f" "$d/fixture-$(echo "${f#$root/}" | tr / _)"
			done
		done
	fi
	echo "$d"
}

stat_of() { # stat_of LOG NAME: libFuzzer's -print_final_stats value
	sed -n "s/^stat::$2: *//p" "$1" | tail -n 1
}

for t in "$@"; do
	bin="$bindir/fuzz_$t"
	[ -x "$bin" ] || { echo "run.sh: no fuzz target '$t' ($bin)" >&2; failed=1; continue; }
	seeds=$(seed_dir "$t")
	dict=""
	[ -f "$src/dict/$t.dict" ] && dict="-dict=$src/dict/$t.dict"
	for p in $(profiles_of "$t"); do
		pname=${p%%=*}
		hide=${p#*=}
		caps=${hide#*=}
		hide=${hide%%=*}
		tunables=${GLIBC_TUNABLES:-}
		[ -n "$caps" ] && tunables="glibc.cpu.hwcaps=$caps"
		# --smoke: a fixed seed, so that make test explores the same
		# inputs from the same seeds each time (a finding there is
		# reproducible, not luck); make fuzz takes a new seed each run
		seed=""
		if [ "$smoke" = 1 ]; then
			work="$scratch/corpus-$t-$pname"
			seed="-seed=1"
		else
			work="$build/fuzz-corpus/$t"
		fi
		mkdir -p "$work"
		log="$build/fuzz-logs/$t-$pname.log"
		GLIBC_TUNABLES="$tunables" PRIMBENCH_HIDE_FEATURES="$hide" PRIMBENCH_POLICY_FILE="" \
			XDG_CONFIG_HOME="$scratch/no-config" \
			"$bin" -max_total_time="$seconds" -print_final_stats=1 -timeout=30 \
			-rss_limit_mb=4096 -artifact_prefix="$build/fuzz-artifacts/$t-" \
			$seed $dict "$work" "$seeds" >"$log" 2>&1
		rc=$?
		# Ctrl-C: libFuzzer takes the SIGINT and exits (72 in LLVM 14),
		# so the shell, which ignores a SIGINT its child handled, would
		# go on to the next target
		if grep -q 'libFuzzer: run interrupted' "$log"; then
			echo "run.sh: interrupted ($t, $pname)" >&2
			exit 130
		fi
		execs=$(stat_of "$log" number_of_executed_units)
		rate=$(stat_of "$log" average_exec_per_sec)
		cov=$(grep -E '^#[0-9]+[[:space:]]+(DONE|pulse|NEW|REDUCE|INITED)' "$log" | tail -n 1 |
			sed -n 's/.*cov: \([0-9]*\) ft: \([0-9]*\).*/cov \1 ft \2/p')
		corp=$(ls "$work" | wc -l)
		line=$(printf '%-14s %-7s %5ss %11s execs %8s/s  %-20s corpus %s' "$t" "$pname" \
			"$seconds" "${execs:-?}" "${rate:-?}" "${cov:-cov ?}" "$corp")
		if [ $rc -ne 0 ]; then
			line="$line  FAILED (rc $rc, log $log)"
			failed=1
		fi
		echo "$line" | tee -a "$summary"
		if [ $rc -ne 0 ]; then
			grep -E 'ERROR|fuzz: |SUMMARY|Test unit written|leak|timeout|deadly' "$log" | head -n 20
		fi
	done
	if [ -n "$replay" ]; then
		r="$replay/tests/fuzz/replay_$t"
		if [ -x "$r" ]; then
			out=$("$r" "$work" 2>&1) || { echo "replay_$t failed on the corpus:"; echo "$out" | tail -n 20; failed=1; }
			echo "  replay_$t ($replay): $(echo "$out" | tail -n 1)" | tee -a "$summary"
		fi
	fi
done
exit $failed
