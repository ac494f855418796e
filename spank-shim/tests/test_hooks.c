/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Tests of the SPANK hooks against the stub spank library (tests/spank_stub.c): no Slurm
 * needed. `make check` runs them.
 *
 * srun's side ends in execv, so each srun case re-runs this program as a pretend srun (with
 * the argv under test) that calls the hooks the way srun does; the supervisor it execs is
 * build/record_argv, which writes down the argv it got.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../src/argv.h"
#include "../src/options.h"
#include "check.h"
#include "spank_stub.h"

#define SRUN_MODE "--pretend-srun"
#define EXIT_SRUN_GOES_ON 0
#define EXIT_POST_OPT_FAILED 1
#define EXIT_SUPERVISOR_RAN 42      /* from record_argv, with no signal blocked */
#define EXIT_ASKED_FOR_IDENTITY 6

/* Any non-NULL handle: the stub keeps its state in `stub`. */
#define SP ((spank_t)&stub)

int slurm_spank_init(spank_t sp, int ac, char **av);
int slurm_spank_init_post_opt(spank_t sp, int ac, char **av);
int slurm_spank_task_init(spank_t sp, int ac, char **av);

static char tmpdir[] = "/tmp/ar-test-hooks.XXXXXX";
static char recorder[PATH_MAX];

/* ---- the pretend srun (runs in the re-run program) ---- */

/*
 * Calls the hooks as srun does: init with the plugstack arguments in AR_TEST_PLUGSTACK,
 * the option callback with AR_TEST_OPTION ("-" for a bare --auto-resume), then post_opt
 * with SIGINT/SIGTERM/SIGHUP blocked as srun has them.
 */
static int pretend_srun(void)
{
	char *plugstack = strdup(getenv("AR_TEST_PLUGSTACK") ? getenv("AR_TEST_PLUGSTACK") : "");
	const char *option = getenv("AR_TEST_OPTION");
	char *args[8];
	int ac = 0;
	sigset_t srun_mask, after;

	if (plugstack == NULL)
		return 2;
	for (char *tok = strtok(plugstack, " "); tok && ac < 8; tok = strtok(NULL, " "))
		args[ac++] = tok;
	stub_reset(S_CTX_LOCAL);
	if (slurm_spank_init(SP, ac, args) != 0) {
		fprintf(stderr, "init: %s\n", stub.last_error);
		return 3;
	}
	if (option && stub.registered->cb(0, strcmp(option, "-") ? option : NULL, 0) != 0) {
		fprintf(stderr, "option: %s\n", stub.last_error);
		return 4;
	}
	sigemptyset(&srun_mask);
	sigaddset(&srun_mask, SIGINT);
	sigaddset(&srun_mask, SIGTERM);
	sigaddset(&srun_mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &srun_mask, NULL);
	int rc = slurm_spank_init_post_opt(SP, 0, NULL);
	sigprocmask(SIG_BLOCK, NULL, &after);
	if (!sigismember(&after, SIGINT) || !sigismember(&after, SIGTERM) || !sigismember(&after, SIGHUP))
		return 5;       /* srun must get its signal mask back */
	if (rc != 0) {
		fprintf(stderr, "post_opt: %s\n", stub.last_error);
		return EXIT_POST_OPT_FAILED;
	}
	if (stub_identity_queries != 0)
		return EXIT_ASKED_FOR_IDENTITY;
	return EXIT_SRUN_GOES_ON;
}

/* ---- running the pretend srun from the tests ---- */

struct srun_result {
	int code;               /* exit code, or -1 */
	char *record;           /* the supervisor's argv, NUL-separated, or NULL if it never ran */
	size_t record_len;
	char *err;              /* what the pretend srun wrote on stderr */
	size_t err_len;
};

static void path_in_tmp(char *buf, size_t len, const char *name)
{
	if ((size_t)snprintf(buf, len, "%s/%s", tmpdir, name) >= len)
		abort();
}

/*
 * env: "NAME=value" to set, "NAME" to unset, applied after clearing the variables the
 * plugin reads (the test may itself run inside an auto-resume job). args: srun's arguments
 * after argv[0] and the mode.
 */
