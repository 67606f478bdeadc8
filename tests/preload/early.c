/* early.c - preload_early: linked with libpreload_early_helper.so, whose
 * constructor calls memcpy and friends from 8 threads and a signal
 * handler before libprimswitch.so's constructor runs (early_helper.c).
 * Prints the helper's tallies; exit 1 if any result was wrong.
 */
#define _GNU_SOURCE
#include <stdio.h>

#include "checked.h"

int early_errors(void);
long early_calls(void);
long early_signals(void);

int main(void)
{
	struct checked_bufs b;
	uint64_t seed = 1234;
	int errors = 0;
	for (int i = 0; i < 100; i++)
		errors += checked_round(&b, &seed) != 0;
	printf("early: %ld calls in the constructor's threads, %ld signal handler runs, %d "
	       "errors there, %d in main\n",
	       early_calls(), early_signals(), early_errors(), errors);
	return early_errors() != 0 || errors != 0;
}
