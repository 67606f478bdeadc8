#!/bin/sh
# Tab completion (`primbench completion bash|zsh`, src/cli/cmd_completion.c)
# offers what the parser takes and the help texts document. The bash
# script runs in bash with COMP_WORDS and COMP_CWORD set as bash sets them
# (it splits "--opt=value" at '='):
#  - `primbench <TAB>`: the subcommands of `primbench --help`;
#  - `primbench SUB --<TAB>` for every subcommand (and `mem map`, and no
#    subcommand: run's): every word is accepted by SUB's parser
#    ("SUB --opt=x --help" is never "unknown option"); every word is in
#    `primbench SUB --help` (--help aside, which some texts give as -h
#    only; run's text names the rest of its options in mem's); and every
#    long option `SUB --help` names that SUB's parser takes as its own (not
#    as an abbreviation of a longer one) is offered;
#  - the values: -f's are the formats the parser's error names (compare's
#    own four), --kernels' are `all` and the kernels `primbench list`
#    gives, in lists (a,b: all not after a comma) and after '='; mem's operand; -o and the words
#    after `--` are left to file names.
# With --zsh, the zsh script instead (exit 77 without zsh): it loads in
# `zsh -f` after compinit, defines _primbench and registers it for
# primbench, and compinit finds it in $fpath too; its function offers
# --cache for `mem --ca` there, and --kernels=libc after "--kernels=li".
# $1 = primbench; then --zsh, or (optional) the build's generated bash and
# zsh files, which must be what `primbench completion bash|zsh` prints.
set -eu
bin=$1
zsh_only=false
[ "${2:-}" = --zsh ] && zsh_only=true
words() { tr ' ,' '\n\n' | sed '/^$/d' | sort -u; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if $zsh_only && ! command -v zsh >/dev/null; then
	echo "SKIP: zsh not found (Debian package zsh: sh scripts/deps.sh completion)"
	exit 77
fi
"$bin" completion bash >"$tmp/primbench.bash"
bash -n "$tmp/primbench.bash" || { echo "FAIL: the bash script does not parse"; exit 1; }
if [ $# -ge 3 ] && ! $zsh_only; then
	cmp -s "$2" "$tmp/primbench.bash" || { echo "FAIL: $2 is not 'primbench completion bash'"; exit 1; }
	"$bin" completion zsh | cmp -s "$3" - || { echo "FAIL: $3 is not 'primbench completion zsh'"; exit 1; }
fi
"$bin" completion zsh >"$tmp/_primbench"
# the values' sources: report's and compare's errors, list's kernels
"$bin" report -f nosuch x 2>&1 | tr '\n' ' ' | sed -n 's/.*(\(.*\)).*/\1/p' | words >"$tmp/formats"
"$bin" compare -f nosuch a b 2>&1 | tr '\n' ' ' | sed -n 's/.*(\(.*\)).*/\1/p' | words >"$tmp/cformats"
{
	echo all
	"$bin" list | sed -n 's|^[a-z_]*/\([a-z0-9_]*\) .*|\1|p'
} | sort -u >"$tmp/kernels"
# the parser's answers below: nothing runs
export PRIMBENCH_PARSE_ONLY=1
bad=0
fail() {
	echo "FAIL: $*"
	bad=1
}

if $zsh_only; then
	zsh -n "$tmp/_primbench" || fail "the zsh script does not parse"
	# shellcheck disable=SC2016
	out=$(HOME=$tmp zsh -f -c 'autoload -U compinit && compinit -u -d "$HOME/.zcd"
		source "$1"
		whence -w _primbench; print -r -- "${_comps[primbench]}"
		emulate sh -c "COMP_WORDS=(primbench mem --ca); COMP_CWORD=2; _primbench"
		print -r -- "${COMPREPLY[@]}"
		emulate sh -c "COMP_WORDS=(primbench mem --kernels=li); COMP_CWORD=2; _primbench"
		print -r -- "${COMPREPLY[@]}"' zsh "$tmp/_primbench" 2>&1)
	echo "$out" | grep -qx '_primbench: function' || fail "zsh: no function _primbench after loading: $out"
	echo "$out" | grep -q '^_bash_complete.*-F _primbench' || fail "zsh: primbench's completion is not _primbench: $out"
	echo "$out" | grep -qw -- --cache || fail "zsh: 'mem --ca' does not offer --cache: $out"
	echo "$out" | grep -qw -- --kernels=libc || fail "zsh: 'mem --kernels=li' does not offer --kernels=libc: $out"
	mkdir "$tmp/fpath"
	cp "$tmp/_primbench" "$tmp/fpath/"
	# shellcheck disable=SC2016
	out=$(HOME=$tmp zsh -f -c 'fpath=("$1" $fpath); autoload -U compinit && compinit -u -d "$HOME/.zcd2"
		print -r -- "${_comps[primbench]}"' zsh "$tmp/fpath" 2>&1)
	[ "$out" = _primbench ] || fail "zsh: compinit does not take _primbench from \$fpath: $out"
	[ $bad = 0 ] && echo "zsh: loads, defines _primbench, found in \$fpath, offers --cache and --kernels=libc"
	exit $bad
fi
# comp WORD...: the replies, one a line, sorted, for the last WORD
comp() {
	bash -c '. "$0"; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _primbench
		[ ${#COMPREPLY[@]} = 0 ] || printf "%s\n" "${COMPREPLY[@]}"' "$tmp/primbench.bash" "$@" |
		sort
}
# expect EXPECTED-FILE WORD...: the replies for the last WORD are the file's
expect() {
	want=$1
	shift
	comp "$@" >"$tmp/got"
	if ! cmp -s "$tmp/got" "$want"; then
		fail "'$*<TAB>' offers:"
		diff "$want" "$tmp/got" | sed 's/^/    /'
	fi
}

subs=$("$bin" --help | awk '/^subcommands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { exit }')
[ -n "$subs" ] || { echo "FAIL: no subcommands in 'primbench --help'"; exit 1; }
echo "$subs" | words >"$tmp/subs"
comp primbench '' >"$tmp/got"
cmp -s "$tmp/got" "$tmp/subs" || { fail "'primbench <TAB>' is not the subcommands:"; diff "$tmp/subs" "$tmp/got"; }

longopts() { grep -oE -- '--[a-z][a-z0-9-]*[a-z0-9]' | sort -u; }
"$bin" mem --help | longopts >"$tmp/mem.help"
n=0
for s in $subs map; do
	sub=$s
	[ "$s" = map ] && sub="mem map"
	# shellcheck disable=SC2086
	comp primbench $sub -- >"$tmp/offered"
	[ -s "$tmp/offered" ] || { fail "'primbench $sub --<TAB>' offers nothing"; continue; }
	# shellcheck disable=SC2086
	"$bin" $sub --help 2>&1 | longopts >"$tmp/help"
	while read -r o; do
		n=$((n + 1))
		# shellcheck disable=SC2086
		"$bin" $sub "$o=x" --help >"$tmp/try" 2>&1 </dev/null || true
		grep -q "unknown option" "$tmp/try" && fail "'$sub' offers $o, its parser refuses it"
		grep -qx -- "$o" "$tmp/help" || [ "$o" = --help ] ||
			{ [ "$s" = run ] && grep -qx -- "$o" "$tmp/mem.help"; } ||
			fail "'$sub' offers $o, '$sub --help' does not name it"
	done <"$tmp/offered"
	while read -r o; do
		grep -qx -- "$o" "$tmp/offered" && continue
		# named in the text as another subcommand's, or an abbreviation
		grep -q -- "^$o" "$tmp/offered" && continue
		# shellcheck disable=SC2086
		"$bin" $sub "$o=x" --help >"$tmp/try" 2>&1 </dev/null || true
		grep -q "unknown option" "$tmp/try" || fail "'$sub --help' names $o, its parser takes it, completion does not offer it"
	done <"$tmp/help"
done
[ $n -gt 150 ] || fail "only $n options offered"
comp primbench -- >"$tmp/got"
comp primbench run -- | cmp -s "$tmp/got" - || fail "'primbench --<TAB>' is not run's options"

# the values
echo --cache >"$tmp/want"
expect "$tmp/want" primbench mem --ca
[ "$(wc -l <"$tmp/formats")" -ge 4 ] || fail "no formats in report's error"
expect "$tmp/formats" primbench report -f ''
expect "$tmp/formats" primbench report --format ''
expect "$tmp/formats" primbench mem --format =
expect "$tmp/cformats" primbench compare -f ''
[ "$(wc -l <"$tmp/kernels")" -ge 3 ] || fail "no kernels in 'primbench list'"
expect "$tmp/kernels" primbench mem --kernels ''
expect "$tmp/kernels" primbench mem --kernels =
grep -vx all "$tmp/kernels" | sed 's/^/libc,/' >"$tmp/want"
expect "$tmp/want" primbench selftest --kernels libc,
k=$(sed -n 2p "$tmp/kernels")
grep "^$(printf %s "$k" | cut -c1-2)" "$tmp/kernels" >"$tmp/want"
expect "$tmp/want" primbench run --kernels = "$(printf %s "$k" | cut -c1-2)"
printf '%s\n' memset memcpy memmove clear_page copy_page map | sort >"$tmp/want"
expect "$tmp/want" primbench mem ''
: >"$tmp/empty"
expect "$tmp/empty" primbench mem -o ''
expect "$tmp/empty" primbench cmd -n 3 -- ''
expect "$tmp/empty" primbench mem memset ''
# kernel's operand and its own --cache, --pages and --upper values (not mem's)
printf '%s\n' all clear_page copy_page fpu user_copy >"$tmp/want"
expect "$tmp/want" primbench kernel ''
printf '%s\n' flushed hot >"$tmp/want"
expect "$tmp/want" primbench kernel clear_page --cache ''
printf '%s\n' 2M 4K >"$tmp/want"
expect "$tmp/want" primbench kernel clear_page --pages ''
printf '%s\n' clean dirty dirty512 >"$tmp/want"
expect "$tmp/want" primbench kernel fpu --upper ''
[ $bad = 0 ] && echo "bash: $n options of $(echo "$subs" | wc -w) subcommands and mem map offered, each accepted and documented; values of -f, --kernels, mem's ops"

exit $bad
