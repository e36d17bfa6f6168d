/*
 * slurm_commands.c - Slurm's client commands: found (PATH, or
 * $BV_SLURM_BIN), run with Slurm's environment (sbatch and scancel apart,
 * in a process group of their own), and what they print parsed as the
 * hostile input it is (job ids, squeue's lines, scontrol's job record, a
 * task's exit file).  Apart from slurm.c because it is the whole of what
 * the driver says to Slurm and reads from it; the parsers are unit-tested
 * alone (tests/unit/test_slurm.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"
#include "common.h"
#include "env.h"
#include "fs.h"
#include "proc.h"
#include "slurm.h"
#include "slurm_commands.h"

extern char **environ;

/* ---- parsing what Slurm prints -------------------------------------------- */

/* A whole decimal number of 1-18 digits (below 10^18: no overflow), ending
 * at end. */
static int parse_id(const char *s, const char *end, unsigned long long *out)
{
	if (s >= end || end - s > 18)
		return -1;
	unsigned long long v = 0;
	for (const char *p = s; p < end; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		v = v * 10 + (unsigned long long)(*p - '0');
	}
	*out = v;
	return 0;
}

int bv_slurm_parse_jobid(const char *out, unsigned long long *id)
{
	for (const char *line = out; line && *line;) {
		const char *nl = strchr(line, '\n');
		const char *end = nl ? nl : line + strlen(line);
		const char *semi = memchr(line, ';', (size_t)(end - line));
		const char *idend = semi ? semi : end;
		int ok = parse_id(line, idend, id) == 0 && *id > 0;
		/* ;CLUSTER: a name of letters, digits, '-', '_' */
		for (const char *p = semi ? semi + 1 : end; ok && p < end; p++)
			ok = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			     (*p >= '0' && *p <= '9') || *p == '-' || *p == '_';
		if (ok && (!semi || semi + 1 < end))
			return 0;
		line = nl ? nl + 1 : NULL;
	}
	return bv_fail(BV_ERUN, "sbatch printed no job id");
}

/* A state word: 1 to len-1 characters of A-Z, 0-9, '_'. */
static int copy_word(const char *s, const char *end, char *out, size_t len)
{
	size_t n = (size_t)(end - s);
	if (n == 0 || n >= len)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
			return -1;
	memcpy(out, s, n);
	out[n] = '\0';
	return 0;
}

size_t bv_slurm_parse_squeue(const char *out, bv_slurm_task **tasks, size_t max)
{
	size_t n = 0, cap = 0;
	*tasks = NULL;
	for (const char *line = out; line && *line && n < max;) {
		const char *nl = strchr(line, '\n');
		const char *end = nl ? nl : line + strlen(line);
		const char *f[4] = {line, NULL, NULL, NULL};
		int k = 1;
		for (const char *p = line; p < end && k < 4; p++)
			if (*p == '|')
				f[k++] = p + 1;
		bv_slurm_task t;
		memset(&t, 0, sizeof(t));
		unsigned long long idx;
		/* %F|%K|%T|%r; the reason, last, may hold anything but a newline */
		if (k == 4 && parse_id(f[0], f[1] - 1, &t.job) == 0 && t.job > 0 &&
		    parse_id(f[1], f[2] - 1, &idx) == 0 && idx <= LONG_MAX &&
		    copy_word(f[2], f[3] - 1, t.state, sizeof(t.state)) == 0) {
			t.index = (long)idx;
			size_t r = 0;
			for (const char *p = f[3]; p < end && r + 1 < sizeof(t.reason); p++)
				t.reason[r++] = (*p >= 0x20 && *p < 0x7f) ? *p : '?';
			t.reason[r] = '\0';
			if (n == cap) {
				cap = cap ? 2 * cap : 16;
				*tasks = bv_xrealloc(*tasks, cap * sizeof(**tasks));
			}
			(*tasks)[n++] = t;
		}
		line = nl ? nl + 1 : NULL;
	}
	return n;
}

/* The value of " KEY=" in text (a word start), up to whitespace; NULL. */
static const char *field(const char *text, const char *key, const char **end)
{
	size_t k = strlen(key);
	for (const char *p = strstr(text, key); p; p = strstr(p + 1, key))
		if ((p == text || p[-1] == ' ' || p[-1] == '\n' || p[-1] == '\t') && p[k] == '=') {
			const char *v = p + k + 1;
			*end = v + strcspn(v, " \t\n");
			return v;
		}
	return NULL;
}

int bv_slurm_parse_scontrol(const char *out, char *state, size_t len, int *exit_status, int *exit_signal)
{
	const char *end;
	const char *v = field(out, "JobState", &end);
	*exit_status = *exit_signal = -1;
	if (!v || copy_word(v, end, state, len) != 0)
		return bv_fail(BV_ERUN, "scontrol said no JobState");
	v = field(out, "ExitCode", &end);
	const char *colon = v ? memchr(v, ':', (size_t)(end - v)) : NULL;
	unsigned long long a, b;
	if (colon && parse_id(v, colon, &a) == 0 && parse_id(colon + 1, end, &b) == 0 && a < 256 && b < 256) {
		*exit_status = (int)a;
		*exit_signal = (int)b;
	}
	return 0;
}

int bv_slurm_parse_exit(const char *text)
{
	const char *end = text + strlen(text);
	if (end > text && end[-1] == '\n')
		end--;
	unsigned long long v;
	if (end - text > 3 || parse_id(text, end, &v) != 0 || v > 255)
		return -1;
	return (int)v;
}

/* ---- the commands ----------------------------------------------------------- */

/* name in $BV_SLURM_BIN, else on PATH: an absolute path (malloc'd), or NULL
 * with the message set (BV_EINPUT: this machine cannot submit). */
