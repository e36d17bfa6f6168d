/*
 * proc.c - running child processes without a shell: argv in, status out;
 * and what happens to them on Ctrl-C or SIGTERM.  Each gets the environment
 * env.c builds for its kind, never ours as it is.
 *
 * A Ctrl-C reaches every process of the terminal's foreground group, but a
 * `kill PID` reaches only us: so the handler forwards the signal to the
 * children we wait for (kill() is async-signal-safe), and they end the way
 * they would have on a Ctrl-C.  Everything else happens outside the handler:
 * the stages see bv_interrupted() when the child returns, remove their
 * temporary directories, write what finished and return BV_EINTR.
 *
 * A child's output is read until the child exits, not until its pipe
 * closes: a process it left behind (a kernel's setsid()'d child under
 * bv-runner) may hold the pipe open for ever (harness/common/child.h).
 */
#include "common.h"
#include "env.h"
#include "fs.h"
#include "proc.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "child.h"

extern char **environ;

#define MAX_TRACKED 256

static volatile sig_atomic_t caught;	      /* the first SIGINT/SIGTERM */
static volatile sig_atomic_t force_second = 1; /* a second one ends us at once */
static volatile sig_atomic_t tracked[MAX_TRACKED];

static void on_signal(int sig)
{
	if (caught && force_second) {
		/* Asked twice: the user wants out now.  The logs on disk are
		 * valid (written atomically); temporary directories may stay
		 * (cache trim removes stale ones). */
		signal(sig, SIG_DFL);
		raise(sig);
		return;
	}
	if (!caught)
		caught = sig;
	for (int i = 0; i < MAX_TRACKED; i++)
		if (tracked[i] > 0)
			kill((pid_t)tracked[i], sig);
}

void bv_signals_install(void)
{
	int sigs[] = {SIGINT, SIGTERM};
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		struct sigaction old;
		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
			continue;
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_signal;
		sigemptyset(&sa.sa_mask);
		sa.sa_flags = 0; /* no SA_RESTART: a blocking wait returns EINTR */
		sigaction(sigs[i], &sa, NULL);
	}
	signal(SIGXFSZ, SIG_IGN);
}

int bv_interrupted(void) { return caught; }

int bv_fail_interrupted(void)
{
	int sig = caught ? caught : SIGINT;
	return bv_fail(BV_EINTR, "interrupted (%s)", sig == SIGTERM ? "SIGTERM" : sig == SIGINT ? "SIGINT" : "signal");
}

int bv_exit_code(int err)
{
	if (err == 0)
		return BV_EXIT_OK;
	if (err == BV_EINTR) /* as a shell reports a death by that signal */
		return 128 + (bv_interrupted() ? bv_interrupted() : 2);
	return err == BV_EINPUT ? BV_EXIT_USAGE : BV_EXIT_FAILED;
}

void bv_child_track(pid_t pid)
{
	for (int i = 0; i < MAX_TRACKED; i++)
		if (tracked[i] == 0) {
			tracked[i] = pid;
			break;
		}
	/* Started after the signal arrived: it never saw it. */
	if (caught)
		kill(pid, caught);
}

void bv_child_untrack(pid_t pid)
{
	for (int i = 0; i < MAX_TRACKED; i++)
		if (tracked[i] == pid)
			tracked[i] = 0;
}

void bv_child_reset(void)
{
	for (int i = 0; i < MAX_TRACKED; i++)
		tracked[i] = 0;
	force_second = 0;
}

int bv_child_die_with_parent(pid_t parent)
{
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	/* Died between fork and prctl: no signal will come. */
	return getppid() != parent;
}

/* The build under way in this process (a build worker): when it must end
 * (CLOCK_MONOTONIC ns; 0: no limit), its limit in seconds, and whether a
 * step of it was stopped there. */
static double build_deadline_ns, build_limit_s;
static int build_expired;

static double mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

void bv_build_deadline_start(double limit_s)
{
	build_limit_s = limit_s;
	build_deadline_ns = limit_s > 0 ? mono_ns() + limit_s * 1e9 : 0;
	build_expired = 0;
}

void bv_build_deadline_end(void) { build_deadline_ns = 0; }

int bv_build_expired(void) { return build_expired; }

double bv_build_limit(void) { return build_limit_s; }

/* The deadline a child of kind waits under: only build tools have one. */
static double deadline_of(bv_child_env kind) { return kind == BV_ENV_BUILD ? build_deadline_ns : 0; }

/* A build step that reached the build's deadline: it is killed; what it
 * started (a make's compilers, a recipe's daemon that left its session)
 * comes to this process, a subreaper (bv_child_die_with_parent), once the
 * step is gone, and is killed after wait_child reaps it (end_step). */
static void stop_step(pid_t pid)
{
	build_expired = 1;
	kill(pid, SIGKILL);
}

static void end_step(void)
{
	if (build_expired)
		bv_kill_children();
}

/* Waits for a tracked child, through the EINTRs our handler causes. */
static int wait_child(pid_t pid, const char *name, int *status)
{
	int rc = 0;
	while (waitpid(pid, status, 0) < 0)
		if (errno != EINTR) {
			rc = bv_fail(BV_ERUN, "waiting for %s: %s", name, strerror(errno));
			break;
		}
	bv_child_untrack(pid);
	return rc;
}

