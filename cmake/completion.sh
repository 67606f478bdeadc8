#!/bin/sh
# The build's completion files (cmake/install.cmake): DIR/primbench (bash)
# and DIR/_primbench (zsh), printed by the primbench just built, run as the
# rest of the command line says (under the cross build's emulator there).
# $1 = DIR, then the command that runs primbench.
set -eu
dir=$1
shift
# PRIMBENCH_PARSE_ONLY would stop `completion` before it prints
unset PRIMBENCH_PARSE_ONLY
"$@" completion bash >"$dir/primbench.tmp"
"$@" completion zsh >"$dir/_primbench.tmp"
[ -s "$dir/primbench.tmp" ] && [ -s "$dir/_primbench.tmp" ] ||
	{ echo "primbench completion printed nothing" >&2; exit 1; }
mv "$dir/primbench.tmp" "$dir/primbench"
mv "$dir/_primbench.tmp" "$dir/_primbench"
