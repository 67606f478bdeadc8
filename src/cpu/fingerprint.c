/* fingerprint.c - the hash behind the fingerprint_hash of a machine
 * object (docs/results-schema.md): FNV-1a 64. Its input, the canonical
 * text of the result-relevant fields, is results' (src/results/
 * machine_json.c); the machine's facts and listings are in
 * src/machine/machine.c.
 */
#include <stddef.h>
#include <stdint.h>

#include "primbench/fingerprint.h"

/* ---- fingerprint_hash --------------------------------------------------- */

uint64_t pb_fnv1a64(const void *data, size_t len)
{
	const unsigned char *p = data;
	uint64_t h = 0xcbf29ce484222325u; /* FNV-1a 64 offset basis */
	for (size_t i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3u; /* FNV 64-bit prime */
	}
	return h;
}
