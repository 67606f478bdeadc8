#!/bin/busybox sh
# shellcheck shell=dash
# init.sh - /init of make test-kmod's initramfs (tests/kmod/run.sh builds
# it; the kernel runs it as PID 1 under qemu). It holds /bin/busybox,
# /primbench_kmod.ko, /bin/primbench (static) and /bin/abi_test (static).
#
# Steps: primbench with the module absent (exit 2, says how to load it);
# insmod; abi_test; primbench kernel --list; a short measured run of every
# variant, 4K and 2M, hot and flushed (run.json); one with --irqs-off (sse2
# and the kernel's); every op in one run (ops.json: copy_page, fpu,
# user_copy beside clear_page); bad requests (an unknown variant, bad
# --pages, --cache, --budget, a variant the CPU lacks, an unknown op, a
# user_copy size past the module's limit, an upper state the CPU lacks:
# exit 2, one stderr message, no file); SIGTERM to a long run once its
# checks are done (exit 143 within 10 s, sig.json marked interrupted);
# rmmod; insmod max_request_ms=1000 and abi_test --etime; rmmod; when the
# module has the test-only parameter corrupt_variant: insmod
# corrupt_variant=4, abi_test --corrupt 4 and primbench refusing
# rep_stosb, rmmod; the same with corrupt_variant=16 (copy_page
# rep_movsb) and =30 (user_copy copy_to_user).
#
# Every step prints one line "PB-KMOD: CHECK <name> PASS|FAIL|SKIP <detail>"
# on the serial console, the commands' output indented under it; the
# result files go out base64-encoded between "PB-KMOD: FILE-BEGIN <name>"
# and "PB-KMOD: FILE-END <name>", the kernel log of the boot between
# "PB-KMOD: BOOT-DMESG-BEGIN" and "...-END", the kernel log since then
# (every module load and unload, every request) between "PB-KMOD:
# DMESG-BEGIN" and "PB-KMOD: DMESG-END"; "PB-KMOD: DONE <passed> passed,
# <failed> failed" is the last line before the power goes off.
# tests/kmod/check.py reads that log on the host.
#
# Settings from the kernel command line (the kernel hands unknown
# name=value words to init as environment variables):
#   pb_budget    --budget of each measured run, seconds (default 0.02)
#   pb_sig_after seconds between the long run's "correctness:" line and
#                its SIGTERM (default 1)
#   pb_accel     kvm or tcg: printed only (timings under TCG mean nothing)

/bin/busybox mkdir -p /bin /sbin /usr/bin /usr/sbin /proc /sys /dev /tmp
/bin/busybox --install -s
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t tmpfs tmpfs /tmp
# The console carries the markers: kernel messages stay in the log buffer
# (dumped at the end) instead of landing in the middle of a line.
dmesg -n 1
# The boot's messages are kept apart and the buffer cleared, so that the
# log checked at the end is the module's time only: a CPU model's boot can
# print lines such as "RETBleed: WARNING: ..." that have nothing to do
# with it.
dmesg -c >/tmp/boot-dmesg.txt

budget=${pb_budget:-0.02}
sig_after=${pb_sig_after:-1}
passed=0
failed=0

say() { echo "PB-KMOD: $*"; }
pass() {
	passed=$((passed + 1))
	say "CHECK $1 PASS${2:+ $2}"
}
fail() {
	failed=$((failed + 1))
	say "CHECK $1 FAIL${2:+ $2}"
}
# show FILE: a command's output, indented under its check line
show() { [ -s "$1" ] && sed 's/^/    | /' "$1"; }
# run SECONDS OUT CMD...: CMD with stdout+stderr to OUT, killed after
# SECONDS; sets rc (124 or 137 when it was killed) and secs.
run() {
	limit=$1
	out=$2
	shift 2
	t0=$(date +%s)
	timeout -s KILL "$limit" "$@" >"$out" 2>&1
	rc=$?
	secs=$(($(date +%s) - t0))
}
send_file() {
	say "FILE-BEGIN $2"
	base64 "$1"
	say "FILE-END $2"
}

