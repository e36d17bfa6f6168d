/* child.c - reading a child's output to its end, and ending its leftovers (see child.h). */
#include "child.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* A descriptor that polls readable once pid has exited (Linux 5.3; it is
 * close-on-exec), or -1: then the reader looks with waitid once a second,
 * as often as it woke before anyway. */
static int pidfd_of(pid_t pid)
{
#ifdef SYS_pidfd_open
	return (int)syscall(SYS_pidfd_open, pid, 0);
#else
	(void)pid;
	return -1;
#endif
}

static int exited(pid_t pid)
{
	siginfo_t si;
	memset(&si, 0, sizeof(si));
	return waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == pid;
}

int bv_read_child(int fd, pid_t pid, double deadline_ns, bv_sink sink, void *ctx)
{
	return bv_read_child_watch(fd, pid, deadline_ns, sink, ctx, NULL, NULL, 0);
}

int bv_read_child_watch(int fd, pid_t pid, double deadline_ns, bv_sink sink, void *ctx, bv_watch watch,
			void *wctx, int watch_ms)
{
	int pidfd = pidfd_of(pid);
	int gone = 0, rc = 0;
	long drain = 0; /* once the child is gone: what the pipe can still hold of its output */
	char buf[65536];
	double next_watch = watch ? mono_ns() : 0;
	for (;;) {
		if (watch && !gone && mono_ns() >= next_watch) {
			if (watch(wctx, pid)) {
				rc = 2;
				break;
			}
			next_watch = mono_ns() + watch_ms * 1e6;
		}
		int wait_ms = gone ? 0 : pidfd >= 0 ? -1 : 1000;
		if (watch && !gone) {
			int to_watch = (int)((next_watch - mono_ns()) / 1e6) + 1;
			if (wait_ms < 0 || to_watch < wait_ms)
				wait_ms = to_watch > 0 ? to_watch : 0;
		}
		if (deadline_ns > 0) {
			double left = deadline_ns - mono_ns();
			if (left <= 0) {
				rc = 1;
				break;
			}
			int ms = left / 1e6 < 3.6e6 ? (int)(left / 1e6) + 1 : 3600 * 1000;
			if (!gone && (wait_ms < 0 || ms < wait_ms))
				wait_ms = ms;
		}
		struct pollfd p[2] = {{fd, POLLIN, 0}, {pidfd, POLLIN, 0}};
		int n = poll(p, pidfd >= 0 && !gone ? 2 : 1, wait_ms);
		if (n < 0 && errno == EINTR)
			continue; /* a signal the caller handles; its child ends by it, or not */
		if (n < 0) {
			rc = -1;
			break;
		}
		if (!gone && (pidfd >= 0 ? p[1].revents != 0 : exited(pid))) {
			/* Everything it wrote is in the pipe now, at most a pipe's
			 * capacity; what comes later is not the child's. */
			gone = 1;
			int cap = fcntl(fd, F_GETPIPE_SZ);
			drain = cap > 0 ? cap : 1 << 20;
			continue;
		}
		if (n == 0 || !p[0].revents) {
			if (gone)
				break;
			continue;
		}
		size_t want = gone && (size_t)drain < sizeof(buf) ? (size_t)drain : sizeof(buf);
		ssize_t r = read(fd, buf, want);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			rc = -1;
			break;
		}
		if (r == 0)
			break;
		sink(ctx, buf, (size_t)r);
		if (gone && (drain -= r) <= 0)
			break;
	}
	if (pidfd >= 0) {
		int e = errno;
		close(pidfd);
		errno = e;
	}
	return rc;
}

int bv_wait_exit(pid_t pid, double deadline_ns)
{
	int pidfd = pidfd_of(pid), rc = 1;
	for (;;) {
		if (pidfd < 0 ? exited(pid) : 0) {
			rc = 0;
			break;
		}
		double left = deadline_ns - mono_ns();
		if (left <= 0)
			break;
		int ms = left / 1e6 < 3.6e6 ? (int)(left / 1e6) + 1 : 3600 * 1000;
		if (pidfd < 0) { /* no pidfd: look again in at most 100 ms */
			nanosleep(&(struct timespec){0, (ms < 100 ? ms : 100) * 1000L * 1000}, NULL);
			continue;
		}
		struct pollfd p = {pidfd, POLLIN, 0};
		int n = poll(&p, 1, ms);
		if (n > 0) {
			rc = 0;
			break;
		}
		if (n < 0 && errno != EINTR) { /* cannot poll: look with waitid instead */
			close(pidfd);
			pidfd = -1;
		}
	}
	if (pidfd >= 0)
		close(pidfd);
	return rc;
}

/* This process's children as /proc shows them (their parent is us), at
 * most max; -1 when /proc cannot be read. */
static int our_children(pid_t *out, int max)
{
	DIR *d = opendir("/proc");
	if (!d)
		return -1;
	long me = (long)getpid();
	int n = 0;
	struct dirent *e;
	while (n < max && (e = readdir(d))) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);
		if (*end || pid <= 0)
			continue;
		char path[64], stat[512];
		snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		ssize_t r = read(fd, stat, sizeof(stat) - 1);
		close(fd);
		if (r <= 0)
			continue;
		stat[r] = '\0';
		/* "PID (COMM) STATE PPID ...": COMM may hold spaces and ')'. */
		const char *paren = strrchr(stat, ')');
		char state;
		long ppid;
		/* A zombie is dead already: the next waitpid takes it. */
		if (paren && sscanf(paren + 1, " %c %ld", &state, &ppid) == 2 && ppid == me && state != 'Z')
			out[n++] = (pid_t)pid;
	}
	closedir(d);
	return n;
}

int bv_kill_children(void)
{
	/* One still dying is listed again: count each once. */
	pid_t seen[1024];
	int killed = 0;
	/* Each round kills the children there are; their own children then
	 * come to us (a subreaper) for the next.  Bounded: a fork bomb must
	 * not keep us here. */
	for (int round = 0; round < 1000; round++) {
		int status;
		pid_t p;
		while ((p = waitpid(-1, &status, WNOHANG)) > 0)
			;
		if (p < 0 && errno == EINTR)
			continue;
		if (p < 0)
			break; /* ECHILD: none left */
		pid_t kids[256];
		int n = our_children(kids, 256);
		if (n < 0)
			break;
		for (int i = 0; i < n; i++) {
			if (kill(kids[i], SIGKILL) != 0)
				continue;
			int again = 0;
			for (int k = 0; k < killed && k < 1024 && !again; k++)
				again = seen[k] == kids[i];
			if (!again && killed < 1024)
				seen[killed] = kids[i];
			killed += !again;
		}
		if (n > 0)
			while (waitpid(-1, &status, 0) < 0 && errno == EINTR)
				;
		else /* alive, but not in /proc yet as ours: an orphan on its way */
			nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
	}
	return killed;
}
