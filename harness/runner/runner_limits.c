/*
 * runner_limits.c - bv-runner's child processes and the limits each runs
 * under: in_child forks the check or timing of one cell, reads its JSON
 * result, and turns a crash, a --timeout, or memory past --memory-limit
 * (RLIMIT_DATA in the child, its shared memory watched from here) into the
 * cell's status; OUT.cell (at_say) names the cell whose child runs.
 * Separate because it is the runner's isolation, the same for every kind
 * of child, and knows nothing of what a child measures.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runner_internal.h"
#include "child.h"

/* ---- child processes -------------------------------------------------- */

/* What a child sent, as it arrives (bv_read_child's sink). */
typedef struct received {
	char *buf;
	size_t used, cap;
	int lost; /* out of memory: the result is incomplete */
} received;

static void receive(void *ctx, const char *data, size_t n)
{
	received *r = ctx;
	if (r->lost)
		return;
	if (r->cap - r->used < n + 1) {
		size_t cap = r->cap ? r->cap : 65536;
		while (cap - r->used < n + 1)
			cap *= 2;
		char *grown = realloc(r->buf, cap);
		if (!grown) {
			r->lost = 1;
			return;
		}
		r->buf = grown, r->cap = cap;
	}
	memcpy(r->buf + r->used, data, n);
	r->used += n;
}

/* ---- the memory limit ------------------------------------------------- */

/* --memory-limit: what a check or timing child may allocate beyond what the
 * runner holds when it forks (the cell's inputs, the loaded libraries), so
 * that a kernel touching 20 GB on a 23 GB machine stops its own cell, not
 * the machine (the system's OOM killer picks any process).  0: none.
 *
 * RLIMIT_DATA rather than RLIMIT_AS: the CUDA driver reserves large address
 * ranges (PROT_NONE, not data) that RLIMIT_AS would count, and so does the
 * sanitizers' shadow memory; RLIMIT_DATA counts private writable mappings,
 * which is what malloc gets.  A refused allocation is malloc returning NULL
 * with errno ENOMEM; a kernel that goes on into the NULL dies of SIGSEGV
 * with errno still ENOMEM, which the handler below turns into the cell's
 * status "out of memory"; a kernel that checks reports a failure, turned
 * the same way. */
unsigned long long memory_limit;

/* In the child: the result to send if it dies of a failed allocation, one
 * per signal, made before the kernel runs (nothing in a handler formats). */
static const int oom_signals[] = {SIGSEGV, SIGBUS, SIGABRT};
static char oom_result[3][512];
static size_t oom_len[3];
static int oom_fd = -1;
static char oom_stack[65536]; /* the handler's stack: the kernel's may be what overflowed */

/* A field of /proc/PID/status ("VmData:", "RssShmem:"), in bytes; -1 if
 * /proc does not say (a zombie has no memory fields).  pid 0: ours. */
static long long status_bytes(pid_t pid, const char *field)
{
	char path[64];
	if (pid)
		snprintf(path, sizeof(path), "/proc/%ld/status", (long)pid);
	else
		snprintf(path, sizeof(path), "/proc/self/status");
	FILE *f = fopen(path, "re");
	char line[256];
	size_t n = strlen(field);
	long long kb = -1;
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, field, n))
			kb = atoll(line + n);
	if (f)
		fclose(f);
	return kb < 0 ? -1 : kb * 1024;
}

/* Private writable memory the process holds now (VmData), in bytes; -1 if
 * /proc does not say. */
static long long data_bytes(void) { return status_bytes(0, "VmData:"); }

/* RLIMIT_DATA does not count shared mappings: a kernel that touches 20 GB
 * through mmap(MAP_SHARED | MAP_ANONYMOUS), a memfd, shm_open or SysV shm
 * is not refused anything.  So the runner watches what no rlimit limits,
 * the child's resident shared memory (RssShmem: those pages, once
 * touched), every SHMEM_WATCH_MS while it runs, and kills it past what the
 * runner held at fork plus --memory-limit.  Between two looks a kernel can
 * go past the limit by what it touches in that time (at a few GB/s, some
 * hundred MB), and the watch is per process, as RLIMIT_DATA is: a kernel
 * that forks has the limit in each process. */
#define SHMEM_WATCH_MS 50

typedef struct shmem_watch {
	long long allowed; /* RssShmem past this kills the child */
	long long seen;	   /* what it had when it was killed */
} shmem_watch;

static int shmem_past(void *ctx, pid_t pid)
{
	shmem_watch *w = ctx;
	long long now = status_bytes(pid, "RssShmem:");
	if (now <= w->allowed)
		return 0;
	w->seen = now;
	return 1;
}

static void limit_text(char *buf, size_t len)
{
	double b = (double)memory_limit;
	if (b >= 1024.0 * 1024 * 1024)
		snprintf(buf, len, "%.3g GiB", b / (1024.0 * 1024 * 1024));
	else
		snprintf(buf, len, "%.3g MiB", b / (1024.0 * 1024));
}

