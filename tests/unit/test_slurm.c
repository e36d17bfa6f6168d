/* test_slurm.c - what run --slurm reads from Slurm's commands (sbatch's job
 * id, squeue's lines, scontrol's state, a shard's exit file), all hostile
 * input; and the environment Slurm's commands, and so the jobs, get. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "env.h"
#include "export.h"
#include "options.h"
#include "run_options.h"
#include "slurm.h"
#include "tests.h"

static void sbatch_job_id_is_a_whole_line(void **state)
{
	(void)state;
	unsigned long long id = 0;
	assert_int_equal(bv_slurm_parse_jobid("123\n", &id), 0);
	assert_true(id == 123);
	assert_int_equal(bv_slurm_parse_jobid("4567;cluster-a_1\n", &id), 0);
	assert_true(id == 4567);
	/* warnings first (sbatch prints them on stderr, captured with stdout) */
	assert_int_equal(bv_slurm_parse_jobid("sbatch: warning: can't honor --ntasks-per-node\n89", &id), 0);
	assert_true(id == 89);
	const char *bad[] = {"",
	                     "\n",
	                     "Submitted batch job 12\n", /* not --parsable: refused, never guessed */
	                     "12abc\n",
	                     " 12\n",
	                     "0\n",
	                     "-5\n",
	                     "12;\n",
	                     "12;clu ster\n",
	                     "12;a\x1b[31m\n",
	                     "9999999999999999999999\n",
	                     "sbatch: error: invalid partition specified: nope\n",
	                     NULL};
	for (int k = 0; bad[k]; k++)
		if (bv_slurm_parse_jobid(bad[k], &id) == 0)
			fail_msg("job id taken from '%s'", bad[k]);
}

static void squeue_lines_are_checked_field_by_field(void **state)
{
	(void)state;
	bv_slurm_task *t;
	const char *out = "12|1|RUNNING|None\n"
	                  "12|2|PENDING|Resources\n"
	                  "13|N/A|PENDING|None\n"                /* not an array task */
	                  "x|3|RUNNING|None\n"                   /* no job id */
	                  "12|3|running|None\n"                  /* not a state word */
	                  "12|4|PENDING\n"                       /* a field short */
	                  "12|5|A_STATE_FAR_TOO_LONG_FOR_US|x\n" /* longer than the field */
	                  "99999999999999999999|1|RUNNING|x\n"
	                  "12|6|PENDING|why|with|bars \x1b[2J\n" /* the reason takes the rest, escaped */
	                  "12|7|COMPLETING|";                    /* no newline at the end */
	size_t n = bv_slurm_parse_squeue(out, &t, 100);
	assert_int_equal(n, 4);
	assert_true(t[0].job == 12 && t[0].index == 1);
	assert_string_equal(t[0].state, "RUNNING");
	assert_string_equal(t[1].state, "PENDING");
	assert_string_equal(t[1].reason, "Resources");
	assert_int_equal(t[2].index, 6);
	assert_string_equal(t[2].reason, "why|with|bars ?[2J");
	assert_int_equal(t[3].index, 7);
	assert_string_equal(t[3].reason, "");
	free(t);
	/* the count is capped; nothing at all is no task */
	n = bv_slurm_parse_squeue(out, &t, 1);
	assert_int_equal(n, 1);
	free(t);
	assert_int_equal(bv_slurm_parse_squeue("", &t, 100), 0);
	free(t);
	/* a reason longer than its field is cut, not overrun */
	char longer[512];
	snprintf(longer, sizeof(longer), "5|1|PENDING|%0300d\n", 7);
	assert_int_equal(bv_slurm_parse_squeue(longer, &t, 10), 1);
	assert_true(strlen(t[0].reason) < sizeof(t[0].reason));
	free(t);
}

