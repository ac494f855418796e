/* SPDX-License-Identifier: Apache-2.0 */
/*
 * srun's own command line, read back from /proc/self/cmdline, and the supervisor's command
 * line built from it. Free of Slurm calls so it can be tested without srun.
 */
#ifndef AUTO_RESUME_ARGV_H
#define AUTO_RESUME_ARGV_H

#include <stddef.h>

/*
 * Reads a whole file (also one whose size stat cannot tell, like /proc files) into a new
 * buffer with one NUL byte after the contents. Returns 0, or -1 with errno set.
 */
int ar_read_file(const char *path, char **contents, size_t *len);

/*
 * Splits NUL-separated arguments (the /proc/PID/cmdline format) in place: each NUL ends one
 * argument, so "a\0\0b\0" is {"a", "", "b"}; a last argument without its NUL ends at
 * buf[len], which must be a NUL byte. *argv is a new NULL-terminated array of pointers into
 * buf. Returns 0, or -1 with errno set (EINVAL for no arguments at all, ENOMEM).
 */
int ar_argv_split(char *buf, size_t len, char ***argv, size_t *argc);

/*
 * Builds {supervisor, "supervise", "--", argv[0], ..., argv[argc - 1], NULL} as a new array
 * whose strings are not copied. Returns 0, or -1 with errno set (ENOMEM, EOVERFLOW).
 */
int ar_supervise_argv(const char *supervisor, char *const *argv, size_t argc, char ***out);

#endif