# A line of its own: the console's terminal reset precedes the first.
echo
say "init: $(uname -r), $(nproc) CPUs, accel ${pb_accel:-?}, budget ${budget}s (timings under emulation mean nothing)"
grep -m1 '^flags' /proc/cpuinfo | sed 's/^/    | /'

pb=/bin/primbench
# Each step is killed after 240 s (the host gives the whole VM 600 s), so
# that a hung one still leaves the kernel log dumped.
pb_run() { run 240 "$@"; }

# 1. The module absent: primbench says how to load it and exits 2, no file.
pb_run /tmp/noload.out $pb kernel clear_page --budget "$budget" -o /tmp/noload.json
if [ $rc -eq 2 ] && grep -q -i -E 'insmod|modprobe' /tmp/noload.out && [ ! -e /tmp/noload.json ]; then
	pass noload "exit 2, says how to load it"
else
	fail noload "exit $rc (want 2, a line naming insmod or modprobe, no file)"
fi
show /tmp/noload.out

# 2. insmod: /dev/primbench appears (devtmpfs).
run 60 /tmp/insmod.out insmod /primbench_kmod.ko
if [ $rc -eq 0 ] && [ -c /dev/primbench ]; then
	pass insmod "$(grep primbench_kmod /proc/modules | cut -d' ' -f1-3)"
else
	fail insmod "exit $rc, /dev/primbench: $(ls -l /dev/primbench 2>&1)"
fi
show /tmp/insmod.out
# The test-only parameter corrupt_variant (step 10), in this module or not.
has_corrupt=no
[ -e /sys/module/primbench_kmod/parameters/corrupt_variant ] && has_corrupt=yes

# 3. The ioctls from a small C program (tests/kmod/abi_test.c): one line
# per check starting PASS, FAIL or SKIP; exit 0 when none failed.
abi_test() { # NAME ARGS...
	name=$1
	shift
	run 240 /tmp/abi.out /bin/abi_test "$@"
	n_fail=$(grep -c '^FAIL' /tmp/abi.out)
	n_pass=$(grep -c '^PASS' /tmp/abi.out)
	n_skip=$(grep -c '^SKIP' /tmp/abi.out)
	if [ $rc -eq 0 ] && [ "$n_fail" -eq 0 ] && [ "$n_pass" -gt 0 ]; then
		pass "$name" "$n_pass passed, $n_skip skipped (${secs}s)"
	else
		fail "$name" "exit $rc, $n_pass PASS, $n_fail FAIL and $n_skip SKIP lines"
	fi
	show /tmp/abi.out
}
abi_test abi_test

# 4. The variants the module offers here.
pb_run /tmp/list.out $pb kernel --list
if [ $rc -eq 0 ] && [ -s /tmp/list.out ]; then
	pass list
else
	fail list "exit $rc"
fi
show /tmp/list.out

# 5. A short measured run: every variant, 4 KiB and 2 MiB pages, hot and
# flushed; its file goes to the host (check.py reads it, and primbench
# report there).
pb_run /tmp/run.out $pb kernel clear_page --pages 4K,2M --cache hot,flushed \
	--budget "$budget" --replicates 2 -o /tmp/run.json
if [ $rc -eq 0 ] && [ -s /tmp/run.json ]; then
	pass run "${secs}s"
else
	fail run "exit $rc, file: $(ls -l /tmp/run.json 2>&1)"
fi
show /tmp/run.out
[ -s /tmp/run.json ] && send_file /tmp/run.json run.json

# 5b. Interrupts off around each batch, one case a variant: sse2 (its
# kernel_fpu_begin/end with interrupts off) and the kernel's clear_page;
# the kernel's alone when --list says sse2 is not available here.
irq_vars=kernel
if awk '$1 == "sse2" && $2 == "yes" { found = 1 } END { exit !found }' /tmp/list.out; then
	irq_vars=sse2,kernel
