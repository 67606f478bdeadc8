/* aarch64/kernel_arch.c - the kernel suite on arm64: primbench's module
 * times x86-64 routines (the kernel's clear_page_rep/_orig/_erms, rep
 * stos, AVX stores; arch/x86/lib/clear_page_64.S), none of which exists
 * here (arm64's clear_page is arch/arm64/lib/clear_page.S, DC ZVA). */
#define KMOD_NOT_HERE "the module (kmod/) exists for x86-64 only (its variants are x86-64 routines)"

#include "../none/kernel_arch.c"