char *bv_slurm_find_tool(const char *name)
{
	const char *bin = getenv("BV_SLURM_BIN");
	if (bin && *bin) {
		char *p = bv_asprintf("%s/%s", bin, name);
		if (access(p, X_OK) == 0 && !bv_is_dir(p))
			return p;
		char *e = bv_escape(bin);
		bv_fail(BV_EINPUT, "--slurm: no %s in BV_SLURM_BIN=%s", name, e);
		free(e);
		free(p);
		return NULL;
	}
	const char *path = getenv("PATH");
	for (const char *d = path; d && *d;) {
		size_t n = strcspn(d, ":");
		if (n > 0) {
			char *p = bv_asprintf("%.*s/%s", (int)n, d, name);
			if (p[0] == '/' && access(p, X_OK) == 0 && !bv_is_dir(p))
				return p;
			free(p);
		}
		d += n + (d[n] == ':');
	}
	bv_fail(BV_EINPUT,
	        "--slurm: %s not found on PATH: it needs Slurm's client commands (sbatch, squeue, scancel; "
	        "Debian: slurm-client), or BV_SLURM_BIN=DIR naming where they are",
	        name);
	return NULL;
}

/* Runs argv with Slurm's environment; *out gets its stdout and stderr
 * together (the last 1 MB; never NULL).  Returns the exit status (or a
 * negative BV_E*). */
int bv_slurm_cmd(char *const argv[], char **out)
{
	int rc = bv_run_tail(argv, NULL, (size_t)1 << 20, out, BV_ENV_SLURM);
	if (!*out)
		*out = bv_strdup("");
	return rc;
}

/* The last line of a command's output that says something, escaped, for a
 * message: "sbatch: error: invalid partition specified: nope". */
char *bv_slurm_last_words(const char *out)
{
	const char *best = NULL, *best_end = NULL;
	int best_error = 0;
	for (const char *line = out; line && *line;) {
		const char *nl = strchr(line, '\n');
		const char *end = nl ? nl : line + strlen(line);
		const char *e = strstr(line, "error");
		int is_error = e && e < end;
		if (end > line && (is_error || !best_error))
			best = line, best_end = end, best_error = is_error;
		line = nl ? nl + 1 : NULL;
	}
	bv_buf b = BV_BUF_INIT;
	if (best)
		bv_buf_put_escaped(&b, best, (size_t)(best_end - best), 0);
	else
		bv_buf_puts(&b, "(no output)");
	return bv_buf_detach(&b);
}

/* What bv_slurm_run_apart keeps of a command's output: the first 1 MB. */
static void keep(void *ctx, const char *data, size_t n)
{
	bv_buf *b = ctx;
	if (b->len < ((size_t)1 << 20))
		bv_buf_putn(b, data, n);
}

/* Runs argv with Slurm's environment in a process group of its own and
 * untracked, so that neither a Ctrl-C (it reaches the terminal's
 * foreground group) nor proc.c's forwarding of a SIGTERM stops it halfway:
 * an sbatch stopped after it submitted would leave an array nobody knows
 * the id of, and a scancel run after the signal must not die of it.  Both
 * are short.  *out gets stdout and stderr together (never NULL); returns
 * the exit status, 128 + a signal, or BV_ERUN when it cannot start. */
int bv_slurm_run_apart(char *const argv[], char **out)
{
	*out = NULL;
	int fds[2];
	if (pipe2(fds, O_CLOEXEC) != 0)
		return bv_fail(BV_ERUN, "pipe: %s", strerror(errno));
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
	posix_spawn_file_actions_adddup2(&fa, fds[1], 2);
	posix_spawnattr_t at;
	posix_spawnattr_init(&at);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP);
	posix_spawnattr_setpgroup(&at, 0);
	char **env = bv_child_environ(environ, BV_ENV_SLURM);
	pid_t pid;
	int rc = posix_spawn(&pid, argv[0], &fa, &at, argv, env);
	free(env);
	posix_spawnattr_destroy(&at);
	posix_spawn_file_actions_destroy(&fa);
	close(fds[1]);
	if (rc != 0) {
		close(fds[0]);
		return bv_fail(BV_ERUN, "cannot start %s: %s", argv[0], strerror(rc));
	}
	bv_buf b = BV_BUF_INIT;
	bv_buf_puts(&b, "");
	bv_read_child(fds[0], pid, 0, keep, &b);
	close(fds[0]);
	int status = 0;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			bv_buf_free(&b);
			return bv_fail(BV_ERUN, "waiting for %s: %s", argv[0], strerror(errno));
		}
	*out = bv_buf_detach(&b);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* scancel of the given jobs, apart (bv_slurm_run_apart): it runs after the signal. */
void bv_slurm_cancel_jobs(const char *scancel, const unsigned long long *jobs, size_t n)
{
	if (n == 0)
		return;
	bv_strv argv = BV_STRV_INIT;
	bv_strv_push(&argv, scancel);
	bv_strv_push(&argv, "--quiet");
	for (size_t i = 0; i < n; i++)
		bv_strv_pushf(&argv, "%llu", jobs[i]);
	char *out = NULL;
	int rc = bv_slurm_run_apart(argv.v, &out);
	if (rc != 0) {
		char *w = rc < 0 ? bv_strdup(bv_error_last()) : bv_slurm_last_words(out);
		fprintf(stderr, "slurm: scancel failed (%s); cancel the jobs by hand: scancel", w);
		for (size_t i = 0; i < n; i++)
			fprintf(stderr, " %llu", jobs[i]);
		fprintf(stderr, "\n");
		free(w);
	}
	free(out);
	bv_strv_free(&argv);
}