fi
n_irq_vars=$(echo "$irq_vars" | tr ',' '\n' | wc -l)
pb_run /tmp/irq.out $pb kernel clear_page --variants "$irq_vars" --pages 4K --cache hot \
	--irqs-off --budget "$budget" --replicates 1 -o /tmp/irq.json
n_irq=$(grep -c '"irqs_off": *true' /tmp/irq.json 2>/dev/null)
if [ $rc -eq 0 ] && [ "${n_irq:-0}" -eq "$n_irq_vars" ]; then
	pass irqs_off "$irq_vars, ${secs}s"
else
	fail irqs_off "--variants $irq_vars: exit $rc, ${n_irq:-0} cases with irqs_off true (want $n_irq_vars)"
fi
show /tmp/irq.out

# 5c. The other ops, with clear_page, in one run (their cases
# interleaved, as `primbench kernel all` does): copy_page at 4K and 2M,
# hot and flushed; fpu (kernel_fpu_begin/end timed in the kernel, and the
# ioctls timed from user space) at every upper state this CPU has;
# user_copy at three sizes, hot and flushed. check.py wants every case
# with samples, every check passed, and the break-even entries that
# clear_page's and fpu's figures give.
pb_run /tmp/ops.out $pb kernel all --pages 4K,2M --cache hot,flushed --sizes 64,4K,1M \
	--budget "$budget" --replicates 2 -o /tmp/ops.json
if [ $rc -eq 0 ] && [ -s /tmp/ops.json ]; then
	pass ops "${secs}s"
else
	fail ops "exit $rc, file: $(ls -l /tmp/ops.json 2>&1)"
fi
show /tmp/ops.out
[ -s /tmp/ops.json ] && send_file /tmp/ops.json ops.json

# 6. Bad requests: exit 2, no file, and one message on stderr: one line
# "primbench: kernel: ..." (primbench wraps a message at 80 columns, its
# continuation lines indented, so those are part of the one message).
# Each of these is refused by primbench itself (option parsing, or the
# variant list against the module's INFO): none of them reaches the
# module, whose EINVAL for a bad field is abi_test's to check.
# bad_op NAME OPS ARGS...: `primbench kernel OPS ARGS`; bad NAME ARGS...:
# the same with clear_page.
bad_op() {
	name=$1
	ops=$2
	shift 2
	rm -f /tmp/bad.json
	timeout -s KILL 240 $pb kernel "$ops" "$@" --budget "$budget" -o /tmp/bad.json \
		>/tmp/bad.stdout 2>/tmp/bad.err
	rc=$?
	n_msg=$(grep -c -v '^ ' /tmp/bad.err)
	# (not primbench's own "unknown subcommand": the request is what is bad)
	if [ $rc -eq 2 ] && [ ! -e /tmp/bad.json ] && [ "$n_msg" -eq 1 ] &&
		grep -q '^primbench: kernel: ' /tmp/bad.err && ! grep -q 'unknown subcommand' /tmp/bad.err; then
		pass "$name" "exit 2, one stderr message, no file"
	else
		fail "$name" "exit $rc, $n_msg stderr messages (want exit 2, one line starting 'primbench: kernel: ' and its indented continuations, no file)"
	fi
	show /tmp/bad.err
	show /tmp/bad.stdout
}
bad() {
	bad_name=$1
	shift
	bad_op "$bad_name" clear_page "$@"
}
bad bad_variant --variants no_such_variant
bad bad_pages --pages 3K
bad bad_cache --cache lukewarm
bad bad_budget --budget -1
# A variant this CPU lacks (the first "no" of --list), asked for by name.
unavailable=$(awk '$2 == "no" { print $1; exit }' /tmp/list.out)
if [ -n "$unavailable" ]; then
	bad bad_unavailable --variants "$unavailable"
