/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests of argv.c: no Slurm needed. `make check` runs them.
 *
 * The /proc/self/cmdline round trip re-runs this program with hostile arguments (empty ones,
 * every byte value, one of 128 KiB - 1, thousands of them) and checks that what the plugin
 * would read back is exactly the argv the kernel handed to main.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../src/argv.h"
#include "check.h"

#define ROUND_TRIP_MODE "--cmdline-round-trip"

static void test_split(void)
{
	char **argv;
	size_t argc;

	char normal[] = "srun\0-N2\0\0a b\0";
	CHECK(ar_argv_split(normal, sizeof(normal) - 1, &argv, &argc) == 0);
	CHECK(argc == 4);
	CHECK(strcmp(argv[0], "srun") == 0 && strcmp(argv[1], "-N2") == 0);
	CHECK(strcmp(argv[2], "") == 0 && strcmp(argv[3], "a b") == 0 && argv[4] == NULL);
	free(argv);

	/* a last argument without its NUL ends at buf[len] */
	char unterminated[] = "a\0bc";
	CHECK(ar_argv_split(unterminated, 4, &argv, &argc) == 0);
	CHECK(argc == 2 && strcmp(argv[1], "bc") == 0 && argv[2] == NULL);
	free(argv);

	char empties[] = "\0\0";
	CHECK(ar_argv_split(empties, 2, &argv, &argc) == 0);
	CHECK(argc == 2 && argv[0][0] == '\0' && argv[1][0] == '\0');
	free(argv);

	char nothing[] = "";
	errno = 0;
	CHECK(ar_argv_split(nothing, 0, &argv, &argc) == -1 && errno == EINVAL);
}

static void test_supervise_argv(void)
{
	char *srun[] = { "srun", "--auto-resume=1", "", "--probe-value=a b;$x", NULL };
	char **argv;

	CHECK(ar_supervise_argv("/opt/ar/bin/autoresume", srun, 4, &argv) == 0);
	CHECK(strcmp(argv[0], "/opt/ar/bin/autoresume") == 0);
	CHECK(strcmp(argv[1], "supervise") == 0 && strcmp(argv[2], "--") == 0);
	for (int i = 0; i < 4; i++)
		CHECK(argv[3 + i] == srun[i]);
	CHECK(argv[7] == NULL);
	free(argv);

	CHECK(ar_supervise_argv("/x", srun, 0, &argv) == 0);
	CHECK(argv[2] != NULL && argv[3] == NULL);
	free(argv);

	errno = 0;
	CHECK(ar_supervise_argv("/x", srun, (size_t)-1, &argv) == -1 && errno == EOVERFLOW);
}

static void test_read_file(void)
{
	char path[] = "/tmp/ar-test-argv.XXXXXX";
	int fd = mkstemp(path);
	size_t size = 3 * 4096 * 1024 + 7;  /* spans many buffer growths */
	char *data = malloc(size);
	char *read_back = NULL;
	size_t len = 0;

	CHECK(fd >= 0 && data != NULL);
	if (fd < 0 || data == NULL)
		return;
	for (size_t i = 0; i < size; i++)
		data[i] = (char)(i * 7 % 256);   /* every byte value, NULs included */
	CHECK(write(fd, data, size) == (ssize_t)size);
	close(fd);
	CHECK(ar_read_file(path, &read_back, &len) == 0);
	CHECK(len == size && read_back != NULL && memcmp(read_back, data, size) == 0);
	CHECK(read_back != NULL && read_back[len] == '\0');
	free(read_back);

	/* empty file: zero bytes, still terminated */
	CHECK(truncate(path, 0) == 0);
	CHECK(ar_read_file(path, &read_back, &len) == 0 && len == 0 && read_back[0] == '\0');
	free(read_back);
	unlink(path);
	free(data);

	errno = 0;
	CHECK(ar_read_file("/nonexistent/ar-test", &read_back, &len) == -1 && errno == ENOENT);
}

/* In the re-run program: /proc/self/cmdline must give back main's argv exactly. */
static int check_own_cmdline(int argc, char **argv)
{
	char *buf;
	size_t len;
	char **read_argv;
	size_t read_argc;

	CHECK(ar_read_file("/proc/self/cmdline", &buf, &len) == 0);
	if (failures)
		return 1;
	CHECK(ar_argv_split(buf, len, &read_argv, &read_argc) == 0);
	if (failures)
		return 1;
	CHECK(read_argc == (size_t)argc);
	for (int i = 0; i < argc && (size_t)i < read_argc; i++)
		CHECK(strcmp(read_argv[i], argv[i]) == 0);
	free(read_argv);
	free(buf);
	return failures ? 1 : 0;
}

static void test_cmdline_round_trip(const char *self)
{
	enum { SMALL = 3000, LONG = 128 * 1024 - 1 };
	char **argv = calloc(SMALL + 8, sizeof(*argv));
	char *bytes = malloc(256);
	char *long_arg = malloc(LONG + 1);
	char *small = malloc(SMALL * 8);
	int n = 0;

	CHECK(argv != NULL && bytes != NULL && long_arg != NULL && small != NULL);
	if (argv == NULL || bytes == NULL || long_arg == NULL || small == NULL)
		goto out;
	for (int b = 1; b < 256; b++)
		bytes[b - 1] = (char)b;
	bytes[255] = '\0';
	memset(long_arg, 'x', LONG);
	long_arg[LONG] = '\0';

	argv[n++] = (char *)self;
	argv[n++] = ROUND_TRIP_MODE;
	argv[n++] = "";
	argv[n++] = "--probe-value=a b;$x 'q' \"d\" \\";
	argv[n++] = bytes;
	argv[n++] = long_arg;
	argv[n++] = "";
	for (int i = 0; i < SMALL; i++) {
		argv[n++] = small + i * 8;
		snprintf(small + i * 8, 8, "-%d", i);
	}
	argv[n] = NULL;

	pid_t pid = fork();
	if (pid == 0) {
		execv(self, argv);
		_exit(127);
	}
	int status = 0;
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
out:
	free(small);
	free(long_arg);
	free(bytes);
	free(argv);
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], ROUND_TRIP_MODE) == 0)
		return check_own_cmdline(argc, argv);
	test_split();
	test_supervise_argv();
	test_read_file();
	test_cmdline_round_trip("/proc/self/exe");
	return check_report("test_argv");
}
