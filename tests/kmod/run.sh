#!/bin/sh
# run.sh - make test-kmod: the clear_page kernel module (kmod/) and
# `primbench kernel clear_page` in a Debian kernel booted under qemu.
# Nothing is loaded into the host's kernel.
#
#   tests/kmod/run.sh
#
# Steps, each one's seconds printed:
#  1. Debian's kernel of one ABI: the ABI is the one linux-headers-amd64
#     depends on (`apt-cache depends`, at run time; KMOD_ABI=6.1.0-NN
#     overrides). `apt-get download` fetches linux-headers-ABI-amd64,
#     linux-headers-ABI-common, the linux-kbuild-X.Y they depend on and
#     linux-image-ABI-amd64 into $KMOD_DIR/debs/ABI/ (kept: a second run
#     downloads nothing; another ABI's are removed). A failed download
#     runs `apt-get update` (a fresh machine's lists may be missing or
#     name an ABI the mirror dropped), resolves the ABI again and retries,
#     3 tries in all.
#  2. `dpkg-deb -x` unpacks the headers and kbuild into $KMOD_DIR/root/ABI/
#     (and the image's /boot only); the headers' one-line Makefile includes
#     /usr/src/linux-headers-ABI-common/Makefile by its absolute path, which
#     is rewritten to the unpacked copy (the scripts and tools symlinks are
#     relative and resolve inside the unpacked tree).
#  3. The module is built from a copy of kmod/ and kmod_abi.h in
#     $KMOD_DIR/src/ (`make -C $KMOD_DIR/src/kmod KDIR=...`: kmod/ itself
#     gets no module for Debian's kernel) with the compiler the headers
#     were configured with (their linux-compiler-gcc-N-x86 dependency,
#     gcc-N; gcc-12 when the lists do not say); the static primbench is built in
#     build-static/ (make static's configuration, the primbench target
#     only: cmake rebuilds nothing that is up to date); tests/kmod/abi_test.c
#     is compiled with gcc -static.
#  4. An initramfs (cpio newc, gzip): /init (tests/kmod/init.sh),
#     /bin/busybox (busybox-static), the .ko, primbench and abi_test.
#  5. qemu-system-x86_64 -M q35 -m 1024 -cpu max boots it, serial console
#     to $KMOD_DIR/serial.log. KVM when /dev/kvm opens and the boot
#     reaches /init's first line within KMOD_KVM_PROBE seconds (default
#     20; TCG gets there in under 10 here); TCG otherwise. -smp 2. The
#     whole boot is limited to KMOD_TIMEOUT seconds (default 600; the VM
#     takes about 60 under TCG here).
#  6. tests/kmod/check.py reads the log: init's checks, the kernel log,
#     the result files (valid JSON, every case with samples; primbench
#     report reads them).
#
# Environment: KMOD_ABI (6.1.0-NN; tested on Debian 12 hosts), KMOD_DIR (default build-kmod),
# KMOD_ACCEL (auto, kvm or tcg; default auto), KMOD_TIMEOUT, KMOD_KVM_PROBE,
# KMOD_BUDGET (each measured run's --budget inside the VM, default 0.02),
# KMOD_KO (a module built already, for this ABI: make kmod is not run).
# Missing tools fail (no skip): scripts/deps.sh kmod installs them.
# Exit status: 0 when every check passed, 1 otherwise.
set -eu
cd "$(dirname "$0")/../.."

dir=${KMOD_DIR:-build-kmod}
accel=${KMOD_ACCEL:-auto}
timeout_s=${KMOD_TIMEOUT:-600}
probe_s=${KMOD_KVM_PROBE:-20}
budget=${KMOD_BUDGET:-0.02}
static_dir=${STATIC_BUILD:-build-static}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)

t_start=$(date +%s)
die() {
	echo "test-kmod: FAIL: $*" >&2
	echo "test-kmod: FAIL ($(($(date +%s) - t_start)) s)"
	exit 1
}
step() { echo "test-kmod: [$(($(date +%s) - t_start)) s] $*"; }

# --- tools: a missing one is a failure, never a skip
for tool in apt-get apt-cache dpkg-deb tar qemu-system-x86_64 cpio gzip gcc make cmake python3 readelf strings; do
	command -v "$tool" >/dev/null 2>&1 ||
		die "$tool not found: run scripts/deps.sh kmod (as root it installs qemu-system-x86, cpio, busybox-static, gcc-12, ...)"
done
# The host this is tested on: Debian 12 (its kernel 6.1's packages and
# gcc-12). Elsewhere it is tried all the same.
os_id=$(sed -n 's/^ID=//p' /etc/os-release 2>/dev/null | tr -d '"')
os_ver=$(sed -n 's/^VERSION_ID=//p' /etc/os-release 2>/dev/null | tr -d '"')
if [ "$os_id $os_ver" != "debian 12" ]; then
	echo "test-kmod: note: make test-kmod is tested on Debian 12 hosts; this one is ${os_id:-unknown} ${os_ver:-?}"
