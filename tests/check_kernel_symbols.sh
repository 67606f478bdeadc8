#!/bin/sh
# check_kernel_symbols.sh OBJECT... - fails if a kernel object references
# the C library's memory functions (memset, memcpy, memmove, mempcpy,
# bzero, explicit_bzero, bcopy and their __*_chk forms, or any other mem*):
# the compiler may turn a kernel's loop back into such a call, and a kernel
# that calls memset would measure libc, and recurse under the preload library.
# The libc rows (src/kernels/libc.c) are not in the kernel objects by design.
# Exit: 0 clean, 1 a forbidden reference (each one named), 2 usage/nm error.

if [ "$#" -eq 0 ]; then
	echo "usage: $0 OBJECT..." >&2
	exit 2
fi

# CMake may pass $<TARGET_OBJECTS:...> as one ';'-separated argument.
objs=$(for a in "$@"; do printf '%s\n' "$a" | tr ';' '\n'; done)

status=0
old_ifs=$IFS
IFS='
'
for obj in $objs; do
	IFS=$old_ifs
	if ! syms=$(nm -u "$obj"); then
		echo "$0: nm failed on $obj" >&2
		exit 2
	fi
	# Symbol names without any @VERSION suffix.
	bad=$(printf '%s\n' "$syms" | awk '{ print $NF }' | sed 's/@.*//' |
		grep -E '^_*(mem[a-z0-9_]*|bzero|explicit_bzero|bcopy)(_chk)?$')
	for sym in $bad; do
		echo "$obj: references $sym" >&2
		status=1
	done
done
exit $status