static void run_srun(struct srun_result *r, const char *const *env, char *const *args, size_t nargs)
{
	char record[PATH_MAX], err[PATH_MAX];
	char **argv = calloc(nargs + 3, sizeof(*argv));
	path_in_tmp(record, sizeof(record), "record");
	path_in_tmp(err, sizeof(err), "stderr");
	unlink(record);
	memset(r, 0, sizeof(*r));
	r->code = -1;
	if (argv == NULL)
		abort();
	argv[0] = "/proc/self/exe";
	argv[1] = SRUN_MODE;
	for (size_t i = 0; i < nargs; i++)
		argv[2 + i] = args[i];

	pid_t pid = fork();
	if (pid == 0) {
		int fd = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd < 0 || dup2(fd, 2) < 0)
			_exit(126);
		unsetenv(AR_ENV_VAR);
		unsetenv(AR_GUARD_ENV);
		unsetenv(AR_GUARD_CARRIER_ENV);
		unsetenv("AR_TEST_OPTION");
		unsetenv("AR_TEST_PLUGSTACK");
		setenv("AR_TEST_RECORD", record, 1);
		for (const char *const *e = env; e && *e; e++) {
			const char *eq = strchr(*e, '=');
			if (eq == NULL) {
				unsetenv(*e);
			} else {
				char name[256];
				snprintf(name, sizeof(name), "%.*s", (int)(eq - *e), *e);
				setenv(name, eq + 1, 1);
			}
		}
		execv("/proc/self/exe", argv);
		_exit(127);
	}
	int status;
	if (pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status))
		r->code = WEXITSTATUS(status);
	if (ar_read_file(record, &r->record, &r->record_len) != 0)
		r->record = NULL;
	if (ar_read_file(err, &r->err, &r->err_len) != 0)
		r->err = NULL;
	free(argv);
}

static void srun_result_free(struct srun_result *r)
{
	free(r->record);
	free(r->err);
}

/* "AR_TEST_PLUGSTACK=supervisor=PATH [EXTRA]" into buf. */
static void plugstack_for(const char *supervisor, const char *extra, char *buf, size_t len)
{
	if ((size_t)snprintf(buf, len, "AR_TEST_PLUGSTACK=supervisor=%s%s%s", supervisor,
			     extra ? " " : "", extra ? extra : "") >= len)
		abort();
}

/* Appends s and its NUL to buf at *len. */
static void append_arg(char *buf, size_t *len, const char *s)
{
	size_t n = strlen(s) + 1;
	memcpy(buf + *len, s, n);
	*len += n;
}

/* ---- srun's side ---- */

static void test_hand_off_passes_srun_argv_unchanged(void)
{
	enum { MANY = 500, LONG = 100000 };
	char plugstack[PATH_MAX + 64];
	char bytes[256];
	char *long_arg = malloc(LONG + 1);
	char *many = malloc(MANY * 8);
	char *args[MANY + 8];
	size_t nargs = 0;
	struct srun_result r;

	if (long_arg == NULL || many == NULL)
		abort();
	for (int b = 1; b < 256; b++)
		bytes[b - 1] = (char)b;
	bytes[255] = '\0';
	memset(long_arg, 'y', LONG);
	long_arg[LONG] = '\0';
	args[nargs++] = "--auto-resume=1";
	args[nargs++] = "";
	args[nargs++] = "--probe-value=a b;$x";
	args[nargs++] = bytes;
	args[nargs++] = long_arg;
	for (int i = 0; i < MANY; i++) {
		snprintf(many + i * 8, 8, "a%d", i);
		args[nargs++] = many + i * 8;
	}
	args[nargs++] = "";

	plugstack_for(recorder, NULL, plugstack, sizeof(plugstack));
	const char *env[] = { plugstack, "AR_TEST_OPTION=1", NULL };
	run_srun(&r, env, args, nargs);
	CHECK(r.code == EXIT_SUPERVISOR_RAN);

	size_t cap = LONG + MANY * 8 + 4096 + PATH_MAX;
	char *expected = malloc(cap);
	size_t len = 0;
	if (expected == NULL)
		abort();
	append_arg(expected, &len, recorder);
	append_arg(expected, &len, "supervise");
	append_arg(expected, &len, "--");
	append_arg(expected, &len, "/proc/self/exe");
	append_arg(expected, &len, SRUN_MODE);
	for (size_t i = 0; i < nargs; i++)
		append_arg(expected, &len, args[i]);
	CHECK(r.record != NULL && r.record_len == len && memcmp(r.record, expected, len) == 0);
	free(expected);
	free(many);
	free(long_arg);
	srun_result_free(&r);
}

