/* test_faults.c - the pieces fault tolerance rests on: an atomic write that
 * fails (file size limit) leaves the old file whole; bv_run_tail keeps a
 * child's last words when its log cannot be written, and stops reading when
 * the child ends though a process it left holds the pipe; a build step past
 * its deadline is killed with what it left; --resume refuses a
 * results directory measured with another plan, naming the difference; the
 * network timeout's environment variable; the exit code of an interruption. */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "child.h"
#include "common.h"
#include "download.h"
#include "env.h"
#include "fs.h"
#include "json.h"
#include "measure.h"
#include "plan.h"
#include "proc.h"
#include "resolve.h"
#include "tests.h"

static void a_failed_atomic_write_keeps_the_old_file(void **state)
{
	(void)state;
	char *dir = test_tmpdir();
	test_write(dir, "log.json", "{\"old\": true}\n");
	char *path = bv_asprintf("%s/log.json", dir);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		/* A 4 KiB file size limit: the 64 KiB write fails with EFBIG. */
		struct rlimit rl = {4096, 4096};
		signal(SIGXFSZ, SIG_IGN);
		setrlimit(RLIMIT_FSIZE, &rl);
		char *big = calloc(1, 65536);
		memset(big, 'x', 65535);
		int rc = bv_write_file_atomic(path, big, 65535);
		_exit(rc == BV_ERUN && strstr(bv_error_last(), path) && strstr(bv_error_last(), "File too large") ? 0 : 1);
	}
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	char *text = NULL;
	assert_int_equal(bv_read_file(path, 1024, &text, NULL), 0);
	assert_string_equal(text, "{\"old\": true}\n");
	free(text);
	DIR *d = opendir(dir);
	struct dirent *e;
	int files = 0;
	while ((e = readdir(d)))
		files += e->d_name[0] != '.';
	closedir(d);
	assert_int_equal(files, 1); /* no temporary file left beside it */
	bv_rm_rf(dir);
	free(path);
	free(dir);
}

static void run_tail_keeps_the_end_without_a_log(void **state)
{
	(void)state;
	char *dir = test_tmpdir();
	test_write(dir, "file", "x");
	char *bad_log = bv_asprintf("%s/file/runner.log", dir); /* cannot be created */
	char *argv[] = {"seq", "1", "3000", NULL};
	char *tail = NULL;
	assert_int_equal(bv_run_tail(argv, bad_log, 100, &tail, BV_ENV_BUILD), 0);
	assert_int_equal(strlen(tail), 100);
	assert_non_null(strstr(tail, "2999\n3000\n"));
	free(tail);
	char *log = bv_asprintf("%s/runner.log", dir);
	char *fails[] = {"seq", "--no-such-option", NULL};
	assert_true(bv_run_tail(fails, log, 4096, &tail, BV_ENV_BUILD) > 0);
	assert_non_null(strstr(tail, "no-such-option"));
	char *text = NULL;
	assert_int_equal(bv_read_file(log, 1 << 20, &text, NULL), 0);
	assert_string_equal(text, tail); /* the log got the same words */
	free(text), free(tail), free(log), free(bad_log);
	bv_rm_rf(dir);
	free(dir);
}

/* A child that leaves a process behind holding its output pipe (a kernel
 * that forks, calls setsid() and sleeps): the reader returns when the child
 * ends, with all it wrote, not when the pipe does; a subreaper then ends
 * the orphan. */
static void a_process_left_behind_does_not_hold_the_reader(void **state)
{
	(void)state;
	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	char *argv[] = {"sh", "-c", "echo first; setsid sleep 30 & echo last", NULL};
	char *tail = NULL;
	time_t start = time(NULL);
	assert_int_equal(bv_run_tail(argv, NULL, 100, &tail, BV_ENV_BUILD), 0);
	assert_true(time(NULL) - start < 10);
	assert_string_equal(tail, "first\nlast\n");
	free(tail);
	char *out = NULL;
	assert_int_equal(bv_run_capture(argv, 100, &out), 0);
	assert_true(time(NULL) - start < 20);
	assert_string_equal(out, "first\nlast\n");
	free(out);
	/* Two sleeps, reparented to us when their shells ended. */
	assert_int_equal(bv_kill_children(), 2);
	assert_int_equal(bv_kill_children(), 0);
	assert_true(waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD);
	prctl(PR_SET_CHILD_SUBREAPER, 0);
}

/* A build's deadline (--build-timeout): a build tool still running there is
 * killed, with what it left in a session of its own, each way bv_run* waits
 * (a log, a pipe read whole, a pipe's tail); a step started after the
 * deadline is killed at once; other kinds of children have no deadline. */