int bv_run(char *const argv[], const char *cwd, const char *log, bv_child_env kind)
{
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	if (cwd)
		posix_spawn_file_actions_addchdir_np(&fa, cwd);
	if (log) {
		posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_APPEND, 0644);
		posix_spawn_file_actions_adddup2(&fa, 1, 2);
	}
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	pid_t pid;
	char **env = bv_child_environ(environ, kind);
	int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, env);
	free(env);
	posix_spawn_file_actions_destroy(&fa);
	if (rc != 0)
		return bv_fail(BV_ERUN, "cannot start %s: %s", argv[0], strerror(rc));
	bv_child_track(pid);
	double deadline = deadline_of(kind);
	if (deadline > 0 && bv_wait_exit(pid, deadline) == 1)
		stop_step(pid);
	int status;
	rc = wait_child(pid, argv[0], &status);
	end_step();
	if (rc != 0)
		return rc;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + WTERMSIG(status);
}

/* Starts argv (no shell) with stdin from /dev/null and stdout (and stderr
 * too when with_stderr) into a pipe whose read end goes to *fd; the child is
 * tracked so a signal reaches it.  Used by bv_run_capture and bv_run_tail. */
static int spawn_piped(char *const argv[], int with_stderr, bv_child_env kind, pid_t *pid, int *fd)
{
	int fds[2];
	if (pipe2(fds, O_CLOEXEC) != 0)
		return bv_fail(BV_ERUN, "pipe: %s", strerror(errno));
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
	if (with_stderr)
		posix_spawn_file_actions_adddup2(&fa, fds[1], 2);
	char **env = bv_child_environ(environ, kind);
	int rc = posix_spawnp(pid, argv[0], &fa, NULL, argv, env);
	free(env);
	posix_spawn_file_actions_destroy(&fa);
	close(fds[1]);
	if (rc != 0) {
		close(fds[0]);
		return bv_fail(BV_ERUN, "cannot start %s: %s", argv[0], strerror(rc));
	}
	bv_child_track(*pid);
	*fd = fds[0];
	return 0;
}

/* What bv_run_capture keeps: the first max bytes. */
typedef struct capture {
	bv_buf b;
	size_t max;
} capture;

static void keep_head(void *ctx, const char *data, size_t n)
{
	capture *c = ctx;
	if (c->b.len < c->max)
		bv_buf_putn(&c->b, data, n < c->max - c->b.len ? n : c->max - c->b.len);
}

int bv_run_capture(char *const argv[], size_t max, char **out)
{
	*out = NULL;
	int fd;
	pid_t pid;
	int rc = spawn_piped(argv, 0, BV_ENV_BUILD, &pid, &fd);
	if (rc != 0)
		return rc;
	/* Read everything (so the child never blocks on a full pipe), keep max;
	 * until the child ends, not the pipe (a process it left may hold it). */
	capture c = {BV_BUF_INIT, max};
	if (bv_read_child(fd, pid, deadline_of(BV_ENV_BUILD), keep_head, &c) == 1)
		stop_step(pid);
	bv_buf b = c.b;
	close(fd);
	int status;
	rc = wait_child(pid, argv[0], &status);
	end_step();
	if (rc != 0) {
		bv_buf_free(&b);
		return rc;
	}
	*out = bv_buf_detach(&b);
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + WTERMSIG(status);
}

/* What bv_run_tail does with the output: appended to the log, the last
 * max bytes kept. */
typedef struct tailer {
	bv_buf b;
	size_t max;
	int logfd;
} tailer;

static void keep_tail(void *ctx, const char *data, size_t n)
{
	tailer *t = ctx;
	/* All of it or none: a short write (a signal, a full disk) would leave
	 * a hole in the log the user is pointed to. */
	if (t->logfd >= 0 && bv_write_all(t->logfd, data, n) != 0) {
		close(t->logfd);
		t->logfd = -1;
	}
	bv_buf_putn(&t->b, data, n);
	if (t->b.len > 2 * t->max) { /* keep the end */
		memmove(t->b.s, t->b.s + t->b.len - t->max, t->max);
		t->b.len = t->max;
		t->b.s[t->b.len] = '\0';
	}
}

int bv_run_tail(char *const argv[], const char *log, size_t max, char **tail, bv_child_env kind)
{
	*tail = NULL;
	int fd;
	pid_t pid;
	int rc = spawn_piped(argv, 1, kind, &pid, &fd);
	if (rc != 0)
		return rc;
	/* The log is best effort (it may sit on the disk that filled up); the
	 * tail in memory is what an error message quotes. */
	tailer t = {BV_BUF_INIT, max, log ? open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644) : -1};
	bv_buf_puts(&t.b, "");
	/* Until the child ends, not the pipe: a process it left behind (a
	 * kernel's setsid()'d child) may hold the pipe open for ever. */
	if (bv_read_child(fd, pid, deadline_of(kind), keep_tail, &t) == 1)
		stop_step(pid);
	bv_buf b = t.b;
	close(fd);
	if (t.logfd >= 0)
		close(t.logfd);
	int status;
	rc = wait_child(pid, argv[0], &status);
	end_step();
	if (rc != 0) {
		bv_buf_free(&b);
		return rc;
	}
	if (b.len > max) {
		memmove(b.s, b.s + b.len - max, max);
		b.len = max;
		b.s[b.len] = '\0';
	}
	*tail = bv_buf_detach(&b);
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + WTERMSIG(status);
}
