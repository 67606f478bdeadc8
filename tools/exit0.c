/* exit0.c - the syscall suite's exec target: exits with status 0 at once.
 * Built twice (tools/CMakeLists.txt): static and dynamically linked. */
int main(void)
{
	return 0;
}
