#!/bin/sh
# static.sh - the checks of the static primbench (make static;
# docs/install.md, "A static binary").
#
#   static.sh --file PRIMBENCH LIBPRIMSWITCH EXIT0_STATIC EXIT0_DYNAMIC
#       file(1) calls PRIMBENCH statically linked, and readelf finds no
#       dynamic section and no interpreter. Copied into a temporary
#       directory with libprimswitch.so beside it and the tiny programs in
#       tools/ (build-static/'s own layout), it preloads that copy of the
#       library into a command and runs the syscall suite's exec targets;
#       hwloc, offered a plugin, does not load it.
#   static.sh --chroot PRIMBENCH
#       As root: a chroot holding nothing but the binary, /proc and /sys
#       (bound read-only) and an empty /tmp, so no libc, jansson, GSL,
#       hwloc or zlib: `primbench selftest`, `primbench info` and
#       `primbench run --budget 0.05 -q -o /tmp/x.json` run in it; each
#       step's seconds are printed. The mounts live in a mount namespace
#       of their own (unshare), so they vanish with it even if the test is
#       killed; they are unmounted at the end all the same. Not root, or
#       no unshare/chroot: skipped (77).
set -eu

fail() {
	echo "FAIL: $*"
	exit 1
}
now() { date +%s.%N; }
seconds() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

[ $# -ge 2 ] || fail "usage: static.sh --file PRIMBENCH LIBPRIMSWITCH EXIT0_STATIC EXIT0_DYNAMIC | --chroot PRIMBENCH"
mode=$1
pb=$2
[ -x "$pb" ] || fail "$pb: not an executable"

static_file() {
	command -v file >/dev/null 2>&1 || fail "file(1) not found (Debian: file)"
	what=$(file -L "$pb")
	case "$what" in
	*"statically linked"*) ;;
	*) fail "file: $what" ;;
	esac
	# A static-pie would say "static-pie linked"; -static makes neither an
	# interpreter nor a dynamic section.
	readelf -l "$pb" | grep -q 'INTERP' && fail "$pb has a program interpreter"
	readelf -d "$pb" | grep -q 'There is no dynamic section' || fail "$pb has a dynamic section"
	echo "file: $what"
	echo "size: $(wc -c <"$pb") bytes"
}

if [ "$mode" = --file ]; then
	[ $# -eq 5 ] || fail "--file PRIMBENCH LIBPRIMSWITCH EXIT0_STATIC EXIT0_DYNAMIC"
	static_file
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	mkdir "$tmp/bin" "$tmp/bin/tools"
	cp "$pb" "$tmp/bin/primbench"
	cp "$3" "$tmp/bin/libprimswitch.so"
	cp "$4" "$5" "$tmp/bin/tools/"
	# The library beside the copied binary, not the build tree's: the
	# command prints the LD_PRELOAD it was given.
	# shellcheck disable=SC2016
	"$tmp/bin/primbench" cmd -n 1 --shell --show-output --memset bytes \
		-- 'echo "preload=$LD_PRELOAD"' >"$tmp/cmd.out" 2>&1 ||
		{
			cat "$tmp/cmd.out"
			fail "static primbench cmd --memset"
		}
	real=$(cd "$tmp/bin" && pwd -P)
	grep -q "^preload=$real/libprimswitch.so\$" "$tmp/cmd.out" ||
		{
			cat "$tmp/cmd.out"
			fail "the static primbench did not preload the libprimswitch.so beside it"
		}
	# The exec targets from tools/ beside it (one static, one dynamic).
	"$tmp/bin/primbench" syscall exec-static exec-dynamic --cpu 0 --budget 0.01 \
		--min-samples 3 --max-samples 3 >"$tmp/sys.out" 2>&1 ||
		{
			cat "$tmp/sys.out"
			fail "static primbench syscall (exec targets beside it)"
		}
	# No hwloc plugin is loaded (src/static/static_link.c): a plugin
	# directory with one candidate, and hwloc's verbose plugin log.
	mkdir "$tmp/plugins"
	: >"$tmp/plugins/hwloc_fake.so"
	HWLOC_PLUGINS_PATH=$tmp/plugins HWLOC_PLUGINS_VERBOSE=1 "$tmp/bin/primbench" info \
		>"$tmp/info.out" 2>&1 || {
		cat "$tmp/info.out"
		fail "static primbench info with a plugin directory"
	}
	grep -q "Failed to load plugin: plugins are not loaded by a static primbench" "$tmp/info.out" ||
		{
			cat "$tmp/info.out"
			fail "hwloc tried a plugin, and not through the static build's dlopen"
		}
	echo "static primbench: statically linked; preloads the libprimswitch.so beside it; runs tools/; loads no hwloc plugin: ok"
	exit 0
fi

[ "$mode" = --chroot ] || fail "unknown mode '$mode'"
static_file
if [ "$(id -u)" -ne 0 ]; then
	echo "skipped: the chroot test needs root"
	exit 77
fi
for c in unshare chroot mount umount; do
	command -v "$c" >/dev/null 2>&1 || {
		echo "skipped: $c not found (util-linux, coreutils)"
		exit 77
	}
done

root=$(mktemp -d)
steps=$(mktemp)
trap 'rm -rf "$root" "$steps"' EXIT
mkdir "$root/proc" "$root/sys" "$root/tmp"
chmod 1777 "$root/tmp"
cp "$pb" "$root/primbench"
[ "$(find "$root" -type f | wc -l)" -eq 1 ] || fail "the chroot holds more than the binary"

# Run in the new mount namespace: the mounts, each step (its name, then
# the command; prints its seconds), the unmounts.
cat >"$steps" <<'EOF'
set -eu
root=$1
mount -o bind,ro /proc "$root/proc"
mount -o bind,ro /sys "$root/sys"
rc=0
step() {
	name=$1
	shift
	t0=$(date +%s.%N)
	if chroot "$root" "$@" >"$root/$name.out" 2>&1; then
		t1=$(date +%s.%N)
		awk -v n="$name" -v a="$t0" -v b="$t1" 'BEGIN { printf "%-8s ok, %.1f s\n", n, b - a }'
	else
		echo "$name: FAILED ($*):"
		cat "$root/$name.out"
		rc=1
	fi
}
step selftest /primbench selftest
step info /primbench info
step run /primbench run --budget 0.05 -q -o /tmp/x.json
umount "$root/sys" "$root/proc"
exit $rc
EOF
t0=$(now)
unshare --mount --propagation private sh "$steps" "$root" || fail "a step failed in the chroot"
t1=$(now)
[ -s "$root/tmp/x.json" ] || fail "the default run wrote no /tmp/x.json"
grep -q '"cases"' "$root/tmp/x.json" || fail "/tmp/x.json has no cases"
grep -q '^selftest.*0 failed' "$root/selftest.out" || {
	cat "$root/selftest.out"
	fail "selftest's summary"
}
# What the default run says about what the chroot lacks (the tiny programs,
# the size distributions), for the log.
grep -E 'not run|not found' "$root/run.out" | head -n 5 || true
echo "chroot with only the static binary: selftest, info, run: ok ($(seconds "$t0" "$t1") s)"