/* The supervisor ran (code 42, argv recorded) or not (srun goes on, nothing recorded). */
static int supervised(const char *const *env)
{
	struct srun_result r;
	run_srun(&r, env, NULL, 0);
	int ran = r.code == EXIT_SUPERVISOR_RAN && r.record != NULL;
	int went_on = r.code == EXIT_SRUN_GOES_ON && r.record == NULL && r.err_len == 0;
	if (!ran && !went_on)
		fprintf(stderr, "unexpected pretend srun: exit %d, stderr: %s\n", r.code, r.err ? r.err : "");
	srun_result_free(&r);
	return ran ? 1 : went_on ? 0 : -1;
}

static void test_when_srun_is_supervised(void)
{
	char on[PATH_MAX + 64], site_on[PATH_MAX + 64];
	plugstack_for(recorder, NULL, on, sizeof(on));
	plugstack_for(recorder, "default=1", site_on, sizeof(site_on));

	/* a plain srun is never touched */
	CHECK(supervised((const char *[]){ on, NULL }) == 0);
	CHECK(supervised((const char *[]){ on, "AR_TEST_OPTION=0", NULL }) == 0);
	CHECK(supervised((const char *[]){ on, "AR_TEST_OPTION=1", NULL }) == 1);
	CHECK(supervised((const char *[]){ on, "AR_TEST_OPTION=-", NULL }) == 1);
	/* the job default from sbatch/salloc (or the user) in the environment */
	CHECK(supervised((const char *[]){ on, "SLURM_AUTO_RESUME=1", NULL }) == 1);
	CHECK(supervised((const char *[]){ on, "SLURM_AUTO_RESUME=", NULL }) == 0);
	CHECK(supervised((const char *[]){ on, "SLURM_AUTO_RESUME=1", "AR_TEST_OPTION=0", NULL }) == 0);
	CHECK(supervised((const char *[]){ on, "SLURM_AUTO_RESUME=0", "AR_TEST_OPTION=1", NULL }) == 1);
	/* the site default */
	CHECK(supervised((const char *[]){ site_on, NULL }) == 1);
	CHECK(supervised((const char *[]){ site_on, "SLURM_AUTO_RESUME=0", NULL }) == 0);
	CHECK(supervised((const char *[]){ site_on, "AR_TEST_OPTION=0", NULL }) == 0);
	/* the supervisor's own srun, and sruns inside a supervised step */
	CHECK(supervised((const char *[]){ on, "AR_TEST_OPTION=1", "AUTORESUME_SUPERVISED=1", NULL }) == 0);
	CHECK(supervised((const char *[]){ site_on, "AUTORESUME_SUPERVISED=1", NULL }) == 0);
	CHECK(supervised((const char *[]){ on, "AR_TEST_OPTION=1", "AUTORESUME_SUPERVISED=", NULL }) == 1);
	/* inside a step run with --export=NONE only the SLURM_ copy may be there */
	CHECK(supervised((const char *[]){ on, "AR_TEST_OPTION=1", "SLURM_AUTORESUME_SUPERVISED=1", NULL }) == 0);
}

/* A plugstack.conf line the plugin cannot read turns auto-resume off; srun still runs. */
static void test_a_broken_plugstack_line_turns_auto_resume_off(void)
{
	char bad_key[PATH_MAX + 64], bad_default[PATH_MAX + 64];
	plugstack_for(recorder, "bogus=1", bad_key, sizeof(bad_key));
	plugstack_for(recorder, "default=yes", bad_default, sizeof(bad_default));
	CHECK(supervised((const char *[]){ bad_key, "AR_TEST_OPTION=1", NULL }) == 0);
	CHECK(supervised((const char *[]){ bad_key, "SLURM_AUTO_RESUME=1", NULL }) == 0);
	CHECK(supervised((const char *[]){ bad_default, NULL }) == 0);
}