static void oom_handler(int sig)
{
	if (errno == ENOMEM)
		for (int i = 0; i < 3; i++)
			if (oom_signals[i] == sig && oom_fd >= 0) {
				ssize_t w = write(oom_fd, oom_result[i], oom_len[i]);
				_exit(w == (ssize_t)oom_len[i] ? 0 : 3);
			}
	/* Not a failed allocation: the crash it is (SA_RESETHAND made the
	 * action the default again, SA_NODEFER lets it through now). */
	raise(sig);
}

/* In a child, before the kernel runs: the limit, and the handler that
 * reports a death after a refused allocation on fd.  held: what the
 * runner held when it forked (data_bytes). */
static void limit_memory(long long held, int fd)
{
	if (!memory_limit || held < 0)
		return;
	struct rlimit rl;
	if (getrlimit(RLIMIT_DATA, &rl) != 0)
		return;
	rlim_t want = (rlim_t)held + (rlim_t)memory_limit;
	if (rl.rlim_max != RLIM_INFINITY && want > rl.rlim_max)
		want = rl.rlim_max; /* a lower limit set from outside stays */
	rl.rlim_cur = rl.rlim_max = want;
	if (setrlimit(RLIMIT_DATA, &rl) != 0)
		return;
	char limit[64];
	limit_text(limit, sizeof(limit));
	for (int i = 0; i < 3; i++) {
		char reason[256];
		snprintf(reason, sizeof(reason),
			 "an allocation past --memory-limit (%s beyond the runner's own) was refused, then "
			 "signal %d (%s)",
			 limit, oom_signals[i], strsignal(oom_signals[i]));
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "status", "out of memory");
		cJSON_AddStringToObject(o, "reason", reason);
		char *text = cJSON_PrintUnformatted(o);
		snprintf(oom_result[i], sizeof(oom_result[i]), "%s", text ? text : "");
		oom_len[i] = strlen(oom_result[i]);
		free(text);
		cJSON_Delete(o);
	}
	oom_fd = fd;
	stack_t ss = {.ss_sp = oom_stack, .ss_size = sizeof(oom_stack)};
	sigaltstack(&ss, NULL);
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = oom_handler;
	sa.sa_flags = SA_RESETHAND | SA_NODEFER | SA_ONSTACK;
	for (int i = 0; i < 3; i++)
		sigaction(oom_signals[i], &sa, NULL);
}

/* A failure the kernel or the runner's own code reported after a refused
 * allocation (errno ENOMEM) is the limit's doing: "out of memory". */
static void oom_status(cJSON *out, int err)
{
	const cJSON *st = cJSON_GetObjectItemCaseSensitive(out, "status");
	if (oom_fd < 0 || err != ENOMEM || !cJSON_IsString(st) || strcmp(st->valuestring, "failed"))
		return;
	const cJSON *was = cJSON_GetObjectItemCaseSensitive(out, "reason");
	char limit[64], reason[512];
	limit_text(limit, sizeof(limit));
	snprintf(reason, sizeof(reason), "an allocation past --memory-limit (%s beyond the runner's own) was refused: %s",
		 limit, cJSON_IsString(was) ? was->valuestring : "failed");
	cJSON_ReplaceItemInObject(out, "status", cJSON_CreateString("out of memory"));
	if (cJSON_IsString(was))
		cJSON_ReplaceItemInObject(out, "reason", cJSON_CreateString(reason));
	else
		cJSON_AddStringToObject(out, "reason", reason);
}

/* What this process is measuring now, in OUT.cell beside its --out
 * document: "INDEX LABEL" while LABEL's check of cell INDEX runs in its
 * child, "INDEX" while the cell's versions are timed in theirs, empty
 * otherwise.  Code under test that kills this process (kill(getppid(),
 * SIGKILL) from its child) leaves no document; the file says which cell
 * and version did, so that bench-versions marks that cell crashed and
 * measures the others in a new process (measure.c, run_process).  A write
 * is in the file for other processes at once: nothing to flush. */
static int at_fd = -1;

void at_open(const char *out)
{
	char path[PATH_MAX];
	if (snprintf(path, sizeof(path), "%s.cell", out) < (int)sizeof(path))
		at_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
}

void at_close(const char *out)
{
	char path[PATH_MAX];
	if (at_fd < 0)
		return;
	close(at_fd);
	at_fd = -1;
	if (snprintf(path, sizeof(path), "%s.cell", out) < (int)sizeof(path))
		unlink(path);
}

/* index < 0: between children.  The new text first, then the length: a
 * death between the two leaves the new first line, which is all that is
 * read. */
