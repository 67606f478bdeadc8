/* forker.c - the syscall suite's fork-helper: a small static process that
 * forks on request, so `primbench syscall fork-helper` prices fork + _exit +
 * waitpid of a tiny parent (as lmbench's lat_proc and a classic C loop do)
 * rather than of primbench with its buffers.
 *
 * Protocol: reads a count k (uint64_t, host order) from fd 0, does k times
 * fork, child _exit(0), waitpid, then writes the number of failed ones
 * (uint64_t) to fd 1; again until EOF on fd 0, then exits 0. */
#include <stdint.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void)
{
	uint64_t k;
	while (read(0, &k, sizeof k) == (ssize_t)sizeof k) {
		uint64_t bad = 0;
		for (uint64_t i = 0; i < k; i++) {
			pid_t pid = fork();
			if (pid == 0)
				_exit(0);
			int st = 0;
			if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
			    WEXITSTATUS(st) != 0)
				bad++;
		}
		if (write(1, &bad, sizeof bad) != (ssize_t)sizeof bad)
			return 1;
	}
	return 0;
}