static void a_build_step_past_its_deadline_is_killed_with_its_leftovers(void **state)
{
	(void)state;
	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	char *argv[] = {"sh", "-c", "trap '' TERM; setsid sleep 300 & echo started; exec sleep 300", NULL};
	bv_build_deadline_start(1);
	time_t start = time(NULL);
	assert_int_equal(bv_run(argv, NULL, "/dev/null", BV_ENV_BUILD), 128 + SIGKILL);
	assert_true(bv_build_expired());
	assert_true(time(NULL) - start < 10);
	/* The setsid'd sleep came to us when the shell died, and is gone too. */
	assert_true(waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD);
	char *out = NULL;
	assert_int_equal(bv_run_capture(argv, 100, &out), 128 + SIGKILL);
	free(out);
	char *tail = NULL;
	assert_int_equal(bv_run_tail(argv, NULL, 100, &tail, BV_ENV_BUILD), 128 + SIGKILL);
	free(tail);
	assert_true(time(NULL) - start < 10);
	assert_true(waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD);
	bv_build_deadline_end();
	/* No deadline now, and none for the measuring process's kind ever. */
	bv_build_deadline_start(0.001);
	char *quick[] = {"true", NULL};
	bv_build_deadline_end();
	assert_int_equal(bv_run(quick, NULL, NULL, BV_ENV_BUILD), 0);
	bv_build_deadline_start(5);
	assert_false(bv_build_expired());
	assert_int_equal(bv_run(quick, NULL, NULL, BV_ENV_RUNNER), 0);
	assert_int_equal(bv_run(quick, NULL, NULL, BV_ENV_BUILD), 0);
	assert_false(bv_build_expired());
	bv_build_deadline_end();
	prctl(PR_SET_CHILD_SUBREAPER, 0);
}

/* ---- --resume's plan check ------------------------------------------------ */

static bv_measure_opts opts(void)
{
	bv_measure_opts o = {0};
	o.benches = "unary", o.ops = "abs", o.backends = "scalar", o.sizes = "1K";
	o.min_processes = 6, o.max_processes = 12, o.budget_s = 2, o.rounds = 9, o.sample_us = 300;
	o.timeout_s = 60, o.threshold = 0.01, o.threads = 1, o.pin = -1, o.quick = 1, o.seed = 1;
	return o;
}

/* The log an earlier run of labels a, b (trees "t-a", "t-b") left for label. */
static void write_log(const char *dir, const char *label, const char *b_label, double budget, int ncells)
{
	cJSON *doc = cJSON_CreateObject();
	cJSON_AddStringToObject(doc, "schema", "bench-versions-results");
	cJSON_AddStringToObject(doc, "schema_version", "1.2");
	cJSON *run = cJSON_AddObjectToObject(doc, "run");
	cJSON_AddStringToObject(run, "status", "interrupted");
	cJSON *labels = cJSON_AddArrayToObject(run, "versions");
	cJSON_AddItemToArray(labels, cJSON_CreateString("a"));
	cJSON_AddItemToArray(labels, cJSON_CreateString(b_label));
	cJSON *v = cJSON_AddObjectToObject(doc, "version");
	char tree[16];
	snprintf(tree, sizeof(tree), "t-%s", label);
	cJSON_AddStringToObject(v, "tree", tree);
	cJSON *m = cJSON_AddObjectToObject(doc, "method");
	bv_measure_opts o = opts();
	cJSON_AddStringToObject(m, "mode", "paired");
	cJSON_AddNumberToObject(m, "min_processes", o.min_processes);
	cJSON_AddNumberToObject(m, "max_processes", o.max_processes);
	cJSON_AddNumberToObject(m, "budget_s", budget);
	cJSON_AddNumberToObject(m, "rounds", o.rounds);
	cJSON_AddNumberToObject(m, "sample_us", o.sample_us);
	cJSON_AddNumberToObject(m, "timeout_s", o.timeout_s);
	cJSON_AddNumberToObject(m, "threshold", o.threshold);
	cJSON_AddNumberToObject(m, "threads", o.threads);
	cJSON_AddNullToObject(m, "pinned_cpu");
	cJSON_AddBoolToObject(m, "quick", 1);
	cJSON_AddNumberToObject(m, "seed", 4242);
	cJSON *cells = cJSON_AddArrayToObject(doc, "cells");
	for (int i = 0; i < ncells; i++) {
		cJSON *c = cJSON_CreateObject();
		cJSON_AddStringToObject(c, "bench", "unary");
		cJSON_AddStringToObject(c, "op", "abs");
		cJSON_AddStringToObject(c, "backend", "scalar");
		cJSON_AddNumberToObject(c, "size", 1024 << i);
		cJSON_AddStringToObject(c, "status", "unfinished");
		cJSON_AddItemToArray(cells, c);
	}
	char *path = bv_asprintf("%s/%s.json", dir, label);
	assert_int_equal(bv_json_save(path, doc), 0);
	free(path);
	cJSON_Delete(doc);
}

