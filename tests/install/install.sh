#!/bin/sh
# The install test: `cmake --install BUILD --prefix TMP`, then
#  - a tiny C program built with `cc $(pkg-config --cflags --libs primbench)`
#    (PKG_CONFIG_PATH into TMP only) calls a kernel and the timer;
#  - the installed primbench runs (--version, list) and finds the installed
#    libprimswitch.so (not the build tree's) and its installed tiny
#    programs;
#  - the man page and the docs are where `man` and readers look, the
#    completion files where bash-completion and zsh look.
# $1 = the build directory, $2 = this directory (consumer.c).
set -u
build=$1
here=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

cmake --install "$build" --prefix "$tmp/prefix" >"$tmp/install.log" 2>&1 ||
	{ cat "$tmp/install.log"; fail "cmake --install"; }
p=$tmp/prefix
pc=$(find "$p" -name primbench.pc)
[ -n "$pc" ] || fail "no primbench.pc under the prefix"
for f in bin/primbench include/primbench/kernels.h include/primbench/timer.h \
	share/man/man1/primbench.1 share/doc/primbench/README.md \
	share/bash-completion/completions/primbench share/zsh/vendor-completions/_primbench \
	share/doc/primbench/methodology.md; do
	[ -e "$p/$f" ] || fail "missing $f"
done
lib=$(find "$p" -name libprimbench.a)
[ -n "$lib" ] || fail "no libprimbench.a"
sw=$(find "$p" -name libprimswitch.so)
case "$sw" in */primbench/libprimswitch.so) ;; *) fail "libprimswitch.so at '$sw'" ;; esac

# Build and run a program against the installed library, pkg-config only.
cflags=$(PKG_CONFIG_PATH=$(dirname "$pc") \
	pkg-config --cflags primbench) || fail "pkg-config --cflags"
libs=$(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --libs primbench) ||
	fail "pkg-config --libs"
inc=$(printf '%s\n' $cflags | sed -n 's/^-I//p' | head -n 1)
[ -n "$inc" ] && [ "$(cd "$inc" && pwd -P)" = "$(cd "$p/include" && pwd -P)" ] ||
	fail "cflags '$cflags' do not point into the prefix"
# shellcheck disable=SC2086
cc -std=gnu11 -Wall -Wextra -Werror -o "$tmp/consumer" "$here/consumer.c" $cflags $libs ||
	fail "cc consumer.c $cflags $libs"
out=$("$tmp/consumer") || fail "consumer: $out"
echo "$out"

pb=$p/bin/primbench
"$pb" --version | grep -q '^primbench ' || fail "installed primbench --version"
"$pb" list >/dev/null || fail "installed primbench list"
# The preload path from the installed tree: the command prints the
# LD_PRELOAD it was given.
"$pb" cmd -n 1 --shell --show-output --memset bytes \
	-- 'echo "preload=$LD_PRELOAD"' >"$tmp/cmd.out" 2>&1 ||
	{ cat "$tmp/cmd.out"; fail "installed primbench cmd --memset"; }
grep -q "^preload=$(cd "$p" && pwd -P)/.*/primbench/libprimswitch.so\$" "$tmp/cmd.out" ||
	{ cat "$tmp/cmd.out"; fail "the installed primbench did not preload the installed library"; }
# The syscall suite's exec targets from libexec.
"$pb" syscall exec-static exec-dynamic --cpu 0 --budget 0.01 --min-samples 3 --max-samples 3 >"$tmp/sys.out" 2>&1 ||
	{ cat "$tmp/sys.out"; fail "installed primbench syscall (exec targets)"; }
echo "installed into a temporary prefix: library, pkg-config, CLI, preload, man page: ok"
