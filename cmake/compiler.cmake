# Compiler-specific flags, chosen by CMAKE_C_COMPILER_ID (GNU: gcc, Clang):
# the one place that knows which compiler spells a guarantee how.
#
#   PB_WARNING_FLAGS      the warnings every target compiles with; -Werror
#                         only with -DPRIMBENCH_WERROR=ON (make test turns it
#                         on; make run, make install and a plain cmake build
#                         leave it off, so that a warning a newer compiler
#                         invents does not break a user's or packager's build)
#   PB_NO_LIBCALL_FLAGS   the compiler may not turn a loop of ours into a
#                         call of memset/memcpy/memmove (kernels, the preload
#                         library, the preload tests' reference loops, the
#                         bench probes)
#   PB_NO_LIBCALL_TEXT    the same, as text for PB_BUILD_FLAGS
#
# PB_NO_LIBCALL_FLAGS, by compiler:
#   GCC   -fno-builtin -fno-tree-loop-distribute-patterns. -fno-builtin
#         alone does not stop loop distribution, which emits memset/memcpy
#         for loops that store a constant or copy (GCC manual, "Optimize
#         Options", -ftree-loop-distribute-patterns: on at -O2 since GCC 10).
#   Clang -fno-builtin. It marks every function "no-builtins"; a function
#         with that attribute gets a TargetLibraryInfo with every library
#         function disabled (llvm/lib/Analysis/TargetLibraryInfo.cpp), and
#         LoopIdiomRecognize forms memset/memcpy only where TargetLibraryInfo
#         has them (llvm/lib/Transforms/Scalar/LoopIdiomRecognize.cpp,
#         HasMemset/HasMemcpy). Clang rejects
#         -fno-tree-loop-distribute-patterns. Checked on clang 14's objects:
#         a byte loop and a copy loop at -O3 call memset/memcpy without
#         -fno-builtin and are loops with it.
# Neither flag stops a large struct assignment from becoming a memcpy call
# (both compilers lower block copies so); the kernel_symbols and
# preload_symbols tests catch that in the objects.
option(PRIMBENCH_WERROR "Treat compiler warnings as errors (make test turns it on)" OFF)

set(PB_WARNING_FLAGS -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes)
if(PRIMBENCH_WERROR)
  list(APPEND PB_WARNING_FLAGS -Werror)
endif()

if(CMAKE_C_COMPILER_ID STREQUAL "GNU")
  set(PB_NO_LIBCALL_FLAGS -fno-builtin -fno-tree-loop-distribute-patterns)
elseif(CMAKE_C_COMPILER_ID MATCHES "Clang")
  set(PB_NO_LIBCALL_FLAGS -fno-builtin)
else()
  message(FATAL_ERROR "primbench builds with gcc or clang, not ${CMAKE_C_COMPILER_ID}: "
    "its kernels need a flag that keeps the compiler from turning their loops into "
    "memset/memcpy calls (cmake/compiler.cmake)")
endif()
list(JOIN PB_NO_LIBCALL_FLAGS " " PB_NO_LIBCALL_TEXT)
list(JOIN PB_WARNING_FLAGS " " PB_WARNING_TEXT)
