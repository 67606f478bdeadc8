#!/bin/sh
# check_preload_symbols.sh LIB - libprimswitch.so exports exactly the
# symbols it replaces, and imports none of them (nor any other mem*, bzero
# or bcopy): a call of libc's memset from inside the library would bypass
# its own, and one resolved to itself would recurse. libc's functions are
# reached with dlsym(RTLD_NEXT) only.
# Exit: 0 clean, 1 a difference (printed), 2 usage/nm error.

if [ "$#" -ne 1 ]; then
	echo "usage: $0 LIB" >&2
	exit 2
fi
lib=$1

expected='__explicit_bzero_chk
__memcpy_chk
__memmove_chk
__mempcpy_chk
__memset_chk
bzero
explicit_bzero
memcpy
memmove
mempcpy
memset'

if ! defined=$(nm -D --defined-only "$lib") || ! undefined=$(nm -D --undefined-only "$lib"); then
	echo "$0: nm failed on $lib" >&2
	exit 2
fi
status=0
got=$(printf '%s\n' "$defined" | awk 'NF { print $NF }' | sed 's/@.*//' | LC_ALL=C sort)
want=$(printf '%s\n' "$expected" | LC_ALL=C sort)
if [ "$got" != "$want" ]; then
	echo "FAIL: $lib exports:" >&2
	printf '%s\n' "$got" >&2
	echo "expected exactly:" >&2
	printf '%s\n' "$want" >&2
	status=1
fi
bad=$(printf '%s\n' "$undefined" | awk 'NF { print $NF }' | sed 's/@.*//' |
	grep -E '^_*(mem[a-z0-9_]*|bzero|explicit_bzero|bcopy)(_chk)?$')
for sym in $bad; do
	echo "FAIL: $lib imports $sym" >&2
	status=1
done
if [ $status -eq 0 ]; then
	echo "exports: $(printf '%s\n' "$got" | tr '\n' ' ')"
	echo "imports no mem*, bzero, explicit_bzero or bcopy symbol"
fi
exit $status
