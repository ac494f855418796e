/* SPDX-License-Identifier: Apache-2.0 */
#include "argv.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* /proc files report size 0, so the buffer grows as the reads go. */
#define READ_CHUNK 4096

int ar_read_file(const char *path, char **contents, size_t *len)
{
	char *buf = NULL;
	size_t size = 0;
	size_t used = 0;
	int saved_errno;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	for (;;) {
		if (size - used < 2) {
			/* Keep room for the terminating NUL and at least one byte to read. */
			if (size > SIZE_MAX / 2 - READ_CHUNK) {
				errno = EOVERFLOW;
				goto fail;
			}
			size_t bigger = size ? size * 2 : READ_CHUNK;
			char *grown = realloc(buf, bigger);
			if (grown == NULL)
				goto fail;
			buf = grown;
			size = bigger;
		}
		ssize_t n = read(fd, buf + used, size - used - 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			goto fail;
		}
		if (n == 0)
			break;
		used += (size_t)n;
	}
	close(fd);
	buf[used] = '\0';
	*contents = buf;
	*len = used;
	return 0;
fail:
	saved_errno = errno;
	free(buf);
	close(fd);
	errno = saved_errno;
	return -1;
}

int ar_argv_split(char *buf, size_t len, char ***argv, size_t *argc)
{
	size_t count = 0;
	char **list;

	if (len == 0) {
		errno = EINVAL;
		return -1;
	}
	for (size_t i = 0; i < len; i++)
		if (buf[i] == '\0')
			count++;
	if (buf[len - 1] != '\0')
		count++;        /* the last argument lost its NUL: buf[len] ends it */
	if (count > SIZE_MAX / sizeof(*list) - 1) {
		errno = EOVERFLOW;
		return -1;
	}
	list = malloc((count + 1) * sizeof(*list));
	if (list == NULL)
		return -1;
	size_t n = 0;
	char *start = buf;
	for (size_t i = 0; i < len; i++) {
		if (buf[i] == '\0') {
			list[n++] = start;
			start = buf + i + 1;
		}
	}
	if (buf[len - 1] != '\0')
		list[n++] = start;
	list[n] = NULL;
	*argv = list;
	*argc = n;
	return 0;
}

int ar_supervise_argv(const char *supervisor, char *const *argv, size_t argc, char ***out)
{
	static char supervise[] = "supervise";
	static char end_of_options[] = "--";
	const size_t prefix = 3;
	char **list;

	if (argc > SIZE_MAX / sizeof(*list) - prefix - 1) {
		errno = EOVERFLOW;
		return -1;
	}
	list = malloc((argc + prefix + 1) * sizeof(*list));
	if (list == NULL)
		return -1;
	/* execv takes char *const[] but never writes through it. */
	list[0] = (char *)supervisor;
	list[1] = supervise;
	list[2] = end_of_options;
	for (size_t i = 0; i < argc; i++)
		list[prefix + i] = argv[i];
	list[prefix + argc] = NULL;
	*out = list;
	return 0;
}