fi
busybox=""
for b in /bin/busybox /usr/bin/busybox; do
	if [ -x "$b" ] && ! readelf -d "$b" 2>/dev/null | grep -q NEEDED; then
		busybox=$b
		break
	fi
done
[ -n "$busybox" ] || die "no static busybox (Debian: busybox-static): run scripts/deps.sh kmod"

# --- 1. the ABI and its packages
# resolve_abi: prints the ABI (Debian 12: 6.1.0-NN; Debian 13:
# 6.12.NN+deb13) from linux-headers-amd64's dependency.
resolve_abi() {
	apt-cache depends linux-headers-amd64 2>/dev/null |
		sed -n 's/^ *Depends: linux-headers-\([0-9][^ ]*\)-amd64$/\1/p' | head -n1
}
apt_updated=0
apt_update() {
	if [ $apt_updated -eq 0 ]; then
		echo "test-kmod: apt-get update"
		[ "$(id -u)" -eq 0 ] || die "the package lists need an update (apt-get update), which needs root"
		apt-get update -qq || echo "test-kmod: apt-get update failed"
		apt_updated=1
	fi
}
abi=${KMOD_ABI:-}
if [ -z "$abi" ]; then
	abi=$(resolve_abi)
	if [ -z "$abi" ]; then
		apt_update
		abi=$(resolve_abi)
	fi
	[ -n "$abi" ] || die "apt-cache depends linux-headers-amd64 names no linux-headers-ABI-amd64 (no Debian package lists?)"
fi
case "$abi" in
"" | [!0-9]* | *[!0-9a-z.+~-]*) abi_ok=no ;;
*.*) abi_ok=yes ;;
*) abi_ok=no ;;
esac
[ $abi_ok = yes ] || die "KMOD_ABI=$abi: want a Debian kernel ABI like 6.1.0-57 (or 6.12.41+deb13)"

# fetch ABI: the four .debs into $dir/debs/ABI (returns 1 when one fails)
fetch() {
	d=$dir/debs/$1
	mkdir -p "$d"
	kbuild=$(apt-cache depends "linux-headers-$1-amd64" 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-kbuild-[0-9][^ ]*\)$/\1/p' | head -n1)
	if [ -z "$kbuild" ]; then
		# Known from a previous download?
		kbuild=$(cd "$d" && find . -name 'linux-kbuild-*.deb' | sed 's|^\./||; s/_.*//' | head -n1)
	fi
	[ -n "$kbuild" ] || {
		echo "test-kmod: linux-headers-$1-amd64: no linux-kbuild dependency in the package lists"
		return 1
	}
	for p in "linux-headers-$1-amd64" "linux-headers-$1-common" "$kbuild" "linux-image-$1-amd64"; do
		# A .deb kept from before is used when it was unpacked whole, or
		# dpkg-deb reads it to its end (a download cut short is fetched
		# again).
		for f in "$d/${p}_"*.deb; do
			[ -f "$f" ] || continue
			grep -q -F "./${f##*/} " "$dir/root/$1/.unpacked" 2>/dev/null && continue
			if ! dpkg-deb --fsys-tarfile "$f" 2>/dev/null | tar -t >/dev/null 2>&1; then
				echo "test-kmod: ${f##*/}: damaged, fetched again"
				rm -f "$f"
			fi
		done
		ls "$d/${p}_"*.deb >/dev/null 2>&1 && continue
		echo "test-kmod: apt-get download $p"
		# apt-get download writes into the current directory; as root it
		# warns that the _apt user cannot write there: the download itself
		# is unsandboxed, which is all this needs.
		(cd "$d" && apt-get download -q "$p" 2>&1 | grep -v -e 'unsandboxed as root' -e '^W: *$') || true
		ls "$d/${p}_"*.deb >/dev/null 2>&1 || return 1
	done
	return 0
}
step "kernel ABI $abi${KMOD_ABI:+ (KMOD_ABI)}"
tries=0
until fetch "$abi"; do
	tries=$((tries + 1))
	[ $tries -lt 3 ] || die "could not download Debian's kernel $abi after 3 tries"
	apt_update
	if [ -z "${KMOD_ABI:-}" ]; then
		new=$(resolve_abi)
		if [ -n "$new" ] && [ "$new" != "$abi" ]; then
			echo "test-kmod: the package lists now name ABI $new"
			abi=$new
		fi
	fi
	sleep $((tries * 5))