static void scontrol_says_state_and_exit_code(void **state)
{
	(void)state;
	char st[24];
	int es, sig;
	const char *out = "JobId=7 ArrayJobId=6 ArrayTaskId=1 JobName=bench-versions\n"
	                  "   UserId=root(0) GroupId=root(0) MCS_label=N/A\n"
	                  "   JobState=FAILED Reason=NonZeroExitCode Dependency=(null)\n"
	                  "   Requeue=0 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=3:0\n"
	                  "   DerivedExitCode=0:0\n";
	assert_int_equal(bv_slurm_parse_scontrol(out, st, sizeof(st), &es, &sig), 0);
	assert_string_equal(st, "FAILED");
	assert_int_equal(es, 3);
	assert_int_equal(sig, 0);
	/* DerivedExitCode does not stand in for ExitCode; a signal is read */
	assert_int_equal(bv_slurm_parse_scontrol("JobState=CANCELLED DerivedExitCode=0:0 ExitCode=0:15", st,
	                                         sizeof(st), &es, &sig),
	                 0);
	assert_string_equal(st, "CANCELLED");
	assert_int_equal(sig, 15);
	/* no JobState, or one that is not a word: no state */
	assert_int_equal(bv_slurm_parse_scontrol("slurm_load_jobs error: Invalid job id specified\n", st,
	                                         sizeof(st), &es, &sig),
	                 BV_ERUN);
	assert_int_equal(bv_slurm_parse_scontrol("JobState=\x1b[31mOK", st, sizeof(st), &es, &sig), BV_ERUN);
	assert_int_equal(bv_slurm_parse_scontrol("OldJobState=RUNNING", st, sizeof(st), &es, &sig), BV_ERUN);
	/* an exit code out of range is not one */
	assert_int_equal(bv_slurm_parse_scontrol("JobState=FAILED ExitCode=999:0", st, sizeof(st), &es, &sig),
	                 0);
	assert_int_equal(es, -1);
}

static void exit_files_hold_a_status_only(void **state)
{
	(void)state;
	assert_int_equal(bv_slurm_parse_exit("0\n"), 0);
	assert_int_equal(bv_slurm_parse_exit("3"), 3);
	assert_int_equal(bv_slurm_parse_exit("255\n"), 255);
	const char *bad[] = {"", "\n", "256\n", "-1\n", "0\n\n", " 0", "0x1", "1000", "2 \n", NULL};
	for (int k = 0; bad[k]; k++)
		if (bv_slurm_parse_exit(bad[k]) != -1)
			fail_msg("exit status taken from '%s'", bad[k]);
}

static void a_shard_is_done_retried_or_given_up_by_rule(void **state)
{
	(void)state;
	/* finished: exit 0, or 3 (a version failed to build) with its run there */
	assert_int_equal(bv_slurm_decide(0, 1, 0, 1), BV_SLURM_DONE);
	assert_int_equal(bv_slurm_decide(3, 1, 5, 3), BV_SLURM_DONE);
	/* an exit file without a finished run, or another status: again */
	assert_int_equal(bv_slurm_decide(0, 0, 0, 1), BV_SLURM_RETRY);
	assert_int_equal(bv_slurm_decide(3, 0, 0, 1), BV_SLURM_RETRY);
	assert_int_equal(bv_slurm_decide(1, 1, 0, 1), BV_SLURM_RETRY);
	assert_int_equal(bv_slurm_decide(137, 0, 0, 2), BV_SLURM_RETRY);
	/* its input refused: never again, whatever is left */
	assert_int_equal(bv_slurm_decide(2, 0, 0, 1), BV_SLURM_REFUSED);
	/* no exit file: waits while listed and for one missed poll */
	assert_int_equal(bv_slurm_decide(-1, 0, 0, 1), BV_SLURM_WAIT);
	assert_int_equal(bv_slurm_decide(-1, 0, 1, 1), BV_SLURM_WAIT);
	assert_int_equal(bv_slurm_decide(-1, 0, 2, 1), BV_SLURM_RETRY);
	/* at most BV_SLURM_RETRIES jobs after the first */
	assert_int_equal(bv_slurm_decide(-1, 0, 2, 1 + BV_SLURM_RETRIES - 1), BV_SLURM_RETRY);
	assert_int_equal(bv_slurm_decide(-1, 0, 2, 1 + BV_SLURM_RETRIES), BV_SLURM_GIVE_UP);
	assert_int_equal(bv_slurm_decide(1, 0, 0, 1 + BV_SLURM_RETRIES), BV_SLURM_GIVE_UP);
}

/* run's table in small: the pipeline's lines, a few of the table's own,
 * the view's and --slurm's. */