static void check_fails_open(const char *supervisor, const char *why)
{
	char plugstack[PATH_MAX + 64], line[PATH_MAX + 256];
	struct srun_result r;
	plugstack_for(supervisor, NULL, plugstack, sizeof(plugstack));
	run_srun(&r, (const char *[]){ plugstack, "AR_TEST_OPTION=1", NULL }, NULL, 0);
	snprintf(line, sizeof(line),
		 "auto-resume: cannot start the supervisor %s: %s; running this step without auto-resume\n",
		 supervisor, why);
	CHECK(r.code == EXIT_SRUN_GOES_ON);
	CHECK(r.record == NULL);
	CHECK(r.err != NULL && strcmp(r.err, line) == 0);
	if (r.err && strcmp(r.err, line) != 0)
		fprintf(stderr, "  got: %s", r.err);
	srun_result_free(&r);
}

static void test_a_broken_supervisor_leaves_srun_running(void)
{
	char missing[PATH_MAX], not_executable[PATH_MAX], not_a_program[PATH_MAX];
	path_in_tmp(missing, sizeof(missing), "missing");
	path_in_tmp(not_executable, sizeof(not_executable), "not-executable");
	path_in_tmp(not_a_program, sizeof(not_a_program), "not-a-program");

	int fd = open(not_executable, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CHECK(fd >= 0 && close(fd) == 0);
	fd = open(not_a_program, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	CHECK(fd >= 0 && write(fd, "\x01\x02 not a program\n", 17) == 17 && close(fd) == 0);
	CHECK(chmod(not_a_program, 0755) == 0);

	check_fails_open(missing, strerror(ENOENT));
	/* no x bit at all: refused even for root */
	check_fails_open(not_executable, strerror(EACCES));
	check_fails_open(not_a_program, strerror(ENOEXEC));
}

/* The supervisor's srun tells its tasks, whatever its --export says (remote.c reads it). */
static void test_a_supervised_srun_carries_the_guard_to_its_tasks(void)
{
	char *none[] = { NULL };
	unsetenv(AR_GUARD_CARRIER_ENV);
	unsetenv(AR_ATTEMPT_CARRIER_ENV);
	setenv(AR_GUARD_ENV, "1", 1);
	setenv(AR_ATTEMPT_ENV, "2", 1);
	stub_reset(S_CTX_LOCAL);
	CHECK(slurm_spank_init(SP, 0, none) == 0);
	CHECK(stub.registered->cb(0, "1", 0) == 0);
	CHECK(slurm_spank_init_post_opt(SP, 0, none) == 0);
	CHECK(getenv(AR_GUARD_CARRIER_ENV) && strcmp(getenv(AR_GUARD_CARRIER_ENV), "1") == 0);
	CHECK(getenv(AR_ATTEMPT_CARRIER_ENV) && strcmp(getenv(AR_ATTEMPT_CARRIER_ENV), "2") == 0);

	/* without the carriers (setenv failing) the supervised srun still runs its step */
	unsetenv(AR_GUARD_CARRIER_ENV);
	unsetenv(AR_ATTEMPT_CARRIER_ENV);
	stub_reset(S_CTX_LOCAL);
	CHECK(slurm_spank_init(SP, 0, none) == 0);
	stub.libc_env_errno = ENOMEM;
	CHECK(slurm_spank_init_post_opt(SP, 0, none) == 0);
	stub.libc_env_errno = 0;
	CHECK(stub.errors == 1);
	CHECK(strstr(stub.last_error, "auto-resume: setenv " AR_GUARD_CARRIER_ENV ": ") == stub.last_error);
	CHECK(strstr(stub.last_error, "; tasks started with --export=NONE or a list will not see " AR_GUARD_ENV) != NULL);
	CHECK(getenv(AR_GUARD_CARRIER_ENV) == NULL && getenv(AR_ATTEMPT_CARRIER_ENV) == NULL);

	/* an unsupervised srun adds nothing */
	unsetenv(AR_GUARD_ENV);
	unsetenv(AR_ATTEMPT_ENV);
	unsetenv(AR_GUARD_CARRIER_ENV);
	unsetenv(AR_ATTEMPT_CARRIER_ENV);
	stub_reset(S_CTX_LOCAL);
	CHECK(slurm_spank_init(SP, 0, none) == 0);
	CHECK(slurm_spank_init_post_opt(SP, 0, none) == 0);
	CHECK(getenv(AR_GUARD_CARRIER_ENV) == NULL && getenv(AR_ATTEMPT_CARRIER_ENV) == NULL);
}

static void test_a_bad_environment_value_is_refused(void)
{
	char plugstack[PATH_MAX + 64];
	struct srun_result r;
	plugstack_for(recorder, NULL, plugstack, sizeof(plugstack));
	run_srun(&r, (const char *[]){ plugstack, "SLURM_AUTO_RESUME=yes", NULL }, NULL, 0);
	CHECK(r.code == EXIT_POST_OPT_FAILED && r.record == NULL);
	CHECK(r.err && strstr(r.err, "auto-resume: SLURM_AUTO_RESUME=yes: expected 0 or 1") != NULL);
	srun_result_free(&r);
}

/* ---- the option and the hooks' dispatch ---- */

static void test_option(void)
{
	char *none[] = { NULL };
	stub_reset(S_CTX_LOCAL);
	CHECK(slurm_spank_init(SP, 0, none) == 0);
	CHECK(stub.registrations == 1 && strcmp(stub.registered->name, "auto-resume") == 0);
	CHECK(stub.registered->has_arg == 2);
	spank_opt_cb_f cb = stub.registered->cb;
	CHECK(cb(0, "1", 0) == 0);
	CHECK(cb(0, "1", 0) == 0);          /* Slurm may call it again with the same value */
	CHECK(cb(0, "0", 0) == -1);         /* but not with another one */
	CHECK(strstr(stub.last_error, "auto-resume: --auto-resume given twice") != NULL);
	CHECK(cb(0, "2", 0) == -1);
	CHECK(strcmp(stub.last_error, "auto-resume: --auto-resume=2: expected 0 or 1") == 0);
	/* slurmstepd gets it too and ignores it */
	CHECK(cb(0, "garbage", 1) == 0);

	/* a plugstack.conf line it cannot read: said, and the option is still there */
	char *bad[] = { "supervisor=relative/path" };
	stub_reset(S_CTX_LOCAL);
	CHECK(slurm_spank_init(SP, 1, bad) == 0);
	CHECK(strstr(stub.last_error, "auto-resume: plugstack.conf:") == stub.last_error);
	CHECK(strstr(stub.last_error, "; steps run without auto-resume") != NULL);
	CHECK(stub.errors == 1 && stub.registrations == 1);
	CHECK(stub.registered->cb(0, "1", 0) == 0);
	CHECK(stub.registered->cb(0, "2", 0) == -1);       /* a typo is still refused */

	/* Slurm cannot register the option: said, and the command goes on */
	spank_context_t everywhere[] = { S_CTX_LOCAL, S_CTX_ALLOCATOR, S_CTX_REMOTE };
	for (size_t i = 0; i < sizeof(everywhere) / sizeof(everywhere[0]); i++) {
		stub_reset(everywhere[i]);
		stub.register_error = ESPANK_BAD_ARG;
		CHECK(slurm_spank_init(SP, 0, none) == 0);
		CHECK(stub.errors == 1 && stub.registrations == 0);
		CHECK(strstr(stub.last_error, "auto-resume: spank_option_register(--auto-resume): ") == stub.last_error);
	}

	/* registered wherever the option can be given: srun, sbatch/salloc, slurmstepd */
	spank_context_t contexts[] = { S_CTX_LOCAL, S_CTX_ALLOCATOR, S_CTX_REMOTE };
	for (size_t i = 0; i < sizeof(contexts) / sizeof(contexts[0]); i++) {
		stub_reset(contexts[i]);
		CHECK(slurm_spank_init(SP, 0, none) == 0 && stub.registrations == 1);
	}
	stub_reset(S_CTX_SLURMD);
	CHECK(slurm_spank_init(SP, 1, bad) == 0 && stub.registrations == 0);
	stub_reset(S_CTX_JOB_SCRIPT);
	CHECK(slurm_spank_init(SP, 0, none) == 0 && stub.registrations == 0);
}

/* ---- sbatch/salloc ---- */

static int allocator_post_opt(const char *option)
{
	char *none[] = { NULL };
	stub_reset(S_CTX_ALLOCATOR);
	if (slurm_spank_init(SP, 0, none) != 0)
		return -2;
	if (option && stub.registered->cb(0, option, 0) != 0)
		return -3;
	return slurm_spank_init_post_opt(SP, 0, none);
}

static int env_is(const char *name, const char *value)
{
	const char *v = getenv(name);
	return value == NULL ? v == NULL : v != NULL && strcmp(v, value) == 0;
}

static void test_allocator_sets_the_job_default(void)
{
	unsetenv(AR_ENV_VAR);
	CHECK(allocator_post_opt("1") == 0);
	CHECK(env_is(AR_ENV_VAR, "1"));
	CHECK(stub.job_control_unsets == 1 && strcmp(stub.job_control_unset, AR_OPTION_ENV) == 0);

	CHECK(allocator_post_opt("0") == 0);
	CHECK(env_is(AR_ENV_VAR, "0"));

	/* without the option the environment is the user's: left as it is */
	setenv(AR_ENV_VAR, "1", 1);
	CHECK(allocator_post_opt(NULL) == 0 && env_is(AR_ENV_VAR, "1") && stub.job_control_unsets == 0);
	unsetenv(AR_ENV_VAR);
	CHECK(allocator_post_opt(NULL) == 0 && env_is(AR_ENV_VAR, NULL));

	/* a job started from inside a supervised step is supervised afresh */
	setenv(AR_GUARD_ENV, "1", 1);
	setenv(AR_ATTEMPT_ENV, "3", 1);
	setenv(AR_GUARD_CARRIER_ENV, "1", 1);
	setenv(AR_ATTEMPT_CARRIER_ENV, "3", 1);
	setenv(AR_OPTION_ENV, "1", 1);
	CHECK(allocator_post_opt("1") == 0);
	CHECK(env_is(AR_GUARD_ENV, NULL) && env_is(AR_ATTEMPT_ENV, NULL) && env_is(AR_OPTION_ENV, NULL));
	CHECK(env_is(AR_GUARD_CARRIER_ENV, NULL) && env_is(AR_ATTEMPT_CARRIER_ENV, NULL));
	unsetenv(AR_ENV_VAR);
}

/* What the allocator cannot do, it says; sbatch/salloc go on either way. */
static void test_allocator_fails_open(void)
{
	char *none[] = { NULL };

	/* Slurm keeps the option for the job's sruns: the default still goes as SLURM_AUTO_RESUME */
	unsetenv(AR_ENV_VAR);
	stub_reset(S_CTX_ALLOCATOR);
	CHECK(slurm_spank_init(SP, 0, none) == 0 && stub.registered->cb(0, "1", 0) == 0);
	stub.job_control_error = ESPANK_ERROR;
	CHECK(slurm_spank_init_post_opt(SP, 0, none) == 0);
	CHECK(stub.errors == 1);
	CHECK(strstr(stub.last_error, "auto-resume: spank_job_control_unsetenv(" AR_OPTION_ENV "): ") == stub.last_error);
	CHECK(env_is(AR_ENV_VAR, "1"));

	/* setenv/unsetenv failing: the job goes without its default, and each failure is said */
	unsetenv(AR_ENV_VAR);
	stub_reset(S_CTX_ALLOCATOR);
	CHECK(slurm_spank_init(SP, 0, none) == 0 && stub.registered->cb(0, "1", 0) == 0);
	stub.libc_env_errno = ENOMEM;
	CHECK(slurm_spank_init_post_opt(SP, 0, none) == 0);
	stub.libc_env_errno = 0;
	CHECK(strstr(stub.last_error, "auto-resume: setenv " AR_ENV_VAR ": ") == stub.last_error);
	CHECK(strstr(stub.last_error, "; this job's steps do not get --auto-resume=1 as their default") != NULL);
	CHECK(stub.errors == 6);    /* four step-only variables, the option's, SLURM_AUTO_RESUME */
	CHECK(env_is(AR_ENV_VAR, NULL));
}

/* ---- slurmstepd ---- */

/* Runs task_init with stderr captured into out. */
static int task_init_capturing(char *out, size_t len)
{
	char path[PATH_MAX];
	char *none[] = { NULL };
	path_in_tmp(path, sizeof(path), "task-stderr");
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	int saved = dup(2);
	if (fd < 0 || saved < 0 || dup2(fd, 2) < 0)
		abort();
	int rc = slurm_spank_task_init(SP, 0, none);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	ssize_t n = pread(fd, out, len - 1, 0);
	out[n > 0 ? n : 0] = '\0';
	close(fd);
	return rc;
}

static void remote_task(uint32_t job, uint32_t step, uint32_t task)
{
	char *none[] = { NULL };
	stub_reset(S_CTX_REMOTE);
	if (slurm_spank_init(SP, 0, none) != 0)
		abort();
	stub.job_id = job;
	stub.step_id = step;
	stub.task_global_id = task;
}

static void test_task_init(void)
{
	char out[1024];

	remote_task(4242, 7, 5);
	stub_env_set(AR_GUARD_ENV, "1");
	CHECK(task_init_capturing(out, sizeof(out)) == 0);
	CHECK(strcmp(out, "[auto-resume] JobID=4242 StepID=7 TaskID=5 task_init\n") == 0);
	CHECK(stub_env_get(AR_ATTEMPT_ENV) && strcmp(stub_env_get(AR_ATTEMPT_ENV), "1") == 0);

	/* the supervisor's attempt number is kept */
	remote_task(4242, 0, 0);
	stub_env_set(AR_GUARD_ENV, "1");
	stub_env_set(AR_ATTEMPT_ENV, "3");
	CHECK(task_init_capturing(out, sizeof(out)) == 0);
	CHECK(strcmp(out, "[auto-resume] JobID=4242 StepID=0 TaskID=0 task_init\n") == 0);
	CHECK(strcmp(stub_env_get(AR_ATTEMPT_ENV), "3") == 0);

	/* an unsupervised step is left alone */
	remote_task(1, 2, 3);
	CHECK(task_init_capturing(out, sizeof(out)) == 0 && out[0] == '\0');
	CHECK(stub_env_get(AR_ATTEMPT_ENV) == NULL);
	remote_task(1, 2, 3);
	stub_env_set(AR_GUARD_ENV, "");
	CHECK(task_init_capturing(out, sizeof(out)) == 0 && out[0] == '\0');

	/* a step run with --export=NONE has only the SLURM_ copies: the plain names come back */
	remote_task(77, 1, 2);
	stub_env_set(AR_GUARD_CARRIER_ENV, "1");
	stub_env_set(AR_ATTEMPT_CARRIER_ENV, "5");
	CHECK(task_init_capturing(out, sizeof(out)) == 0);
	CHECK(strcmp(out, "[auto-resume] JobID=77 StepID=1 TaskID=2 task_init\n") == 0);
	CHECK(stub_env_get(AR_GUARD_ENV) && strcmp(stub_env_get(AR_GUARD_ENV), "1") == 0);
	CHECK(stub_env_get(AR_ATTEMPT_ENV) && strcmp(stub_env_get(AR_ATTEMPT_ENV), "5") == 0);
	remote_task(77, 1, 2);
	stub_env_set(AR_GUARD_CARRIER_ENV, "1");
	CHECK(task_init_capturing(out, sizeof(out)) == 0);
	CHECK(stub_env_get(AR_ATTEMPT_ENV) && strcmp(stub_env_get(AR_ATTEMPT_ENV), "1") == 0);

	/* Slurm's special step ids by name */
	remote_task(9, 0xfffffffb, 0);
	stub_env_set(AR_GUARD_ENV, "yes, a long value that does not fit");
	CHECK(task_init_capturing(out, sizeof(out)) == 0);
	CHECK(strcmp(out, "[auto-resume] JobID=9 StepID=batch TaskID=0 task_init\n") == 0);

	/* task_init does nothing outside slurmstepd */
	stub_reset(S_CTX_LOCAL);
	CHECK(task_init_capturing(out, sizeof(out)) == 0 && out[0] == '\0');
}

/* A SPANK call that fails in task_init costs what it was for, never the task. */
static void test_task_init_fails_open(void)
{
	char out[1024];

	/* the guard cannot be read: nothing is done, and that is said */
	remote_task(4242, 7, 5);
	stub_env_set(AR_GUARD_ENV, "1");
	stub.getenv_error = ESPANK_ERROR;
	CHECK(task_init_capturing(out, sizeof(out)) == 0 && out[0] == '\0');
	CHECK(stub.errors == 1);
	CHECK(strstr(stub.last_error, "auto-resume: task_init: spank_getenv " AR_GUARD_ENV ": ") == stub.last_error);
	CHECK(strstr(stub.last_error, "; this task goes without " AR_GUARD_ENV) != NULL);
	CHECK(stub_env_get(AR_ATTEMPT_ENV) == NULL);

	/* only the attempt number cannot be read: the rest is done */
	remote_task(4242, 7, 5);
	stub_env_set(AR_GUARD_ENV, "1");
	stub.getenv_error = ESPANK_ERROR;
	stub.getenv_error_name = AR_ATTEMPT_ENV;
	CHECK(task_init_capturing(out, sizeof(out)) == 0);
	CHECK(strcmp(out, "[auto-resume] JobID=4242 StepID=7 TaskID=5 task_init\n") == 0);
	CHECK(stub.errors == 1 && strstr(stub.last_error, "spank_getenv " AR_ATTEMPT_ENV ": ") != NULL);
	CHECK(stub_env_get(AR_ATTEMPT_ENV) == NULL);

	/* no ids: no task_init line, and the variables are still restored */
	remote_task(77, 1, 2);
	stub_env_set(AR_GUARD_CARRIER_ENV, "1");
	stub_env_set(AR_ATTEMPT_CARRIER_ENV, "4");
	stub.get_item_error = ESPANK_BAD_ARG;
	CHECK(task_init_capturing(out, sizeof(out)) == 0 && out[0] == '\0');
	CHECK(stub.errors == 1);
	CHECK(strstr(stub.last_error, "auto-resume: task_init: spank_get_item: ") == stub.last_error);
	CHECK(strstr(stub.last_error, "; no task_init line for this task") != NULL);
	CHECK(stub_env_get(AR_GUARD_ENV) && strcmp(stub_env_get(AR_GUARD_ENV), "1") == 0);
	CHECK(stub_env_get(AR_ATTEMPT_ENV) && strcmp(stub_env_get(AR_ATTEMPT_ENV), "4") == 0);

	/* the variables cannot be set: the line is still printed, each failure said */
	remote_task(77, 1, 2);
	stub_env_set(AR_GUARD_CARRIER_ENV, "1");
	stub.setenv_error = ESPANK_ERROR;
	CHECK(task_init_capturing(out, sizeof(out)) == 0);
	CHECK(strcmp(out, "[auto-resume] JobID=77 StepID=1 TaskID=2 task_init\n") == 0);
	CHECK(stub.errors == 2);
	CHECK(strstr(stub.last_error, "auto-resume: task_init: spank_setenv " AR_ATTEMPT_ENV ": ") == stub.last_error);
	CHECK(stub_env_get(AR_GUARD_ENV) == NULL && stub_env_get(AR_ATTEMPT_ENV) == NULL);
}

static void find_recorder(void)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n < 0)
		abort();
	self[n] = '\0';
	if ((size_t)snprintf(recorder, sizeof(recorder), "%s/record_argv", dirname(self)) >= sizeof(recorder))
		abort();
}

static void remove_tmpdir(void)
{
	const char *names[] = { "record", "stderr", "task-stderr", "not-executable", "not-a-program" };
	char path[PATH_MAX];
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		path_in_tmp(path, sizeof(path), names[i]);
		unlink(path);
	}
	rmdir(tmpdir);
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], SRUN_MODE) == 0)
		return pretend_srun();
	if (mkdtemp(tmpdir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	find_recorder();
	test_hand_off_passes_srun_argv_unchanged();
	test_when_srun_is_supervised();
	test_a_broken_plugstack_line_turns_auto_resume_off();
	test_a_broken_supervisor_leaves_srun_running();
	test_a_supervised_srun_carries_the_guard_to_its_tasks();
	test_a_bad_environment_value_is_refused();
	test_option();
	test_allocator_sets_the_job_default();
	test_allocator_fails_open();
	test_task_init();
	test_task_init_fails_open();
	/* Slurm 23.02+ gives srun's side uid/gid 99 (nobody): no hook may ask for them. */
	CHECK(stub_identity_queries == 0);
	remove_tmpdir();
	return check_report("test_hooks");
}