done
debs=$dir/debs/$abi
ls -l "$debs"
# Another ABI's downloads and unpacked tree (the lists moved on) go.
for old in "$dir"/debs/* "$dir"/root/*; do
	if [ -d "$old" ] && [ "${old##*/}" != "$abi" ]; then
		rm -rf "$old"
	fi
done

# --- 2. unpack
root=$dir/root/$abi
kdir=$root/usr/src/linux-headers-$abi-amd64
stamp=$root/.unpacked
want=$(cd "$debs" && find . -name '*.deb' | sort | tr '\n' ' ')
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
	step "unpacking into $root"
	rm -rf "$root"
	mkdir -p "$root"
	for deb in "$debs"/*.deb; do
		case "$deb" in
		*/linux-image-*)
			# only /boot (the modules, ~400 MB unpacked, are not needed)
			dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$root" ./boot
			;;
		*) dpkg-deb -x "$deb" "$root" ;;
		esac
	done
	# include /usr/src/linux-headers-ABI-common/Makefile -> the unpacked one
	sed -i "s|^include /usr/src/|include $root/usr/src/|" "$kdir/Makefile"
	grep -q "^include $root/" "$kdir/Makefile" ||
		die "$kdir/Makefile: not the one-line include of the -common Makefile: $(cat "$kdir/Makefile")"
	echo "$want" >"$stamp"
fi
vmlinuz=$root/boot/vmlinuz-$abi-amd64
[ -f "$vmlinuz" ] || die "$vmlinuz: missing from linux-image-$abi-amd64"
[ -e "$kdir/scripts/basic/fixdep" ] || die "$kdir/scripts: not resolved inside $root (linux-kbuild unpacked?)"

# --- 3. builds
if [ -n "${KMOD_KO:-}" ]; then
	step "the module: $KMOD_KO (KMOD_KO; make kmod not run)"
	ko=$KMOD_KO
