/*
 * main.c - bench-versions: the thin dispatcher.  `bench-versions SUBCOMMAND`
 * runs cmd_<subcommand>.c; anything else is a comparison (`run`), so the
 * common case needs no subcommand: bench-versions 0.1.0 main local.
 */
#include <git2.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "benches.h"
#include "cli.h"
#include "common.h"
#include "env.h"
#include "resolve.h"
#include "user_ops.h"

/* The tool's own version (the repository's tags are the kernel library's
 * releases, so git describe would name those); the Makefile adds the commit
 * it was built from, where it was built in a git checkout. */
#define BV_VERSION_STRING "0.1.0-dev"
#ifndef BV_COMMIT
#define BV_COMMIT ""
#endif

static const struct {
	const char *name;
	int (*fn)(int, char **);
	const char *summary;
	/* reads the registry of benches and ops (user ops join it first);
	 * cache and share never do, so a broken ops file cannot stop them */
	int registry;
} commands[] = {
	{"run", bv_cmd_run, "compare versions (the default: bench-versions V1 V2 ...)", 1},
	{"compare", bv_cmd_compare, "merge existing results logs into one table (bench-versions compare LOG...)", 1},
	{"list", bv_cmd_list, "list benches, backends or versions", 1},
	{"compat", bv_cmd_compat, "versions in reach, their compat rules, whether they build", 1},
	{"cache", bv_cmd_cache, "show or trim the build cache", 0},
	{"bisect", bv_cmd_bisect, "find the commit where one cell got slower (bisect --good R --bad R ...)", 1},
	{"share", bv_cmd_share, "pack one run's results into a .tar.gz and upload it (share DIR --url URL)", 0},
	{"report", bv_cmd_report, "is a candidate ready to release? (report --baseline V --candidate V)", 1},
	{"plan", bv_cmd_plan, "cut a comparison into N shards for a CI matrix or a cluster (plan V... --shards N)", 1},
	{"publish", bv_cmd_publish, "shared runs into a static site (publish --site DIR --incoming DIR)", 1},
	{"history", bv_cmd_history, "a series' speed, step by step, with its change points (history A..B, --releases)", 1},
};

static void usage(FILE *out)
{
	fprintf(out, "usage: bench-versions [run] VERSION... [options]   compare versions of the kernel library\n"
		     "       bench-versions SUBCOMMAND [--help]\n"
		     "       bench-versions help SUBCOMMAND\n\nsubcommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "\nbench-versions run --help shows the comparison's options; --version the version.\n"
		     "The library is KERNEL_DIR, else the kernels/ directory of the git repository holding the\n"
		     "current directory (man bench-versions: \"Finding the library\").\n"
		     "exit codes: 0 success, 1 a gated regression, 2 usage or input error, 3 a build or run failed\n");
}

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

/* `help SUBCOMMAND` (and `--help SUBCOMMAND`): that subcommand's --help, as
 * git help does; an unknown one is a usage error naming them all. */
static int help(const char *name)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (!strcmp(name, commands[i].name)) {
			char *args[] = {(char *)commands[i].name, "--help", NULL};
			return commands[i].fn(2, args);
		}
	if (!strcmp(name, "help")) {
		usage(stdout);
		return 0;
	}
	fprintf(stderr, "bench-versions help: no subcommand '%s'; the subcommands are:", name);
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(stderr, "%s %s", i ? "," : "", commands[i].name);
	fprintf(stderr, "\n");
	return BV_EXIT_USAGE;
}

/* A first argument that was taken as a version and is none, but is a typo
 * of a subcommand ("comapre"): said after the version's own error. */
static void hint_subcommand(const char *word)
{
	const char *names[NCOMMANDS];
	for (size_t i = 0; i < NCOMMANDS; i++)
		names[i] = commands[i].name;
	long k = bv_closest_name(word, names, NCOMMANDS);
	if (k < 0)
		return;
	/* Only when the resolver found no version of this word: a version
	 * named like a subcommand that resolved, then failed otherwise, is no
	 * typo. */
	if (bv_resolve_unknown(word))
		fprintf(stderr, "bench-versions: '%s' is no version; did you mean the subcommand '%s'? "
				"(bench-versions %s --help)\n",
			word, names[k], names[k]);
}

/* stdout and stderr into one file or pipe (2>&1): stdout, fully buffered
 * there, went out 4 KB at a time, so a progress line or "results: DIR" on
 * (unbuffered) stderr landed in the middle of a table's line.  Line
 * buffering writes each stdout line whole, before the next stderr line,
 * wherever in the tool either is printed; apart, stdout keeps its buffer. */
static void same_file_lines(void)
{
	struct stat o, e;
	if (fstat(STDOUT_FILENO, &o) == 0 && fstat(STDERR_FILENO, &e) == 0 && o.st_dev == e.st_dev &&
	    o.st_ino == e.st_ino)
		setvbuf(stdout, NULL, _IOLBF, 0);
}

int main(int argc, char **argv)
{
	/* Before anything can start a child: the versions under test never see
	 * the upload token (env.c), and only share keeps it. */
	bv_secrets_take(argc > 1 && !strcmp(argv[1], "share"));
	bv_program_set(argv[0]);
	bv_tool_version_set("bench-versions " BV_VERSION_STRING);
	if (*BV_COMMIT) {
		static char with_commit[96];
		snprintf(with_commit, sizeof(with_commit), "bench-versions %s (commit %s)", BV_VERSION_STRING, BV_COMMIT);
		bv_tool_version_set(with_commit);
	}
	same_file_lines();
	if (argc < 2) {
		usage(stderr);
		return BV_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		if (argc > 2)
			return help(argv[2]);
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("bench-versions %s%s%s%s\n", BV_VERSION_STRING, *BV_COMMIT ? " (commit " : "", BV_COMMIT,
		       *BV_COMMIT ? ")" : "");
		return 0;
	}
	git_libgit2_init();
	int registry = 1; /* the default, run, reads it */
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (!strcmp(argv[1], commands[i].name))
			registry = commands[i].registry;
	if (argc > 2 && (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h")))
		registry = 0; /* a subcommand's help names no op */
	/* User-defined ops join the registry before a command reads it
	 * (libgit2 first: a project file's "ops" is found through the
	 * repository); the commands that never read it skip finding the file. */
	if (registry && (bv_build_env_check() != 0 || bv_user_ops_load() != 0)) {
		fprintf(stderr, "bench-versions: %s\n", bv_error_last());
		git_libgit2_shutdown();
		return BV_EXIT_USAGE;
	}
	int rc = -1;
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (!strcmp(argv[1], commands[i].name))
			rc = commands[i].fn(argc - 1, argv + 1);
	if (rc == -1) {
		rc = bv_cmd_run(argc, argv); /* argv[0] stands in for "run" */
		if (rc == BV_EXIT_USAGE && argv[1][0] != '-')
			hint_subcommand(argv[1]);
	}
	git_libgit2_shutdown();
	/* Whatever a command printed is only written when stdout is flushed:
	 * a table lost to a full disk or a closed pipe must not exit 0.  (The
	 * commands that flush their own output say so earlier; this is for the
	 * rest.) */
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "bench-versions: cannot write the output: %s\n", strerror(errno));
		if (rc == 0 || rc == BV_EXIT_REGRESSION)
			rc = BV_EXIT_FAILED;
	}
	return rc;
}