else
	pass bad_unavailable "not run: every variant is available here"
fi
# The new ops' own: an unknown op; a user_copy size past the module's
# max_user_bytes (64 MiB); an upper state this CPU cannot hold (dirty512
# without AVX-512: TCG's CPU has none; under KVM on an AVX-512 host the
# state exists and the step is not run).
bad_op bad_op copy_pages
bad_op bad_sizes user_copy --sizes 128M
if grep -q -w avx512f /proc/cpuinfo; then
	pass bad_upper "not run: this CPU has AVX-512 state"
else
	bad_op bad_upper fpu --upper dirty512
fi

# 7. A signal ends a long run promptly, and what it measured is written
# (exit 128 + 15, "interrupted": true: README, "Exit statuses"); check.py
# wants samples in its file. The signal is sent once the run is timing:
# its "correctness:" line (printed when every variant has passed its
# check) is in its output, up to 60 s after its start, then sig_after
# seconds more; a signal during the checks would leave no samples, and
# a fixed delay from the start does not know how slow this host is.
rm -f /tmp/sig.json
# --cpu 0: no placement probe, so that the run goes straight to the
# correctness checks and then to timing.
$pb kernel clear_page --pages 4K,2M --cache hot,flushed --budget 1000 --cpu 0 \
	-o /tmp/sig.json >/tmp/sig.out 2>&1 &
sig_pid=$!
n=0
while [ $n -lt 120 ] && kill -0 $sig_pid 2>/dev/null && ! grep -q '^correctness:' /tmp/sig.out; do
	sleep 0.5
	n=$((n + 1))
done
if ! grep -q '^correctness:' /tmp/sig.out; then
	if kill -0 $sig_pid 2>/dev/null; then
		kill -KILL $sig_pid
		wait $sig_pid
		fail signal "no 'correctness:' line in its output within 60 s (killed)"
	else
		wait $sig_pid
		fail signal "ended (exit $?) before its 'correctness:' line"
	fi
else
	t_check=$((n / 2))
	sleep "$sig_after"
	if kill -0 $sig_pid 2>/dev/null; then
		t1=$(date +%s)
		kill -TERM $sig_pid
		# Give it 20 s to end, then KILL it (a failure).
		(sleep 20 && kill -KILL $sig_pid 2>/dev/null) &
		watchdog=$!
		wait $sig_pid
		rc=$?
		kill $watchdog 2>/dev/null
		t2=$(date +%s)
		# Promptly: within 10 s (the module checks for a signal between two
		# batches; a batch is a few milliseconds, even emulated).
		if [ $rc -eq 143 ] && [ $((t2 - t1)) -le 10 ] && [ -s /tmp/sig.json ] &&
			grep -q '"interrupted": *true' /tmp/sig.json; then
			pass signal "checks done in ~${t_check}s; exit 143 $((t2 - t1))s after SIGTERM, file marked interrupted"
		else
			fail signal "exit $rc $((t2 - t1))s after SIGTERM (want 143 within 10 s and a file marked interrupted)"
		fi
	else
		wait $sig_pid
		fail signal "ended by itself (exit $?) within ${sig_after}s of its 'correctness:' line"
	fi
fi
show /tmp/sig.out
[ -s /tmp/sig.json ] && send_file /tmp/sig.json sig.json

# 8. rmmod: the device goes away.
run 60 /tmp/rmmod.out rmmod primbench_kmod
if [ $rc -eq 0 ] && [ ! -e /dev/primbench ] && ! grep -q '^primbench_kmod ' /proc/modules; then
	pass rmmod
else
	fail rmmod "exit $rc"
fi
show /tmp/rmmod.out