else
	# The compiler the headers were configured with (their .kernelvariables
	# name it as CC): linux-headers-ABI-amd64 depends on
	# linux-compiler-gcc-N-x86, which depends on gcc-N; gcc-12 (Debian 12's)
	# when the lists do not say.
	kcc=$(apt-cache depends "linux-headers-$abi-amd64" 2>/dev/null |
		sed -n 's/^ *Depends: linux-compiler-\(gcc-[0-9][0-9]*\)-x86$/\1/p' | head -n1)
	kcc=${kcc:-gcc-12}
	command -v "$kcc" >/dev/null 2>&1 ||
		die "$kcc (the compiler of linux-headers-$abi-amd64) not found: run scripts/deps.sh kmod (as root it installs it)"
	# Built from a copy in $dir/src: a module for Debian's kernel left in
	# kmod/ would be what `sudo insmod kmod/primbench_kmod.ko` on this
	# machine finds ("Invalid module format"). The copy keeps the layout
	# kmod/Kbuild's -I$(src)/../include needs.
	src=$dir/src
	rm -rf "$src"
	mkdir -p "$src/kmod" "$src/include/primbench"
	cp kmod/Kbuild kmod/Makefile kmod/*.c "$src/kmod/"
	cp include/primbench/kmod_abi.h "$src/include/primbench/"
	step "make -C $src/kmod KDIR=$kdir (a copy of kmod/; $kcc)"
	make -C "$src/kmod" KDIR="$kdir" || die "the module did not build"
	ko=$src/kmod/primbench_kmod.ko
	[ -f "$ko" ] || die "make -C $src/kmod made no primbench_kmod.ko"
fi
vermagic=$(strings "$ko" | sed -n 's/^vermagic=//p' | head -n1)
case "$vermagic" in
"$abi-amd64 "*) echo "test-kmod: $ko: vermagic $vermagic" ;;
*) die "$ko: vermagic '$vermagic' is not for $abi-amd64" ;;
esac

step "static primbench ($static_dir/, make static's configuration)"
cmake -S . -B "$static_dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPRIMBENCH_WERROR=OFF \
	-DPRIMBENCH_STATIC=ON >"$dir/cmake-static.log" 2>&1 ||
	{
		cat "$dir/cmake-static.log"
		die "cmake (static) failed"
	}
cmake --build "$static_dir" -j "$(nproc)" --target primbench || die "the static primbench did not build"
pb=$static_dir/primbench
readelf -d "$pb" | grep -q 'There is no dynamic section' || die "$pb is not statically linked"

step "abi_test (gcc -static)"
[ -f tests/kmod/abi_test.c ] || die "tests/kmod/abi_test.c missing"
gcc -std=gnu11 -O2 -Wall -Wextra -Werror -static -Iinclude -o "$dir/abi_test" tests/kmod/abi_test.c ||
	die "tests/kmod/abi_test.c did not compile"

# --- 4. initramfs
step "initramfs"
ird=$dir/initramfs
rm -rf "$ird"
mkdir -p "$ird/bin"
cp "$busybox" "$ird/bin/busybox"
cp tests/kmod/init.sh "$ird/init"
chmod 755 "$ird/init"
cp "$ko" "$ird/primbench_kmod.ko"
cp "$pb" "$ird/bin/primbench"
cp "$dir/abi_test" "$ird/bin/abi_test"
(cd "$ird" && find . | sort | cpio -o -H newc --quiet -R 0:0) | gzip -1 >"$dir/initramfs.cpio.gz"
ls -l "$dir/initramfs.cpio.gz"

# --- 5. boot
log=$dir/serial.log
# boot ACCEL: qemu in the background, serial console to $log; sets qpid
# (qemu's own: nothing between it and this script, so that a KILL ends it).
boot() {
	: >"$log"
	# -nographic: the serial console on stdio (stdin: nothing), no monitor
	# to type into; -no-reboot: a panic (panic=-1) ends qemu.
	qemu-system-x86_64 -M q35 -accel "$1" -m 1024 -cpu max -smp 2 \
		-nographic -no-reboot -nic none -kernel "$vmlinuz" -initrd "$dir/initramfs.cpio.gz" \
		-append "console=ttyS0 panic=-1 quiet pb_budget=$budget pb_accel=$1" \
		</dev/null >"$log" 2>&1 &
	qpid=$!
}
# alive: qemu has not exited (a zombie not yet waited for counts as exited)
alive() {
	[ -n "$qpid" ] || return 1
	st=$(cut -d' ' -f3 "/proc/$qpid/stat" 2>/dev/null) || return 1
	[ -n "$st" ] && [ "$st" != Z ]
}
# stop_qemu: KILL it, wait for it
stop_qemu() {
	if [ -n "$qpid" ]; then
		kill -KILL "$qpid" 2>/dev/null || true
		wait "$qpid" 2>/dev/null || true
		qpid=""
	fi
}
# marker_within SECONDS: 0 when /init's first line appears in time
marker_within() {
	n=0
	while [ $n -lt $(($1 * 2)) ]; do
		grep -q 'PB-KMOD: init' "$log" && return 0
		alive || return 1
		sleep 0.5
		n=$((n + 1))
	done
	return 1
}
# wait_qemu SECONDS: until qemu exits, KILLed after SECONDS (from its
# start); sets qrc (137 when killed)
wait_qemu() {
	n=0
	while alive; do
		if [ $n -ge $(($1 * 2)) ]; then
			echo "test-kmod: qemu killed after KMOD_TIMEOUT=$1 s"
			kill -KILL "$qpid" 2>/dev/null || true
			break
		fi
		sleep 0.5
		n=$((n + 1))
	done
	qrc=0
	wait "$qpid" || qrc=$?
	qpid=""
}
# qemu goes with this script, however it ends (a background job of a
# script ignores the terminal's Ctrl-C).
qpid=""
trap stop_qemu EXIT
trap 'stop_qemu; exit 130' INT
trap 'stop_qemu; exit 143' TERM
used=""
if [ "$accel" = auto ] || [ "$accel" = kvm ]; then
	if [ -r /dev/kvm ] && [ -w /dev/kvm ]; then
		step "boot under KVM (/init within ${probe_s} s, or TCG)"
		boot kvm
		if marker_within "$probe_s"; then
			used=kvm
		else
			stop_qemu
			echo "test-kmod: KVM did not reach /init in ${probe_s} s; its log's end:"
			tail -n 5 "$log" | sed 's/\x1b\[[0-9;?]*[A-Za-z]//g; s/\x1bc//g; s/\r//g' |
				awk '{ print "    | " $0 }'
			cp "$log" "$dir/serial-kvm.log"
			[ "$accel" = kvm ] && die "KMOD_ACCEL=kvm and KVM did not boot"
		fi
	else
		[ "$accel" = kvm ] && die "KMOD_ACCEL=kvm and /dev/kvm cannot be opened"
		echo "test-kmod: no usable /dev/kvm"
	fi
fi
if [ -z "$used" ]; then
	step "boot under TCG (timings under emulation mean nothing)"
	boot tcg
	used=tcg
fi
wait_qemu "$timeout_s"
step "qemu ($used) exited $qrc; serial log: $log"

# --- 6. checks
rc=0
python3 tests/kmod/check.py --log "$log" --out "$dir/out" --primbench "$pb" || rc=$?
[ $qrc -eq 0 ] || rc=1
total=$(($(date +%s) - t_start))
if [ $rc -eq 0 ]; then
	echo "test-kmod: PASS (kernel $abi-amd64 under $used, $total s)"
else
	echo "test-kmod: FAIL (kernel $abi-amd64 under $used, $total s; serial log: $log)"
	exit 1
fi
