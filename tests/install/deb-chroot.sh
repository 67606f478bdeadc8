#!/bin/sh
# deb-chroot.sh DEB... - the Debian package's install test (make test-deb):
#  1. a fresh Debian 12 (bookworm) chroot: debootstrap --variant=minbase,
#     from the mirror this machine's apt uses; the finished chroot is kept
#     as a tarball in $PRIMBENCH_CHROOT_CACHE (default
#     build-deb/chroot-cache/) and unpacked on later runs (delete the
#     tarball to bootstrap afresh);
#  2. /proc and /sys mounted (hwloc reads the topology from /sys), /dev
#     bound only when debootstrap could not make its nodes;
#  3. the .debs copied in and installed with `apt-get install
#     --no-install-recommends ./primbench_*.deb`: the packages apt pulled
#     in are printed, and none may be a -dev package (only the runtime
#     libraries);
#  4. the installed primbench: --version, selftest, `cmd -n 2 --memset K
#     -- true` with K avx2 where `primbench list` has it usable, else the
#     first usable memset kernel it lists (this CPU's, not hard-coded), and
#     the man page (man -P cat when man-db is there, else the file);
#  5. everything unmounted, the chroot removed (also on failure or ^C).
# Each step's seconds are printed, and the total.
# Needs root, debootstrap and the mirror: skips (exit 77, one line)
# without them. PRIMBENCH_DEB_MIRROR overrides the mirror.
set -eu

if [ "$#" -eq 0 ]; then
	echo "usage: $0 DEB..." >&2
	exit 2
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP: deb-chroot needs root (debootstrap, chroot, mount)"
	exit 77
fi
if ! command -v debootstrap >/dev/null 2>&1; then
	echo "SKIP: debootstrap is not installed (sh scripts/deps.sh deb)"
	exit 77
fi
for deb in "$@"; do
	[ -f "$deb" ] || { echo "FAIL: no such file: $deb"; exit 1; }
done

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
arch=$(dpkg --print-architecture)
cache=${PRIMBENCH_CHROOT_CACHE:-$top/build-deb/chroot-cache}
tarball=$cache/bookworm-minbase-$arch.tar.gz

