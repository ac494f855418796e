/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A stand-in supervisor for test_hooks: writes its argv, NUL-separated, to $AR_TEST_RECORD
 * and exits 42, or 43 when it started with any signal blocked (srun blocks several and the
 * plugin must not pass that on).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	const char *path = getenv("AR_TEST_RECORD");
	FILE *out = path ? fopen(path, "wb") : NULL;
	sigset_t blocked;
	if (out == NULL)
		return 2;
	for (int i = 0; i < argc; i++)
		fwrite(argv[i], 1, strlen(argv[i]) + 1, out);
	if (fclose(out) != 0)
		return 2;
	if (sigprocmask(SIG_BLOCK, NULL, &blocked) != 0)
		return 2;
	for (int sig = 1; sig < NSIG; sig++)
		if (sigismember(&blocked, sig) == 1)
			return 43;
	return 42;
}