static void versions(bv_version vs[2], const char *b_tree)
{
	memset(vs, 0, 2 * sizeof(bv_version));
	vs[0].name = vs[0].label = "a";
	vs[1].name = vs[1].label = "b";
	snprintf(vs[0].tree, sizeof(vs[0].tree), "t-a");
	snprintf(vs[1].tree, sizeof(vs[1].tree), "%s", b_tree);
}

static void refused(const char *dir, bv_version *vs, bv_measure_opts *o, const char *want)
{
	assert_int_equal(bv_resume_check(dir, vs, 2, o, 0), BV_EINPUT);
	if (!strstr(bv_error_last(), want) || !strstr(bv_error_last(), dir))
		fail_msg("message '%s' lacks '%s' or the directory", bv_error_last(), want);
}

static void resume_accepts_only_the_same_plan(void **state)
{
	(void)state;
	char *dir = test_tmpdir();
	bv_version vs[2];
	versions(vs, "t-b");
	bv_measure_opts o = opts();
	assert_int_equal(bv_resume_check(dir, vs, 2, &o, 0), 0); /* no logs yet: nothing to hold against */
	write_log(dir, "a", "b", 2, 1);
	write_log(dir, "b", "b", 2, 1);
	assert_int_equal(bv_resume_check(dir, vs, 2, &o, 0), 0);
	assert_true(o.seed == 4242); /* the random orders go on from the run's seed */

	versions(vs, "t-other");
	refused(dir, vs, &o, "b resolves to t-other now, to t-b there (the code changed)");
	versions(vs, "t-b");
	o.budget_s = 3;
	refused(dir, vs, &o, "--budget differs: 2 there, 3 now");
	o = opts();
	o.sizes = "1K,2K";
	refused(dir, vs, &o, "its cells differ");
	o = opts();
	o.quick = 0;
	refused(dir, vs, &o, "it was measured with --quick");
	o = opts();
	write_log(dir, "a", "c", 2, 1);
	refused(dir, vs, &o, "it compared a c, this command names a b");
	test_write(dir, "a.json", "{\"schema\": \"something else\", \"cells\": []}");
	assert_int_equal(bv_resume_check(dir, vs, 2, &o, 0), BV_EINPUT);
	assert_non_null(strstr(bv_error_last(), "not a bench-versions results log"));
	bv_rm_rf(dir);
	free(dir);
}

static void net_timeout_from_the_environment(void **state)
{
	(void)state;
	const char *old = getenv("BENCH_VERSIONS_NET_TIMEOUT");
	char *saved = old ? bv_strdup(old) : NULL;
	unsetenv("BENCH_VERSIONS_NET_TIMEOUT");
	assert_int_equal(bv_net_timeout_s(), 30);
	setenv("BENCH_VERSIONS_NET_TIMEOUT", "5", 1);
	assert_int_equal(bv_net_timeout_s(), 5);
	const char *bad[] = {"0", "-3", "abc", "5s", "100000", ""};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		setenv("BENCH_VERSIONS_NET_TIMEOUT", bad[i], 1);
		assert_int_equal(bv_net_timeout_s(), 30);
	}
	if (saved)
		setenv("BENCH_VERSIONS_NET_TIMEOUT", saved, 1);
	else
		unsetenv("BENCH_VERSIONS_NET_TIMEOUT");
	free(saved);
}

static void an_interruption_exits_as_a_shell_reports_it(void **state)
{
	(void)state;
	assert_int_equal(bv_interrupted(), 0);
	assert_int_equal(bv_exit_code(bv_fail_interrupted()), 130);
	assert_string_equal(bv_error_last(), "interrupted (SIGINT)");
	assert_int_equal(bv_exit_code(BV_EINPUT), 2);
	assert_int_equal(bv_exit_code(BV_ERUN), 3);
}

int test_faults(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_failed_atomic_write_keeps_the_old_file),
		cmocka_unit_test(run_tail_keeps_the_end_without_a_log),
		cmocka_unit_test(a_process_left_behind_does_not_hold_the_reader),
		cmocka_unit_test(a_build_step_past_its_deadline_is_killed_with_its_leftovers),
		cmocka_unit_test(resume_accepts_only_the_same_plan),
		cmocka_unit_test(net_timeout_from_the_environment),
		cmocka_unit_test(an_interruption_exits_as_a_shell_reports_it),
	};
	return test_run_group("faults", tests, NULL, NULL);
}