static void shards_get_the_measuring_options_and_nothing_else(void **state)
{
	(void)state;
	bv_run_cli c;
	bv_run_cli_init(&c);
	const char *format = NULL, *filter = NULL, *save = NULL;
	int gate = 0;
	bv_option pipeline[BV_RUN_CLI_OPTIONS];
	bv_run_cli_table(&c, pipeline, NULL);
	bv_view_opts view;
	bv_view_init(&view);
	bv_option view_opts[BV_VIEW_OPTIONS];
	bv_view_table(&view, view_opts);
	bv_slurm_opts so;
	bv_slurm_init(&so);
	bv_option slurm_opts[BV_SLURM_OPTIONS];
	bv_slurm_table(&so, slurm_opts);
	const bv_option opts[] = {
	    BV_INCLUDE(pipeline, NULL),
	    BV_STRING("--format", &format, "F", "format"),
	    BV_STRING("--filter", &filter, "REGEX", "filter"),
	    BV_FLAG("--fail-on-slower", &gate, "gate"),
	    BV_STRING("--save-baseline", &save, "NAME", "save"),
	    BV_INCLUDE(view_opts, NULL),
	    BV_INCLUDE(slurm_opts, NULL),
	    BV_END,
	};
	char *argv[] = {"run",
	                "base",
	                "--quick",
	                "--slurm",
	                "--shards",
	                "3",
	                "--format",
	                "json",
	                "--ops=abs",
	                "--filter",
	                "--odd",
	                "--partition",
	                "batch",
	                "--results",
	                "/r",
	                "--resume=/x",
	                "main",
	                "--budget",
	                "0.5",
	                "--fail-on-slower",
	                "--only-changes",
	                "--color",
	                "never",
	                "--seed",
	                "7",
	                "--save-baseline",
	                "b",
	                "--slurm-cache=node",
	                "--time",
	                "5",
	                "--",
	                "--weird-name",
	                NULL};
	int argc = (int)(sizeof(argv) / sizeof(argv[0])) - 1;
	char *names[3];
	size_t n = 0;
	assert_int_equal(bv_options_parse(opts, argc, argv, names, &n), 0);
	assert_int_equal(n, 3);
	c.mo.seed = 99;
	c.mo.layouts = 4;
	bv_strv out = BV_STRV_INIT;
	bv_run_cli_given(&c, opts, "run", argc, argv);
	bv_slurm_shard_args(&c, names, n, &out);
	bv_buf b = BV_BUF_INIT;
	for (size_t i = 0; i < out.n; i++)
		bv_buf_printf(&b, "%s[%s]", i ? " " : "", out.v[i]);
	assert_string_equal(
	    b.s, "[--quick] [--ops=abs] [--filter] [--odd] [--budget] [0.5] [--seed=99] [--layouts=4] "
	         "[--ops=abs] [--] [base] [main] [--weird-name]");
	bv_buf_free(&b);
	bv_strv_free(&out);
	/* report narrows the lists for its second measurement: the later
	 * value is the one a shard takes */
	c.mo.ops = "relu";
	c.mo.sizes = "64K";
	bv_slurm_shard_args(&c, names, n, &out);
	assert_string_equal(out.v[out.n - 6], "--ops=relu");
	assert_string_equal(out.v[out.n - 5], "--sizes=64K");
	bv_strv_free(&out);
	/* the resume command: the program, the subcommand, the arguments
	 * without --results and --resume, shell-quoted */
	assert_non_null(strstr(c.again, " run "));
	bv_run_cli_free(&c);
}

static void slurm_commands_get_what_the_shards_need_and_no_secret(void **state)
{
	(void)state;
	char *env[] = {"PATH=/usr/bin",
	               "SLURM_CONF=/tmp/x/slurm.conf",
	               "SBATCH_ACCOUNT=proj",
	               "KERNEL_DIR=/src/kernels",
	               "BENCH_VERSIONS_CACHE=/shared/cache",
	               "CC=gcc-12",
	               "BENCH_VERSIONS_TOKEN=hunter2",
	               "GITHUB_TOKEN=x",
	               "SQUEUE_FORMAT=%i",
	               "SLURM_TIME_FORMAT=relative",
	               "DISPLAY=:0",
	               NULL};
	char **out = bv_child_environ(env, BV_ENV_SLURM);
	const char *want[] = {
	    "PATH=", "SLURM_CONF=", "SBATCH_ACCOUNT=", "KERNEL_DIR=", "BENCH_VERSIONS_CACHE=", "CC=", NULL};
	size_t n = 0;
	while (out[n])
		n++;
	assert_int_equal(n, 6);
	for (int k = 0; want[k]; k++)
		assert_true(!strncmp(out[k], want[k], strlen(want[k])));
	free(out);
}

int test_slurm(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(sbatch_job_id_is_a_whole_line),
	    cmocka_unit_test(squeue_lines_are_checked_field_by_field),
	    cmocka_unit_test(scontrol_says_state_and_exit_code),
	    cmocka_unit_test(exit_files_hold_a_status_only),
	    cmocka_unit_test(a_shard_is_done_retried_or_given_up_by_rule),
	    cmocka_unit_test(shards_get_the_measuring_options_and_nothing_else),
	    cmocka_unit_test(slurm_commands_get_what_the_shards_need_and_no_secret),
	};
	return test_run_group("slurm", tests, NULL, NULL);
}