void at_say(long index, const char *label)
{
	char buf[256];
	int n = index < 0 ? 0 : label ? snprintf(buf, sizeof(buf), "%ld %s\n", index, label)
				      : snprintf(buf, sizeof(buf), "%ld\n", index);
	if (at_fd < 0 || n < 0 || n >= (int)sizeof(buf))
		return;
	/* best effort: without the file, a death is reported as a runner's */
	if (n > 0 && pwrite(at_fd, buf, (size_t)n, 0) != n)
		return;
	int rc = ftruncate(at_fd, n);
	(void)rc;
}

/* Runs fn(arg) in a child and returns the JSON object it printed.  When the
 * child dies by a signal, exits without a result, outlives timeout_s or holds
 * more shared memory than --memory-limit allows (shmem_past), the result is
 * NULL and why says which ("crashed"/"timeout"/"out of memory") and how.
 *
 * The child leads a process group of its own, killed whole when the call
 * ends; a process that left the group (setsid) comes to us as an orphan,
 * the runner being a subreaper, and is killed then too.  Nothing a kernel
 * starts outlives its cell, and nothing it holds open (the result pipe,
 * our stdout) keeps the runner or bench-versions waiting. */
cJSON *in_child(cJSON *(*fn)(void *), void *arg, double timeout_s, const char **status, char *why,
		       size_t len)
{
	int fds[2];
	*status = "failed";
	if (pipe(fds) != 0) {
		snprintf(why, len, "pipe: %s", strerror(errno));
		return NULL;
	}
	fflush(NULL);
	pid_t parent = getpid();
	long long held = memory_limit ? data_bytes() : -1;
	long long held_shmem = memory_limit ? status_bytes(0, "RssShmem:") : -1;
	shmem_watch watch = {held_shmem < 0 ? -1 : held_shmem + (long long)memory_limit, 0};
	pid_t pid = fork();
	if (pid < 0) {
		snprintf(why, len, "fork: %s", strerror(errno));
		close(fds[0]), close(fds[1]);
		return NULL;
	}
	if (pid == 0) {
		setpgid(0, 0);
		/* If the runner is killed (an interrupted run), a child spinning in
		 * a hung kernel must not outlive it. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(3);
		close(fds[0]);
		limit_memory(held, fds[1]);
		errno = 0;
		cJSON *out = fn(arg);
		oom_status(out, errno);
		char *text = out ? cJSON_PrintUnformatted(out) : NULL;
		size_t n = text ? strlen(text) : 0, off = 0;
		while (off < n) {
			ssize_t w = write(fds[1], text + off, n - off);
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				_exit(3);
			off += (size_t)w;
		}
		/* Freed although the process ends here: memcheck follows these
		 * children (tests/valgrind.sh) and must see no leak of ours. */
		int code = text ? 0 : 3;
		free(text);
		cJSON_Delete(out);
		_exit(code);
	}
	close(fds[1]);
	setpgid(pid, pid); /* as the child does: whichever runs first */
	received got = {0};
	int how = bv_read_child_watch(fds[0], pid, now_ns() + timeout_s * 1e9, receive, &got,
				       watch.allowed >= 0 ? shmem_past : NULL, &watch, SHMEM_WATCH_MS);
	int timed_out = how == 1, shmem_out = how == 2;
	close(fds[0]);
	/* Before the child is reaped its pid cannot be reused, so the group
	 * killed is its own: what it started and left in it. */
	if (timed_out || shmem_out)
		kill(pid, SIGKILL);
	kill(-pid, SIGKILL);
	int ws = 0;
	while (waitpid(pid, &ws, 0) < 0 && errno == EINTR)
		;
	bv_kill_children();
	char *buf = got.lost ? NULL : got.buf;
	size_t used = got.used;
	if (got.lost)
		free(got.buf);
	cJSON *res = NULL;
	if (timed_out) {
		*status = "timeout";
		snprintf(why, len, "no result after %g s; killed", timeout_s);
	} else if (shmem_out) {
		char limit[64];
		limit_text(limit, sizeof(limit));
		*status = "out of memory";
		snprintf(why, len,
			 "shared memory (MAP_SHARED, memfd, shm) past --memory-limit (%s beyond the runner's own): "
			 "%.0f MiB resident; killed",
			 limit, (double)watch.seen / (1024.0 * 1024));
	} else if (WIFSIGNALED(ws)) {
		*status = "crashed";
		snprintf(why, len, "killed by signal %d (%s)", WTERMSIG(ws), strsignal(WTERMSIG(ws)));
	} else if (!WIFEXITED(ws) || WEXITSTATUS(ws) != 0 || !buf) {
		snprintf(why, len, "exited with status %d without a result", WIFEXITED(ws) ? WEXITSTATUS(ws) : -1);
	} else {
		buf[used] = '\0';
		res = cJSON_Parse(buf);
		if (!res)
			snprintf(why, len, "sent a result that is not JSON");
		else
			*status = "ok";
	}
	free(buf);
	return res;
}