# 9. A request's run time is bounded: the module again with
# max_request_ms=1000, and abi_test --etime (a long TIME request ends with
# ETIME), then rmmod again.
run 60 /tmp/insmod.out insmod /primbench_kmod.ko max_request_ms=1000
if [ $rc -eq 0 ] && [ "$(cat /sys/module/primbench_kmod/parameters/max_request_ms 2>&1)" = 1000 ]; then
	pass insmod_short "max_request_ms=1000"
	abi_test abi_test_etime --etime
	run 60 /tmp/rmmod.out rmmod primbench_kmod
	if [ $rc -eq 0 ]; then pass rmmod_again; else fail rmmod_again "exit $rc"; fi
	show /tmp/rmmod.out
else
	fail insmod_short "exit $rc"
	show /tmp/insmod.out
fi

# 10. The correctness check can fail: the module's test-only parameter
# corrupt_variant=4 (rep_stosb) makes that variant leave a byte set, and
# then abi_test --corrupt 4 (CHECK of it: EIO, bad offset 4032) exits 0
# and primbench refuses to time it: exit 2, a stderr line naming it, no
# file. The same for the other ops' checks, each in its own insmod: a
# copy_page variant (16, rep_movsb: its destination's byte 4032) and a
# user_copy one (30, copy_to_user: the user region's byte 4032, or its
# last of a shorter one); abi_test --corrupt N also checks every other
# variant still passes. Reported SKIP when the module has no such
# parameter (check.py fails a SKIP when kmod/primbench_kmod.c on the host
# has one).
corrupt_step() { # NAME NUMBER OP VARIANT [PRIMBENCH OPTION]
	why=""
	if [ $has_corrupt = no ]; then
		say "CHECK $1 SKIP the module has no corrupt_variant parameter"
		return
	fi
	run 60 /tmp/insmod.out insmod /primbench_kmod.ko corrupt_variant="$2"
	if [ $rc -ne 0 ] || [ "$(cat /sys/module/primbench_kmod/parameters/corrupt_variant 2>&1)" != "$2" ]; then
		why="insmod corrupt_variant=$2: exit $rc"
		show /tmp/insmod.out
	else
		run 240 /tmp/abi.out /bin/abi_test --corrupt "$2"
		abi_secs=$secs
		n_pass=$(grep -c '^PASS' /tmp/abi.out)
		if [ $rc -ne 0 ] || grep -q '^FAIL' /tmp/abi.out; then
			why="abi_test --corrupt $2: exit $rc, $(grep -c '^FAIL' /tmp/abi.out) FAIL lines"
		fi
		show /tmp/abi.out
		# primbench refuses to time it: exit 2, a line naming it, no file
		rm -f /tmp/c.json
		timeout -s KILL 240 $pb kernel "$3" --variants "$4" --budget 0.01 $5 \
			-o /tmp/c.json >/tmp/c.stdout 2>/tmp/c.err
		rc=$?
		if [ $rc -ne 2 ] || [ -e /tmp/c.json ] || ! grep -q "$4" /tmp/c.err; then
			why="${why:+$why; }primbench kernel $3 --variants $4: exit $rc (want 2, a stderr line naming $4, no file)"
		fi
		show /tmp/c.err
		run 60 /tmp/rmmod.out rmmod primbench_kmod
		[ $rc -eq 0 ] || why="${why:+$why; }rmmod: exit $rc"
		show /tmp/rmmod.out
	fi
	if [ -z "$why" ]; then
		pass "$1" "variant $2 ($3 $4) corrupted: CHECK gave EIO at the corrupted byte, $n_pass passed (${abi_secs}s); primbench exit 2"
	else
		fail "$1" "$why"
	fi
}
corrupt_step corrupt 4 clear_page rep_stosb
corrupt_step corrupt_copy_page 16 copy_page rep_movsb
corrupt_step corrupt_user_copy 30 user_copy copy_to_user --sizes=4K

say BOOT-DMESG-BEGIN
cat /tmp/boot-dmesg.txt
say BOOT-DMESG-END
say DMESG-BEGIN
dmesg
say DMESG-END
say "DONE $passed passed, $failed failed"
sync
poweroff -f
