# `make install PREFIX=...` (cmake --install): where each piece goes.
#
#   bin/primbench                          the CLI
#   lib/primbench/libprimswitch.so         the LD_PRELOAD library: a private
#                                          directory, not the linker's path
#                                          (nothing links against it)
#   libexec/primbench/primbench-exit0-*    the syscall suite's exec targets
#   libexec/primbench/primbench-forker     its fork-helper's small parent
#   lib/libprimbench.a                     the library, static (below)
#   include/primbench/*.h                  its public headers
#   lib/pkgconfig/primbench.pc             cflags and libs for it
#   share/man/man1/primbench.1             the man page
#   share/bash-completion/completions/primbench    tab completion, bash
#   share/zsh/vendor-completions/_primbench        and zsh (below)
#   share/doc/primbench/                   README, LICENSE, docs/*.md
#
# (lib is CMAKE_INSTALL_LIBDIR: lib/x86_64-linux-gnu under /usr on Debian.)
# The CLI finds the first two through paths relative to its own directory,
# compiled in below, so an install can be moved as a whole (and DESTDIR
# staging works): pb_preload_path(), pb_syscall_tool_path().
#
# libprimbench is installed static: the CLI and the tests link it so (the
# kernels' placement in the executable is part of what docs/performance.md
# measured), it has no stable ABI to promise a soname for yet (0.x), and a
# program linked against it carries its kernels, with no run-time path
# to set. Since only the archive is installed, everything it needs is in
# the .pc file's Requires/Libs (not .private), so that a plain
# `pkg-config --cflags --libs primbench` links.
include(GNUInstallDirs)

set(PB_INSTALL_PRELOAD_DIR "${CMAKE_INSTALL_LIBDIR}/primbench")
set(PB_INSTALL_TOOLS_DIR "${CMAKE_INSTALL_LIBEXECDIR}/primbench")
file(RELATIVE_PATH PB_PRELOAD_INSTALL_REL "${CMAKE_INSTALL_FULL_BINDIR}"
  "${CMAKE_INSTALL_PREFIX}/${PB_INSTALL_PRELOAD_DIR}")
file(RELATIVE_PATH PB_TOOLS_INSTALL_REL "${CMAKE_INSTALL_FULL_BINDIR}"
  "${CMAKE_INSTALL_PREFIX}/${PB_INSTALL_TOOLS_DIR}")
set_property(SOURCE src/suites/preload_path.c APPEND PROPERTY COMPILE_DEFINITIONS
  "PB_PRELOAD_INSTALL_REL=\"${PB_PRELOAD_INSTALL_REL}\"")
set_property(SOURCE src/suites/syscall_util.c APPEND PROPERTY COMPILE_DEFINITIONS
  "PB_TOOLS_INSTALL_REL=\"${PB_TOOLS_INSTALL_REL}\"")

install(TARGETS primbench RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS primbench_lib ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY include/primbench DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.h")
install(TARGETS primbench-exit0-static primbench-exit0-dynamic primbench-forker
  RUNTIME DESTINATION ${PB_INSTALL_TOOLS_DIR})
if(TARGET primswitch)
  # A sanitizer build makes no libprimswitch.so (src/preload).
  install(TARGETS primswitch LIBRARY DESTINATION ${PB_INSTALL_PRELOAD_DIR})
endif()

# primbench.pc, relocatable: prefix is found from the .pc file's own place.
file(RELATIVE_PATH PB_PC_TO_PREFIX
  "${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "${CMAKE_INSTALL_PREFIX}")
string(REGEX REPLACE "/$" "" PB_PC_TO_PREFIX "${PB_PC_TO_PREFIX}")
# zlib when the library reads /proc/config.gz with it (CMakeLists.txt):
# the archive's kernel_facts.o calls gzopen, and a static library's users
# link what it needs.
set(PB_PC_REQUIRES "jansson gsl hwloc")
if(ZLIB_FOUND)
  string(APPEND PB_PC_REQUIRES " zlib")
endif()
configure_file(cmake/primbench.pc.in ${CMAKE_BINARY_DIR}/primbench.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/primbench.pc
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

install(FILES docs/primbench.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
file(GLOB PB_DOC_FILES CONFIGURE_DEPENDS docs/*.md)
install(FILES README.md LICENSE ${PB_DOC_FILES} DESTINATION ${CMAKE_INSTALL_DOCDIR})

# Tab completion: the files `primbench completion bash|zsh` prints, made
# at build time by the primbench just built (from its option tables,
# src/cli/cmd_completion.c), so the installed files are this build's
# options and kernels, with nothing to run at a shell's start. A cross
# build runs it under its emulator (cmake/aarch64-linux-gnu.cmake's qemu);
# one without an emulator installs no completion (the target machine can
# make it: primbench completion bash).
if(CMAKE_CROSSCOMPILING AND NOT CMAKE_CROSSCOMPILING_EMULATOR)
  message(STATUS "tab completion: not made (cross build without an emulator)")
else()
  set(PB_COMPLETION_DIR ${CMAKE_BINARY_DIR}/completion)
  file(MAKE_DIRECTORY ${PB_COMPLETION_DIR})
  add_custom_command(OUTPUT ${PB_COMPLETION_DIR}/primbench ${PB_COMPLETION_DIR}/_primbench
    COMMAND sh ${PROJECT_SOURCE_DIR}/cmake/completion.sh ${PB_COMPLETION_DIR}
      ${CMAKE_CROSSCOMPILING_EMULATOR} $<TARGET_FILE:primbench>
    DEPENDS primbench ${PROJECT_SOURCE_DIR}/cmake/completion.sh
    COMMENT "primbench completion bash|zsh" VERBATIM)
  add_custom_target(completion ALL
    DEPENDS ${PB_COMPLETION_DIR}/primbench ${PB_COMPLETION_DIR}/_primbench)
  install(FILES ${PB_COMPLETION_DIR}/primbench
    DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
  install(FILES ${PB_COMPLETION_DIR}/_primbench
    DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/vendor-completions)
endif()
