/* arch_rows.h (none) - no architecture-specific kernels on this build: the
 * generic rows are the whole table. Same format as x86_64/arch_rows.h. */
