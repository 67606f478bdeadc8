/* closed_stdout PROGRAM [ARGS...]: runs PROGRAM with standard output a pipe
 * whose read end is already closed, as when the reader quit before the first
 * write. Deterministic, unlike `| head`. Exits with PROGRAM's status (128 +
 * signal when a signal ended it). */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int fds[2];
	if (argc < 2 || pipe(fds) != 0)
		return 125;
	close(fds[0]);
	pid_t pid = fork();
	if (pid < 0)
		return 125;
	if (pid == 0) {
		dup2(fds[1], STDOUT_FILENO);
		close(fds[1]);
		execvp(argv[1], argv + 1);
		_exit(127);
	}
	close(fds[1]);
	int st;
	if (waitpid(pid, &st, 0) < 0)
		return 125;
	return WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
}