# The mirror of this machine's bookworm (not -security) entry: a deb822
# .sources file's URIs, or a one-line "deb URI bookworm ..." entry.
find_mirror() {
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		awk '$1 == "deb" && $3 == "bookworm" { print $2; exit }' "$f"
	done
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk 'BEGIN { RS = ""; FS = "\n" }
		{
			uri = ""; suite = 0
			for (i = 1; i <= NF; i++) {
				if ($i ~ /^URIs:/) { split($i, w, " "); uri = w[2] }
				if ($i ~ /^Suites:/ && $i ~ /[ \t]bookworm([ \t]|$)/) suite = 1
			}
			if (uri != "" && suite) { print uri; exit }
		}' "$f"
	done
}
mirror=${PRIMBENCH_DEB_MIRROR:-$(find_mirror | head -n 1)}
mirror=${mirror:-http://deb.debian.org/debian}
mirror=${mirror%/}
if ! wget -q -T 15 -t 3 -O /dev/null "$mirror/dists/bookworm/Release"; then
	echo "SKIP: the Debian mirror $mirror is not reachable"
	exit 77
fi

now() { date +%s; }
t_start=$(now)
t_step=$t_start
step() { # step NAME: prints the seconds since the previous step
	t=$(now)
	printf 'deb-chroot: %-28s %4d s\n' "$1" $((t - t_step))
	t_step=$t
}

dir=$(mktemp -d "${TMPDIR:-/var/tmp}/primbench-chroot.XXXXXX")
mounted=""
cleanup() {
	rc=$?
	for m in $mounted; do
		umount "$dir/$m" 2>/dev/null || umount -l "$dir/$m" || true
	done
	# Never remove a tree something is still mounted in (a bound /dev).
	if grep -q " $dir/" /proc/mounts; then
		echo "deb-chroot: still mounted under $dir, not removed" >&2
	else
		rm -rf --one-file-system "$dir"
	fi
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
fail() {
	echo "FAIL: $*"
	exit 1
}
in_chroot() {
	env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
		DEBIAN_FRONTEND=noninteractive chroot "$dir" "$@"
}

echo "deb-chroot: mirror $mirror, chroot $dir, cache $tarball"
if [ -f "$tarball" ]; then
	tar -xzpf "$tarball" -C "$dir" --numeric-owner || fail "unpacking $tarball"
	step "unpack cached chroot"
else
	debootstrap --variant=minbase bookworm "$dir" "$mirror" >"$dir.log" 2>&1 || {
		tail -n 30 "$dir.log"
		rm -f "$dir.log"
		fail "debootstrap"
	}
	rm -f "$dir.log"
	step "debootstrap (minbase)"
	mkdir -p "$cache"
	tar -czpf "$tarball.tmp" -C "$dir" --numeric-owner . || fail "caching the chroot in $tarball"
	mv "$tarball.tmp" "$tarball"
	step "cache the chroot ($(du -m "$tarball" | cut -f1) MB)"
fi

# mktemp's 0700 (also in the tarball): apt's _apt user must get through /.
chmod 755 "$dir"
mount -t proc proc "$dir/proc" || fail "mount /proc"
mounted="proc $mounted"
mount -t sysfs sysfs "$dir/sys" || fail "mount /sys"
mounted="sys $mounted"
if [ ! -c "$dir/dev/null" ]; then
	mount --bind /dev "$dir/dev" || fail "bind /dev"
	mounted="dev $mounted"
fi
cp /etc/resolv.conf "$dir/etc/resolv.conf" 2>/dev/null || true
printf 'deb %s bookworm main\n' "$mirror" >"$dir/etc/apt/sources.list"
in_chroot apt-get update -qq >/dev/null || fail "apt-get update in the chroot"
step "mounts, apt-get update"

mkdir -p "$dir/tmp/debs"
names=""
given=""
for deb in "$@"; do
	cp "$deb" "$dir/tmp/debs/"
	names="$names ./$(basename "$deb")"
	given="$given $(dpkg-deb -f "$deb" Package)"
done
# shellcheck disable=SC2016 # dpkg-query's ${Package}, not the shell's
in_chroot dpkg-query -W -f '${Package}\n' | sort >"$dir/tmp/before"
in_chroot sh -c "cd /tmp/debs && apt-get install -y -qq --no-install-recommends$names" \
	>"$dir/tmp/apt.log" 2>&1 || {
	cat "$dir/tmp/apt.log"
	fail "apt-get install$names"
}
# shellcheck disable=SC2016
in_chroot dpkg-query -W -f '${Package}\n' | sort >"$dir/tmp/after"
pulled=$(comm -13 "$dir/tmp/before" "$dir/tmp/after")
for p in $given; do
	pulled=$(printf '%s\n' "$pulled" | grep -vx "$p" || true)
done
echo "deb-chroot: apt installed$given and: $(printf '%s\n' "$pulled" | tr '\n' ' ')"
dev=$(printf '%s\n' "$pulled" | grep -- '-dev$' || true)
[ -z "$dev" ] || fail "a -dev package was pulled in: $dev"
step "apt-get install (+$(printf '%s\n' "$pulled" | grep -c .) packages)"

in_chroot primbench --version || fail "primbench --version"
in_chroot primbench selftest >"$dir/tmp/selftest.log" 2>&1 || {
	cat "$dir/tmp/selftest.log"
	fail "primbench selftest"
}
echo "deb-chroot: selftest: $(grep -c '^PASS' "$dir/tmp/selftest.log") PASS lines"
step "primbench selftest"

# A memset kernel this CPU runs: avx2 where `primbench list` marks it
# usable ("memset/avx2  avx2  yes"), else the first usable one it lists
# other than libc and auto (those two whatever the CPU).
in_chroot primbench list --op memset >"$dir/tmp/list" 2>&1 || {
	cat "$dir/tmp/list"
	fail "primbench list --op memset"
}
kernel=$(awk '$1 ~ /^memset\// && $NF == "yes" {
		k = substr($1, 8)
		if (k == "avx2") { best = k }
		else if (first == "" && k != "libc" && k != "auto") { first = k }
		else if (any == "") { any = k }
	}
	END { print (best != "" ? best : (first != "" ? first : any)) }' "$dir/tmp/list")
[ -n "$kernel" ] || { cat "$dir/tmp/list"; fail "no usable memset kernel in primbench list"; }
in_chroot primbench cmd -n 2 --memset "$kernel" -- true >"$dir/tmp/cmd.log" 2>&1 || {
	cat "$dir/tmp/cmd.log"
	fail "primbench cmd -n 2 --memset $kernel -- true"
}
cat "$dir/tmp/cmd.log"
# The package's own preload library, found from /usr/bin/primbench.
grep -q "LD_PRELOAD=/usr/lib/[^ /]*/primbench/libprimswitch.so" "$dir/tmp/cmd.log" ||
	fail "cmd did not preload /usr/lib/<triplet>/primbench/libprimswitch.so"
step "cmd -n 2 --memset $kernel"

[ -f "$dir/usr/share/man/man1/primbench.1.gz" ] || fail "no /usr/share/man/man1/primbench.1.gz"
if [ -x "$dir/usr/bin/man" ]; then
	in_chroot man -P cat primbench 2>/dev/null | grep -q primbench || fail "man primbench"
	echo "deb-chroot: man primbench: ok"
else
	echo "deb-chroot: man-db not in the chroot; /usr/share/man/man1/primbench.1.gz is there"
fi
step "man page"

t=$(now)
echo "deb-chroot: PASS in $((t - t_start)) s"
