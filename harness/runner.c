/*
 * runner.c - bv-runner, the measuring host: one short process that loads
 * every version's plugin, then for each cell of the matrix checks every
 * version's output against the reference and times the versions alternately,
 * in a fresh random order each round, on the same input buffers.
 *
 * Why one process for all versions: on these machines a process keeps one
 * speed level for its whole life (measurement.md), so timing version A in one
 * process and B in another compares the levels, not the code.  Pairing A and B
 * inside each process cancels the level; the orchestrator then runs many such
 * processes and takes the median over them, because code placement still
 * differs between processes.  The plugins are loaded in a random order per
 * process, so neither version always gets the first address.
 *
 * Every cell is a benchmark of a suite: the bundled catalog's (catalog.c,
 * the suite "kernels") or a project's (bv_suite.h).  Each version's setup
 * makes the cell's inputs; in the timing child the versions' inputs are one
 * memory (bvs_alloc_shared through share_take), so no version runs on other
 * addresses or fresher pages than another.
 *
 * Why a child process per step: a version that crashes or hangs in one cell
 * must cost that cell only.  The runner forks a child to check each version
 * (one child per version, so a crash is pinned on the version that crashed)
 * and one child to time the versions that passed; a child that dies by a
 * signal or outlives --timeout becomes that cell's status, and the runner
 * goes on with the next cell.  Cells an earlier process of the same run has
 * checked (--checked) go straight to timing.
 *
 *   bv-runner --out FILE [--seed N] [--rounds N] [--sample-us N] [--timeout S]
 *             [--pin CPU] [--only I,J,..] [--checked I,J,..] [--drop I:LABEL]...
 *             [--cell-ms MS] [--threads N] [--inputs N] [--memory-limit BYTES] [--probe-fd FD]
 *             [--simd-isa ISA]
 *             [--benches L] [--ops L] [--backends L] [--sizes L]
 *             LABEL=PLUGIN.so ...
 *   bv-runner --calibrate --out FILE
 *   bv-runner --count --only I [--simd-isa ISA] [lists] --out FILE LABEL=PLUGIN.so
 *   bv-runner --describe --out FILE LABEL=PLUGIN.so ...
 *   bv-runner --load LABEL=PLUGIN.so ...
 *
 * --load loads each plugin as a measuring process does and exits: 0, or 3
 * with dlerror()'s reason (bench-versions checks a build this way before it
 * caches it, so a plugin that cannot load costs its own version's build,
 * not every later run).
 *
 * --describe writes each plugin's suite description (suite_plugin.c, schema
 * "bv-runner-describe/1": {"versions": {LABEL: description or null}}), which
 * bench-versions merges into the run's suite file; the runs that measure it
 * get --suite-file F --suite-hash H (as --ops-file, --ops-hash).  A suite
 * cell (BV_K_SUITE) is opened, checked and closed by its plugin; the runner
 * compares every version's output with the first LABEL's (the baseline).
 *
 * --count is for running under Valgrind's callgrind with --instr-atstart=no
 * --collect-atstart=no (bench-versions' counts stage, counts.c): one
 * version, one cell; simulation starts before one warm call, then the
 * counted call runs between two collection toggles, so callgrind's
 * file holds the timed call and nothing else: no setup, no input making, no
 * check.  In this process, no child: Valgrind is the isolation, and its exit
 * status and the file are what counts.c reads.
 *
 * Writes one JSON document (schema "bv-runner/2") with every cell's status
 * and raw samples per version; exit 0, or 2 on bad arguments, 3 when a plugin
 * cannot be loaded or the output cannot be written.  While it measures,
 * FILE.cell names the cell (and version) whose child runs (at_say).
 */
#include <cjson/cJSON.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <valgrind/callgrind.h>

#include "benches.h"
#include "calibrate.h"
#include "child.h"
#include "pages.h"
#include "numbers.h"
#include "ops_file.h"
#include "plugin.h"
#include "runner.h"
#include "suite_file.h"
#include "trust.h"

#define MAX_VERSIONS BV_RUNNER_MAX_VERSIONS
#define ST_WRONG (-1) /* status: output differs from the reference */
/* --count: the largest footprint whose warm call is simulated too, twice
 * counts.h's simulated LL (8 MiB) */
#define BV_COUNT_WARM_MAX (16.0 * 1024 * 1024)

typedef struct version {
	const char *label;
	const bv_plugin *p;
	/* --simd-isa that this version's suite library could not be forced
	 * onto (BVS_LIBRARY without set_isa, or its refusal): why, and its
	 * suite cells are n/a here rather than measured on another ISA. */
	char isa_refused[1000]; /* fits a reason (1024) */
} version;

/* A version's state in the child that times a cell. */
typedef struct timed {
	version *v;
	bv_call call; /* the benchmark's run (the suite's trampoline) */
	bv_args args; /* args.cell: the cell's state (suite_open) */
	double *samples;
	long retaken, contaminated; /* re-takes, and samples kept though preempted */
} timed;

/* What the parent knows of a cell before any child forks: its layout (a
 * catalog cell's footprint and input sets are the layout's) and the input
 * sets the run asks for (--inputs: every version's setup makes its own). */
typedef struct cell_data {
	const bv_cell *c;
	bv_layout l;
	int inputs;
} cell_data;

typedef struct settings {
	int rounds;
	double sample_ns;
	double timeout_s;
	double cell_ns; /* target time for timing one cell in this process */
	int threads;    /* threads a backend may use (--threads) */
	int inputs;     /* input sets cycled through (--inputs) */
} settings;

static uint64_t rng_state;

static uint64_t rng_next(void)
{
	/* xorshift64*: the order of versions only needs to be unpredictable
	 * with respect to the machine, not cryptographic. */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

static void shuffle(int *v, int n)
{
	for (int i = n - 1; i > 0; i--) {
		int j = (int)(rng_next() % (uint64_t)(i + 1)), t = v[i];
		v[i] = v[j], v[j] = t;
	}
}

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void usage(void)
{
	fprintf(stderr, "usage: bv-runner --out FILE [--seed N] [--rounds N] [--sample-us N] [--timeout S]\n"
			"                 [--pin CPU] [--only I,J] [--checked I,J] [--drop I:LABEL]\n"
			"                 [--cell-ms MS] [--threads N] [--inputs N] [--memory-limit BYTES]\n"
			"                 [--probe-fd FD]\n"
			"                 [--simd-isa ISA] [--ops-file FILE --ops-hash H]\n"
			"                 [--suite-file FILE --suite-hash H]\n"
			"                 [--benches L] [--ops L]\n"
			"                 [--backends L] [--sizes L] LABEL=PLUGIN ...\n"
			"       bv-runner --calibrate --out FILE\n"
			"       bv-runner --count --only I [--simd-isa ISA] [lists] --out FILE LABEL=PLUGIN\n"
			"       bv-runner --describe --out FILE LABEL=PLUGIN ...\n"
			"       bv-runner --load LABEL=PLUGIN ...\n");
	exit(2);
}

static const char *status_name(int s)
{
	switch (s) {
	case BV_OK: return "ok";
	case BV_NA: return "n/a";
	case BV_UNAVAILABLE: return "skipped";
	case ST_WRONG: return "wrong result";
	default: return "failed";
	}
}

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
static unsigned long long memory_limit;

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

static void at_open(const char *out)
{
	char path[PATH_MAX];
	if (snprintf(path, sizeof(path), "%s.cell", out) < (int)sizeof(path))
		at_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
}

static void at_close(const char *out)
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
static void at_say(long index, const char *label)
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
static cJSON *in_child(cJSON *(*fn)(void *), void *arg, double timeout_s, const char **status, char *why,
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

/* ---- checking one version in one cell (in a child) -------------------- */

typedef struct check_job {
	version *v;
	const cell_data *d;
	int out_fd; /* a suite cell's: where the plugin writes the output (-1: none) */
} check_job;

/* A reason as the log may hold it: the text comes from the library or the
 * suite under test (its bvs_fail, its last error), so it may hold anything.
 * Control characters and bytes that are not well-formed UTF-8 become '?':
 * the log stays valid JSON text for every reader, not only cJSON.  Line
 * breaks and tabs too (docs/suites.md): a reason is one line of the
 * table's notes and of every export, never the start of another. */
static void reason_text(const char *in, char *out, size_t len)
{
	const unsigned char *s = (const unsigned char *)in;
	size_t o = 0;
	while (*s && o + 5 < len) {
		int n = *s < 0x80 ? 1 : (*s & 0xe0) == 0xc0 ? 2 : (*s & 0xf0) == 0xe0 ? 3 : (*s & 0xf8) == 0xf0 ? 4 : 0;
		int ok = n > 0 && !(n == 2 && *s < 0xc2);
		for (int k = 1; ok && k < n; k++)
			ok = (s[k] & 0xc0) == 0x80;
		if (!ok || (n == 1 && (*s < 0x20 || *s == 0x7f))) {
			out[o++] = '?', s++;
			continue;
		}
		memcpy(out + o, s, (size_t)n);
		o += (size_t)n, s += n;
	}
	out[o] = '\0';
}

static cJSON *status_object(int s, const char *reason)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "status", status_name(s));
	if (reason && *reason) {
		char clean[2048];
		reason_text(reason, clean, sizeof(clean));
		cJSON_AddStringToObject(o, "reason", clean);
	}
	return o;
}

/* ---- opening a cell in a version ------------------------------------------- */

/* The cell's seed: FNV-1a 64 of "suite/op/backend/size", its registered
 * names, so every version and process draws the same inputs for it. */
static uint64_t suite_seed(const bv_cell *c)
{
	char size[32], key[1400];
	snprintf(key, sizeof(key), "%s/%s/%s/%s", c->bench->name, c->op->name, c->backend,
		 bv_size_format(c->size, size, sizeof(size)));
	uint64_t h = 0xcbf29ce484222325ull;
	for (const char *p = key; *p; p++)
		h = (h ^ (unsigned char)*p) * 0x100000001b3ull;
	return h;
}

/* Every parameter of the cell, as suite_open takes them: the other
 * parameters, then the variant's, then size's ("level=9 variant=avx2
 * size=64K"; size as --sizes writes it). */
static void suite_params(const bv_cell *c, char *buf, size_t len)
{
	const bv_suite_op *so = c->op->suite;
	char size[32];
	size_t at = (size_t)snprintf(buf, len, "%s", so->params);
	if (so->variant && at < len)
		at += (size_t)snprintf(buf + at, len - at, "%s%s=%s", at ? " " : "", so->variant, c->backend);
	if (so->has_size && at < len)
		snprintf(buf + at, len - at, "%ssize=%s", at ? " " : "", bv_size_format(c->size, size, sizeof(size)));
}

/* Whether c is a cell of the bundled catalog (ops.def's, or an ops file's),
 * not of a project suite. */
static int catalog_cell(const bv_cell *c)
{
	return c->op->kind != BV_K_SUITE;
}

/* Opens t's cell in its version: the timed call (lookup: the benchmark's
 * run) and the cell's state (suite_open: setup), in args.cell.  A catalog
 * cell (catalog_cell) is the benchmark "<group>__<op>" of the suite
 * BV_CATALOG_SUITE_NAME, with the parameters "backend=B size=S". */
static int suite_setup(timed *t, const bv_cell *c, int inputs, char *reason, size_t len)
{
	const bv_plugin *p = t->v->p;
	char params[1200], bench[200];
	const char *group = c->bench->name;
	int catalog = catalog_cell(c);
	if (t->v->isa_refused[0]) {
		snprintf(reason, len, "%s", t->v->isa_refused);
		return BV_NA;
	}
	if (!p->suite_open) {
		snprintf(reason, len, "%s's plugin has no suite (built without one)", t->v->label);
		return BV_FAILED;
	}
	if (catalog && !p->catalog) {
		/* a project suite's plugin: the bundled catalog is not in it */
		snprintf(reason, len, "%s's plugin is a project suite's, without the bundled catalog", t->v->label);
		return BV_NA;
	}
	if (catalog) {
		char size[32];
		group = BV_CATALOG_SUITE_NAME;
		snprintf(bench, sizeof(bench), "%s__%s", c->bench->name, c->op->name);
		snprintf(params, sizeof(params), "backend=%s size=%s", c->backend,
			 bv_size_format(c->size, size, sizeof(size)));
	} else {
		snprintf(bench, sizeof(bench), "%s", c->op->suite->bench);
		suite_params(c, params, sizeof(params));
	}
	int s = p->lookup(group, bench, c->backend, &t->call);
	if (s != BV_OK) {
		snprintf(reason, len, "%s", p->last_error());
		return s;
	}
	s = p->suite_open(bench, params, suite_seed(c), inputs, &t->args.cell);
	if (s != BV_OK)
		snprintf(reason, len, "%s", p->last_error());
	return s;
}

/* The memory suite cells share between the versions timed side by side
 * (bv_suite.h's bvs_alloc_shared; bv_share_fn): the index-th buffer of the
 * cell, made by the first version that asks and given to every later one
 * that asks for as many bytes, so they run on the same addresses and pages
 * (no version on fresher pages or other alignment than another).  A version
 * that asks for another size gets memory of its own. */
typedef struct share_arena {
	struct {
		void *buf;
		size_t bytes;
	} *made;                 /* every buffer made: the shared ones first, by index */
	unsigned nshared, n, cap;
} share_arena;

static void *share_take(void *ctx, unsigned index, size_t bytes, int *fill)
{
	share_arena *a = ctx;
	*fill = 1;
	if (index < a->nshared && a->made[index].bytes == bytes) {
		*fill = 0;
		return a->made[index].buf;
	}
	if (a->n == a->cap) {
		unsigned cap = a->cap ? 2 * a->cap : 16;
		void *grown = realloc(a->made, cap * sizeof(*a->made));
		if (!grown)
			return NULL;
		a->made = grown, a->cap = cap;
	}
	void *p = bv_zalloc64(bytes);
	if (!p)
		return NULL;
	/* the next shared buffer while no private one was made yet; a later
	 * version asking another size gets a private one */
	if (index == a->nshared && a->nshared == a->n)
		a->nshared++;
	a->made[a->n].buf = p, a->made[a->n].bytes = bytes;
	a->n++;
	return p;
}

static void share_free(share_arena *a)
{
	for (unsigned i = 0; i < a->n; i++)
		free(a->made[i].buf);
	free(a->made);
	*a = (share_arena){0};
}

/* A digest (FNV-1a, 64 bits) of the shared buffers a's setup wrote, in
 * their order: what check_child compares between versions. */
static void share_digest(const share_arena *a, char out[17])
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (unsigned i = 0; i < a->nshared; i++) {
		const unsigned char *b = a->made[i].buf;
		for (size_t k = 0; k < sizeof(size_t); k++)
			h = (h ^ (unsigned char)(a->made[i].bytes >> (8 * k))) * 0x100000001b3ull;
		for (size_t k = 0; k < a->made[i].bytes; k++)
			h = (h ^ b[k]) * 0x100000001b3ull;
	}
	snprintf(out, 17, "%016llx", (unsigned long long)h);
}

/* A suite cell's check, in a child: open, one run and the suite's check
 * (the plugin compares with its reference and writes the output to the
 * job's file for the comparison between versions), the work, close. */
static cJSON *check_child(void *arg)
{
	check_job *j = arg;
	const bv_cell *c = j->d->c;
	const bv_plugin *p = j->v->p;
	timed t = {.v = j->v};
	char reason[1024] = "";
	double worst = NAN, work[3] = {0, 0, 0}, host = 0, device = 0, lib_host = 0, lib_device = 0;
	int counted = 0;
	/* A project suite's shared buffers come from an arena here too, each
	 * version's own (it runs alone, so its setup fills them): their
	 * digest after setup goes to the parent, which compares the versions'
	 * (a suite whose setup writes other bytes per version would have every
	 * version timed on the first one's).  The catalog's setup writes the
	 * same inputs in every version, and keeps device pointers there. */
	share_arena shared = {0};
	int guard = c->op->kind == BV_K_SUITE && p->suite_share;
	if (guard)
		p->suite_share(share_take, &shared);
	int s = suite_setup(&t, c, j->d->inputs, reason, sizeof(reason)), opened = s == BV_OK, sets = 1;
	if (guard)
		p->suite_share(NULL, NULL);
	char digest[17] = "";
	if (s == BV_OK && shared.nshared)
		share_digest(&shared, digest);
	if (s == BV_OK) {
		sets = p->suite_input_sets(t.args.cell);
		s = p->suite_check(t.args.cell, j->out_fd, &worst);
		if (s != BV_OK)
			snprintf(reason, sizeof(reason), "%s", p->last_error());
		p->suite_work(t.args.cell, work);
		counted = p->suite_footprint(t.args.cell, &host, &lib_host, &lib_device);
		p->suite_close(t.args.cell);
	}
	share_free(&shared);
	if (catalog_cell(c) && p->catalog) {
		/* A catalog cell's footprint is its layout's: what the
		 * benchmark allocates for the cell (bvs_alloc's bytes, the same
		 * number on a host backend) also when it was not opened, and as
		 * much in a device backend's memory. */
		const bv_layout *l = &j->d->l;
		double bytes = 4.0 * (double)(l->nx + l->nx2 + l->ny + l->nwork);
		if (!opened)
			host = bytes;
		device = s != BV_NA && !p->host_memory(c->backend) ? bytes : 0;
	}
	cJSON *o = status_object(s == BV_WRONG ? ST_WRONG : s, reason);
	/* The footprint: what bvs_alloc gave the cell (the runner makes no
	 * buffers for it), and the library's own where BVS_LIBRARY counts. */
	cJSON_AddNumberToObject(o, "host_bytes", host);
	cJSON_AddNumberToObject(o, "device_bytes", device);
	if (counted) {
		cJSON_AddNumberToObject(o, "library_host_bytes", lib_host);
		cJSON_AddNumberToObject(o, "library_device_bytes", lib_device);
	}
	if (isfinite(worst))
		cJSON_AddNumberToObject(o, "worst_error", worst);
	/* the sets setup made (bvs_input_sets_made): measure_cell takes it
	 * for the cell's input_sets and drops it from the entry */
	if (opened)
		cJSON_AddNumberToObject(o, "input_sets", sets);
	if (*digest) /* taken off again by measure_cell */
		cJSON_AddStringToObject(o, "shared_digest", digest);
	if (work[0] > 0 || work[1] > 0 || work[2] > 0) {
		cJSON *w = cJSON_AddObjectToObject(o, "work");
		cJSON_AddNumberToObject(w, "bytes", work[0]);
		cJSON_AddNumberToObject(w, "flops", work[1]);
		cJSON_AddNumberToObject(w, "items", work[2]);
	}
	return o;
}

/* A version's output as suite_check wrote it to fd: "BVSOUT2\0", uint32
 * type, uint32 own (1: the cell set its own tolerance), uint64 n, double
 * max_ulp, double rel_tol, the elements.  Returns the elements (malloc'd)
 * or NULL when there are none (the check named no output, or the file is
 * short); *tol the cell's own tolerance, or NULL-like (own 0). */
typedef struct out_tol {
	int own;
	double max_ulp, rel_tol;
} out_tol;

static unsigned char *read_output(int fd, uint32_t *type, uint64_t *n, out_tol *tol)
{
	unsigned char head[40];
	static const size_t es[] = {4, 8, 1, 4, 8}; /* bv_suite.h: bvs_type */
	if (fd < 0 || pread(fd, head, sizeof(head), 0) != (ssize_t)sizeof(head) || memcmp(head, "BVSOUT2", 8))
		return NULL;
	uint32_t own;
	memcpy(type, head + 8, 4), memcpy(&own, head + 12, 4), memcpy(n, head + 16, 8);
	memcpy(&tol->max_ulp, head + 24, 8), memcpy(&tol->rel_tol, head + 32, 8);
	tol->own = own == 1 && tol->max_ulp >= 0 && tol->max_ulp <= 1e18 && tol->rel_tol >= 0 && tol->rel_tol <= 1e18;
	if (*type > 4 || *n > ((uint64_t)1 << 40) / es[*type])
		return NULL;
	size_t bytes = (size_t)*n * es[*type];
	unsigned char *data = malloc(bytes ? bytes : 1);
	size_t got = 0;
	while (data && got < bytes) {
		ssize_t r = pread(fd, data + got, bytes - got, (off_t)(sizeof(head) + got));
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	if (data && got < bytes) {
		free(data);
		return NULL;
	}
	return data;
}

static double output_at(const unsigned char *d, uint32_t type, uint64_t i)
{
	switch (type) {
	case 0: { float f; memcpy(&f, d + 4 * i, 4); return f; }
	case 1: { double x; memcpy(&x, d + 8 * i, 8); return x; }
	case 2: return d[i];
	case 3: { int32_t v; memcpy(&v, d + 4 * i, 4); return v; }
	default: { int64_t v; memcpy(&v, d + 8 * i, 8); return (double)v; }
	}
}

/* Compares a version's output with the baseline's, on the same inputs,
 * with the benchmark's tolerance (floats: max_ulp or rel_tol; other types
 * exactly).  0 when they agree (or either named no output), else 1 with
 * the difference in why. */
static int outputs_differ(const bv_cell *c, int base_fd, const char *base_label, int fd, char *why, size_t len)
{
	static const char *const types[] = {"f32", "f64", "u8", "i32", "i64"};
	uint32_t bt = 0, t = 0;
	uint64_t bn = 0, n = 0;
	out_tol btol = {0}, tol = {0}; /* btol unused: both are this suite's, mine decides */
	unsigned char *base = read_output(base_fd, &bt, &bn, &btol), *mine = base ? read_output(fd, &t, &n, &tol) : NULL;
	int differ = 0;
	if (!base || !mine) {
		free(base), free(mine);
		return 0;
	}
	if (bt != t || bn != n) {
		snprintf(why, len, "output is %llu %s, %s's %llu %s", (unsigned long long)n, types[t], base_label,
			 (unsigned long long)bn, types[bt]);
		differ = 1;
	}
	const bv_suite_op *so = c->op->suite;
	/* the cell's own tolerance (bvs_tolerance, this version's), else the benchmark's */
	double max_ulp = tol.own ? tol.max_ulp : so->max_ulp, rel_tol = tol.own ? tol.rel_tol : so->rel_tol;
	int fl = t == 0 || t == 1;
	for (uint64_t i = 0; !differ && i < n; i++) {
		double a = output_at(mine, t, i), b = output_at(base, t, i);
		double gap = fl ? bv_ulp_gap(a, b, t == 0) : fabs(a - b);
		int ok = fl ? gap <= max_ulp || (rel_tol > 0 && fabs(a - b) <= rel_tol * fabs(b)) : a == b;
		if (ok)
			continue;
		char tols[64];
		if (!fl)
			snprintf(tols, sizeof(tols), "exact");
		else if (rel_tol > 0)
			snprintf(tols, sizeof(tols), "%g ulp or %g relative", max_ulp, rel_tol);
		else
			snprintf(tols, sizeof(tols), "%g ulp", max_ulp);
		int digits = t == 1 ? 17 : 9; /* enough to tell two neighbouring doubles (floats) apart */
		snprintf(why, len, "output differs from %s's at element %llu of %llu: %.*g vs %.*g (%.3g%s; tolerance %s)",
			 base_label, (unsigned long long)i, (unsigned long long)n, digits, a, digits, b, gap,
			 fl ? " ulp" : "", tols);
		differ = 1;
	}
	free(base), free(mine);
	return differ;
}

/* ---- timing the versions of one cell (in a child) --------------------- */

typedef struct time_job {
	version **vs;
	int n;
	const cell_data *d;
	const settings *set;
	double since_ns; /* when this process began on the cell (now_ns) */
} time_job;

/* Times `reps` calls; returns ns per call, or NAN if a call failed.  Device
 * backends are timed by the device's clock where the plugin can. */
static double time_calls(timed *t, const char *backend, long reps)
{
	const bv_args *a = &t->args;
	if (!t->v->p->host_memory(backend)) {
		double d = t->v->p->device_time(&t->call, a, reps);
		if (isfinite(d))
			return d;
	}
	double t0 = now_ns();
	/* --inputs: the benchmark's run takes the next input set itself */
	for (long r = 0; r < reps; r++)
		if (t->call.fn(&t->call, a) != BV_OK)
			return NAN;
	if (!t->v->p->host_memory(backend) && t->v->p->sync(backend) != BV_OK)
		return NAN;
	return (now_ns() - t0) / (double)reps;
}

static double thread_cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* time_calls, with what trust.h's rule needs: the wall and this thread's
 * CPU time around it (wall outside, so wall - CPU is never the clocks'
 * own cost turned negative) and the involuntary switches during it. */
static double take(timed *t, const char *backend, long reps, double expect_ns, bv_take *tk)
{
	struct rusage r0, r1;
	getrusage(RUSAGE_THREAD, &r0);
	double w0 = now_ns(), c0 = thread_cpu_ns();
	double ns = time_calls(t, backend, reps);
	double c1 = thread_cpu_ns(), w1 = now_ns();
	getrusage(RUSAGE_THREAD, &r1);
	*tk = (bv_take){w1 - w0, c1 - c0, r1.ru_nivcsw - r0.ru_nivcsw, expect_ns};
	return ns;
}

/* A cell's re-takes so far (trust.h: bv_retake_allowed). */
typedef struct retakes {
	long tried, clean, samples;
	double expect_ns; /* one sample's time, from the calibration call */
} retakes;

/* One sample of t.  On a host backend a sample during which the thread was
 * preempted is re-taken at once, in the same round (so it still pairs with
 * the other versions' samples of that round), up to BV_MAX_RETAKES times;
 * then the least contaminated take is kept, at its time on the CPU, and
 * counted.  Device backends are left alone: their time comes from the
 * device's clock where the plugin has one. */
static double sample(timed *t, const char *backend, long reps, int threads, retakes *rt)
{
	if (!t->v->p->host_memory(backend))
		return time_calls(t, backend, reps);
	bv_take best = {0}, tk;
	double best_ns = NAN;
	for (int k = 0;; k++) {
		double ns = take(t, backend, reps, rt->expect_ns, &tk);
		if (!isfinite(ns))
			return ns;
		int dirty = bv_take_contaminated(&tk, threads);
		if (k > 0)
			rt->tried++, rt->clean += !dirty;
		if (!dirty)
			return ns;
		if (k == 0 || bv_take_better(&tk, &best, threads))
			best = tk, best_ns = ns;
		if (k == BV_MAX_RETAKES || !bv_retake_allowed(rt->tried, rt->clean, rt->samples)) {
			t->contaminated++;
			return bv_take_kept_ns(&best, best_ns, reps, threads);
		}
		t->retaken++;
	}
}

/* What the timing child sends back: every version's samples and
 * preemptions, the calls per sample, the rounds and the sets; then each
 * suite cell's teardown, outside the timed rounds. */
static cJSON *timing_result(const time_job *j, timed *ts, long reps, int rounds, double start)
{
	cJSON *o = status_object(BV_OK, NULL);
	cJSON_AddNumberToObject(o, "reps", (double)reps);
	/* A suite cell's sets are its setup's (bvs_input_sets_made): the most
	 * any version made, for the cell's input_sets. */
	int sets = 0;
	for (int i = 0; i < j->n; i++)
		if (ts[i].args.cell && ts[i].v->p->suite_input_sets(ts[i].args.cell) > sets)
			sets = ts[i].v->p->suite_input_sets(ts[i].args.cell);
	if (sets > 0)
		cJSON_AddNumberToObject(o, "input_sets", sets);
	cJSON_AddNumberToObject(o, "rounds", rounds);
	cJSON_AddNumberToObject(o, "elapsed_s", (now_ns() - start) / 1e9);
	cJSON *s = cJSON_AddObjectToObject(o, "samples_ns");
	cJSON *pre = cJSON_AddObjectToObject(o, "preempted");
	for (int i = 0; i < j->n; i++) {
		cJSON_AddItemToObject(s, ts[i].v->label, cJSON_CreateDoubleArray(ts[i].samples, rounds));
		cJSON *p = cJSON_AddObjectToObject(pre, ts[i].v->label);
		cJSON_AddNumberToObject(p, "retaken", (double)ts[i].retaken);
		cJSON_AddNumberToObject(p, "contaminated", (double)ts[i].contaminated);
		free(ts[i].samples);
		/* a suite cell's teardown, outside the timed rounds */
		if (ts[i].args.cell)
			ts[i].v->p->suite_close(ts[i].args.cell);
	}
	return o;
}

/* The timing child: the ready versions set up on the same buffers, the
 * calls per sample calibrated once on the first, every version warmed,
 * then the rounds, each version once a round in a random order. */
static cJSON *time_child(void *arg)
{
	time_job *j = arg;
	const cell_data *d = j->d;
	const bv_cell *c = d->c;
	int rounds = j->set->rounds;
	char reason[512];
	timed ts[MAX_VERSIONS];
	share_arena shared = {0};
	double start = now_ns();
	/* Every page of every plugin read before anything is timed: this
	 * child was forked with none of them mapped, and a page that only
	 * masked loads read would stay so, each of them slow (pages.h). */
	for (int i = 0; i < j->n; i++)
		bv_map_object_pages(j->vs[i]->p);
	for (int i = 0; i < j->n; i++) {
		ts[i] = (timed){.v = j->vs[i]};
		/* room for what bv_rounds_fit may give */
		ts[i].samples = calloc((size_t)rounds * BV_ROUNDS_STRETCH, sizeof(double));
		/* a suite cell's bvs_alloc_shared: every version's from one arena */
		if (ts[i].v->p->suite_share)
			ts[i].v->p->suite_share(share_take, &shared);
		snprintf(reason, sizeof(reason), "out of host memory");
		int s = ts[i].samples ? suite_setup(&ts[i], c, d->inputs, reason, sizeof(reason)) : BV_FAILED;
		if (ts[i].v->p->suite_share)
			ts[i].v->p->suite_share(NULL, NULL);
		if (s != BV_OK)
			return status_object(BV_FAILED, reason);
	}
	/* Calibrate once on the first version so every version runs the same
	 * number of calls per sample; the first call pays for cold caches. */
	time_calls(&ts[0], c->backend, 1);
	double one = time_calls(&ts[0], c->backend, 1);
	long reps = 1;
	if (isfinite(one) && one > 0)
		reps = (long)fmax(1.0, fmin(1e7, j->set->sample_ns / one));
	/* A cell whose one call is long (16M elements of exp: 30 ms) gets fewer
	 * rounds, so one process spends about cell_ns on it, or about as long
	 * as it spent preparing the cell when that was longer (trust.h); never
	 * fewer than 5, the fewest whose median means something. */
	if (isfinite(one) && one > 0)
		rounds = bv_rounds_fit(rounds, j->set->cell_ns, now_ns() - j->since_ns,
				       (double)j->n * (double)reps * one);
	/* Warm-up: code and data into the caches.  A call longer than a sample
	 * streams far more than any cache holds; the calibration call already
	 * faulted the shared pages in, so the rounds start right away. */
	for (int i = 0; i < j->n && !(one > j->set->sample_ns); i++)
		time_calls(&ts[i], c->backend, reps);
	retakes rt = {0, 0, (long)rounds * j->n, isfinite(one) && one > 0 ? one * (double)reps : 0};
	int order[MAX_VERSIONS];
	for (int r = 0; r < rounds; r++) {
		for (int i = 0; i < j->n; i++)
			order[i] = i;
		shuffle(order, j->n);
		for (int k = 0; k < j->n; k++) {
			timed *t = &ts[order[k]];
			t->samples[r] = sample(t, c->backend, reps, j->set->threads, &rt);
			if (!isfinite(t->samples[r])) {
				snprintf(reason, sizeof(reason), "%s failed while timing: %s", t->v->label,
					 t->v->p->last_error());
				return status_object(BV_FAILED, reason);
			}
		}
	}
	cJSON *o = timing_result(j, ts, reps, rounds, start);
	share_free(&shared);
	return o;
}

/* ---- one cell --------------------------------------------------------- */

static int dropped(char **drops, int ndrops, long index, const char *label)
{
	char key[256];
	snprintf(key, sizeof(key), "%ld:%s", index, label);
	for (int i = 0; i < ndrops; i++)
		if (strcmp(drops[i], key) == 0)
			return 1;
	return 0;
}

/* The machine's state before and after a cell's timing, [before, after]
 * each: what was running beside it, and what a fixed copy and a fixed
 * compute chain achieved (trust.h). */
static cJSON *state_object(const bv_state *before, const bv_state *after)
{
	cJSON *o = cJSON_CreateObject();
	/* Rounded to what a probe of a few ms can tell (three decimals): the
	 * logs carry one state per process and cell. */
	double v[2];
	v[0] = before->load1, v[1] = after->load1;
	cJSON_AddItemToObject(o, "loadavg", cJSON_CreateDoubleArray(v, 2));
	v[0] = before->running, v[1] = after->running;
	cJSON_AddItemToObject(o, "running", cJSON_CreateDoubleArray(v, 2));
	v[0] = round(before->gbps * 1e3) / 1e3, v[1] = round(after->gbps * 1e3) / 1e3;
	cJSON_AddItemToObject(o, "probe_gbps", cJSON_CreateDoubleArray(v, 2));
	v[0] = round(before->compute_ns * 1e3) / 1e3, v[1] = round(after->compute_ns * 1e3) / 1e3;
	cJSON_AddItemToObject(o, "probe_compute_ns", cJSON_CreateDoubleArray(v, 2));
	return o;
}

/* A suite cell's checks, each version's alone, held against the first
 * version's (the baseline): an output that differs is a wrong result, and
 * shared buffers that setup filled otherwise are a failure.  Each entry's
 * status and reason are rewritten in place. */
static void suite_checks_agree(const bv_cell *c, const version *vs, int nv, cJSON **entry, const int *out_fd)
{
	const cJSON *base_st = nv > 0 ? cJSON_GetObjectItemCaseSensitive(entry[0], "status") : NULL;
	/* A suite's shared buffers (bvs_alloc_shared) hold, in the timing
	 * child, what the first version's setup wrote: a version whose own
	 * setup, run alone in its check, writes other bytes there would be
	 * timed on data not its own.  It fails, saying so, and is not
	 * timed.  Before the outputs are compared: other inputs give another
	 * output, and "output differs" would blame the library for what the
	 * suite's setup did. */
	const cJSON *base_dg = cJSON_IsString(base_st) && !strcmp(base_st->valuestring, "ok")
				       ? cJSON_GetObjectItemCaseSensitive(entry[0], "shared_digest")
				       : NULL;
	for (int i = 1; cJSON_IsString(base_dg) && i < nv; i++) {
		const cJSON *s = cJSON_GetObjectItemCaseSensitive(entry[i], "status");
		const cJSON *dg = cJSON_GetObjectItemCaseSensitive(entry[i], "shared_digest");
		if (!cJSON_IsString(s) || strcmp(s->valuestring, "ok") || !cJSON_IsString(dg) ||
		    !strcmp(dg->valuestring, base_dg->valuestring))
			continue;
		char why[512];
		snprintf(why, sizeof(why),
			 "its setup writes other bytes into the cell's shared buffers (bvs_alloc_shared) than %s's, "
			 "which every version timed beside it would run on: a shared buffer is for inputs the same in "
			 "every version (bvs_random, the parameters); what a version makes itself needs bvs_alloc",
			 vs[0].label);
		cJSON_ReplaceItemInObject(entry[i], "status", cJSON_CreateString(status_name(BV_FAILED)));
		cJSON_DeleteItemFromObject(entry[i], "reason");
		cJSON_AddStringToObject(entry[i], "reason", why);
	}
	/* A suite's result that changed between versions is wrong in the
	 * later one, reference or not: each version's output against the
	 * baseline's (the first label's), when both passed their checks. */
	for (int i = 1; i < nv && cJSON_IsString(base_st) && !strcmp(base_st->valuestring, "ok"); i++) {
		const cJSON *s = cJSON_GetObjectItemCaseSensitive(entry[i], "status");
		char why[1024];
		if (out_fd[0] < 0 || out_fd[i] < 0 || !cJSON_IsString(s) || strcmp(s->valuestring, "ok") ||
		    !outputs_differ(c, out_fd[0], vs[0].label, out_fd[i], why, sizeof(why)))
			continue;
		cJSON_ReplaceItemInObject(entry[i], "status", cJSON_CreateString(status_name(ST_WRONG)));
		cJSON_DeleteItemFromObject(entry[i], "reason");
		cJSON_AddStringToObject(entry[i], "reason", why);
	}
	for (int i = 0; i < nv; i++)
		cJSON_DeleteItemFromObject(entry[i], "shared_digest");
}

static cJSON *measure_cell(version *vs, int nv, const bv_cell *c, long index, const settings *set,
			   char **drops, int ndrops, int checked, bv_probe *probe)
{
	double start = now_ns();
	cJSON *cell = cJSON_CreateObject();
	cJSON_AddNumberToObject(cell, "index", (double)index);
	cJSON_AddStringToObject(cell, "bench", c->bench->name);
	cJSON_AddStringToObject(cell, "op", c->op->name);
	cJSON_AddStringToObject(cell, "backend", c->backend);
	cJSON_AddNumberToObject(cell, "size", (double)c->size);
	cJSON *arr = cJSON_AddArrayToObject(cell, "versions");

	/* Each version's setup makes the cell's inputs (--inputs: its own
	 * sets, bvs_input_sets); the cell's input_sets is the most any version
	 * made, said by their checks and by the timing child. */
	cell_data d = {.c = c, .inputs = set->inputs};
	bv_cell_layout(c, &d.l);
	cJSON_AddNumberToObject(cell, "input_sets", 1);
	int made = 0;
	int needs_check = 0, suite = c->op->kind == BV_K_SUITE;
	for (int i = 0; i < nv && !checked; i++)
		needs_check |= !dropped(drops, ndrops, index, vs[i].label);
	/* A suite cell's outputs, one file per version (unlinked at once: the
	 * descriptors are all that is needed, and nothing is left behind), for
	 * the comparison with the baseline's after every check. */
	int out_fd[MAX_VERSIONS];
	for (int i = 0; i < nv; i++) {
		out_fd[i] = -1;
		if (suite && needs_check) {
			char tmp[] = "/tmp/bv-suite-out-XXXXXX";
			out_fd[i] = mkstemp(tmp);
			if (out_fd[i] >= 0)
				unlink(tmp);
		}
	}

	cJSON *entry[MAX_VERSIONS];
	version *ready[MAX_VERSIONS];
	int nready = 0;
	for (int i = 0; i < nv; i++) {
		char why[256];
		const char *st;
		cJSON *o;
		if (dropped(drops, ndrops, index, vs[i].label)) {
			o = status_object(BV_OK, NULL);
			cJSON_ReplaceItemInObject(o, "status", cJSON_CreateString("dropped"));
		} else if (checked) {
			/* Checked by an earlier process of this run: straight to timing,
			 * which still runs in a child that may crash or hang alone. */
			o = status_object(BV_OK, NULL);
		} else {
			check_job job = {&vs[i], &d, out_fd[i]};
			at_say(index, vs[i].label);
			o = in_child(check_child, &job, set->timeout_s, &st, why, sizeof(why));
			at_say(-1, NULL);
			if (!o) {
				o = cJSON_CreateObject();
				cJSON_AddStringToObject(o, "status", st);
				cJSON_AddStringToObject(o, "reason", why);
			}
		}
		cJSON_AddStringToObject(o, "label", vs[i].label);
		const cJSON *ms = cJSON_GetObjectItemCaseSensitive(o, "input_sets");
		if (cJSON_IsNumber(ms) && ms->valuedouble > made)
			made = (int)ms->valuedouble;
		cJSON_DeleteItemFromObject(o, "input_sets");
		entry[i] = o;
		cJSON_AddItemToArray(arr, o);
	}
	if (suite) /* only a suite's checks give digests (check_child) */
		suite_checks_agree(c, vs, nv, entry, out_fd);
	for (int i = 0; i < nv; i++) {
		const cJSON *s = cJSON_GetObjectItemCaseSensitive(entry[i], "status");
		if (cJSON_IsString(s) && strcmp(s->valuestring, "ok") == 0)
			ready[nready++] = &vs[i];
		if (out_fd[i] >= 0)
			close(out_fd[i]);
	}
	if (nready > 0) {
		/* in_child writes why only on failure, but msg is made either way
		 * (memcheck: an uninitialised read, unterminated on a bad day). */
		char why[256] = "";
		const char *st;
		time_job job = {ready, nready, &d, set, start};
		/* In this process, not the child: the probe's buffers stay out of
		 * fork, and the child's time is the versions' alone. */
		bv_state before, after;
		bv_state_take(probe, &before);
		at_say(index, NULL);
		cJSON *t = in_child(time_child, &job, set->timeout_s, &st, why, sizeof(why));
		at_say(-1, NULL);
		bv_state_take(probe, &after);
		cJSON_AddItemToObject(cell, "state", state_object(&before, &after));
		const char *ts = t ? cJSON_GetObjectItemCaseSensitive(t, "status")->valuestring : st;
		const cJSON *reason = t ? cJSON_GetObjectItemCaseSensitive(t, "reason") : NULL;
		char msg[512];
		snprintf(msg, sizeof(msg), "while timing: %s", cJSON_IsString(reason) ? reason->valuestring : why);
		const cJSON *samples = t ? cJSON_GetObjectItemCaseSensitive(t, "samples_ns") : NULL;
		const cJSON *pre = t ? cJSON_GetObjectItemCaseSensitive(t, "preempted") : NULL;
		for (int i = 0; i < nv; i++) {
			const char *l = vs[i].label;
			const cJSON *s = cJSON_GetObjectItemCaseSensitive(entry[i], "status");
			if (strcmp(s->valuestring, "ok") != 0)
				continue;
			if (strcmp(ts, "ok") == 0) {
				cJSON_AddItemToObject(entry[i], "samples_ns",
						      cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(samples, l), 1));
				const cJSON *p = cJSON_GetObjectItemCaseSensitive(pre, l);
				const char *keys[] = {"retaken", "contaminated"};
				for (int k = 0; k < 2; k++) {
					const cJSON *n = cJSON_GetObjectItemCaseSensitive(p, keys[k]);
					cJSON_AddNumberToObject(entry[i], keys[k], cJSON_IsNumber(n) ? n->valuedouble : 0);
				}
			} else {
				cJSON_ReplaceItemInObject(entry[i], "status", cJSON_CreateString(ts));
				cJSON_AddStringToObject(entry[i], "reason", msg);
			}
		}
		const cJSON *ms = t ? cJSON_GetObjectItemCaseSensitive(t, "input_sets") : NULL;
		if (cJSON_IsNumber(ms) && ms->valuedouble > made)
			made = (int)ms->valuedouble;
		const cJSON *reps = t ? cJSON_GetObjectItemCaseSensitive(t, "reps") : NULL;
		const cJSON *rounds = t ? cJSON_GetObjectItemCaseSensitive(t, "rounds") : NULL;
		cJSON_AddNumberToObject(cell, "reps", cJSON_IsNumber(reps) ? reps->valuedouble : 0);
		cJSON_AddNumberToObject(cell, "rounds", cJSON_IsNumber(rounds) ? rounds->valuedouble : 0);
		cJSON_Delete(t);
	}
	/* A catalog cell that no version opened (n/a, skipped, failed in
	 * every one) says the sets its setup makes (catalog.c makes them by
	 * bv_input_sets_count, from the layout). */
	if (made == 0 && catalog_cell(c))
		made = bv_input_sets_count(c, &d.l, set->inputs);
	if (made > 1)
		cJSON_ReplaceItemInObject(cell, "input_sets", cJSON_CreateNumber(made));
	cJSON_AddNumberToObject(cell, "elapsed_s", (now_ns() - start) / 1e9);
	return cell;
}

/* ---- main ------------------------------------------------------------- */

/* Loads a plugin.  The same file twice (an A/A run of one build) would give
 * the same handle, i.e. the same code at the same address; a private copy
 * makes it a second, independently placed library like any other version. */
static int load(version *v, const char *path, char loaded[][PATH_MAX], int nloaded)
{
	char real[PATH_MAX];
	if (!realpath(path, real)) {
		fprintf(stderr, "bv-runner: %s: %s\n", path, strerror(errno));
		return -1;
	}
	const char *use = real;
	char copy[] = "/tmp/bv-runner-XXXXXX.so";
	int is_copy = 0;
	for (int i = 0; i < nloaded; i++)
		if (strcmp(loaded[i], real) == 0) {
			int out = mkstemps(copy, 3), in = open(real, O_RDONLY);
			char buf[65536];
			ssize_t r;
			int ok = out >= 0 && in >= 0;
			while (ok && (r = read(in, buf, sizeof(buf))) > 0)
				ok = write(out, buf, (size_t)r) == r;
			if (in >= 0)
				close(in);
			if (out >= 0 && close(out) != 0)
				ok = 0;
			if (!ok) {
				fprintf(stderr, "bv-runner: cannot copy %s for a second load\n", real);
				return -1;
			}
			use = copy, is_copy = 1;
			break;
		}
	snprintf(loaded[nloaded], PATH_MAX, "%s", real);
	void *h = dlopen(use, RTLD_NOW | RTLD_LOCAL);
	if (is_copy)
		unlink(copy);
	bv_plugin_get_fn get = h ? (bv_plugin_get_fn)(uintptr_t)dlsym(h, BV_PLUGIN_SYMBOL) : NULL;
	if (!get) {
		fprintf(stderr, "bv-runner: cannot load plugin for %s: %s\n", v->label, dlerror());
		return -1;
	}
	v->p = get();
	if (v->p->abi != BV_PLUGIN_ABI) {
		fprintf(stderr, "bv-runner: plugin %s has ABI %d, expected %d\n", path, v->p->abi, BV_PLUGIN_ABI);
		return -1;
	}
	return 0;
}

/* Through a temporary file and rename(): a runner killed while writing (an
 * interrupted run) or a full disk never leaves half a document. */
static int write_doc(cJSON *doc, const char *out)
{
	char *text = cJSON_Print(doc);
	cJSON_Delete(doc);
	char tmp[PATH_MAX];
	snprintf(tmp, sizeof(tmp), "%s.tmp", out);
	FILE *f = text ? fopen(tmp, "w") : NULL;
	int ok = f && fputs(text, f) >= 0;
	int e = errno;
	if (f && fclose(f) != 0 && ok)
		ok = 0, e = errno;
	if (ok && rename(tmp, out) != 0)
		ok = 0, e = errno;
	free(text);
	if (!ok) {
		unlink(tmp);
		fprintf(stderr, "bv-runner: cannot write %s: %s\n", out, strerror(e));
		return 3;
	}
	return 0;
}

/* The head of --count's document: the version, where it ran (the ISA, and
 * whether under Valgrind) and the cell. */
static cJSON *count_head(version *v, const bv_cell *c, long index)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "schema", "bv-count/1");
	cJSON_AddStringToObject(o, "label", v->label);
	cJSON_AddStringToObject(o, "kernel_version", v->p->kernel_version());
	const char *isa = v->p->simd_isa();
	if (isa)
		cJSON_AddStringToObject(o, "simd_isa", isa);
	else
		cJSON_AddNullToObject(o, "simd_isa");
	cJSON_AddBoolToObject(o, "on_valgrind", RUNNING_ON_VALGRIND != 0);
	cJSON_AddNumberToObject(o, "index", (double)index);
	cJSON_AddStringToObject(o, "bench", c->bench->name);
	cJSON_AddStringToObject(o, "op", c->op->name);
	cJSON_AddStringToObject(o, "backend", c->backend);
	cJSON_AddNumberToObject(o, "size", (double)c->size);
	return o;
}

/* --count: one cell of one version, the counted call alone (see the top of
 * this file).  The warm call before it does what the timing's calibration
 * and warm-up calls do (pages faulted in, lazy symbols bound, caches warm),
 * so the simulated caches see the call in the state the timed calls run
 * in.  The document says the status, the ISA the simd backend dispatched to
 * here (under Valgrind: what Valgrind presents, not the machine) and whether
 * Valgrind was there at all. */
static cJSON *count_cell(version *v, const bv_cell *c, long index)
{
	cJSON *o = count_head(v, c, index);
	char reason[512] = "";
	/* The cell opened (its setup) before the simulation starts: the
	 * warm call, then the counted one, each the benchmark's run through
	 * the same trampoline the timing calls. */
	timed t = {.v = v};
	int s = suite_setup(&t, c, 1, reason, sizeof(reason));
	/* A project suite does not say its footprint: always warm (its inputs
	 * are what setup made and touched).  A catalog cell's footprint is its
	 * layout's: data more than twice the simulated LL (BV_COUNT_WARM_MAX)
	 * would leave little of itself in the caches after a pass, so such a
	 * cell gets no warm call and its counted call starts from cold caches.
	 * That halves the time of the largest cells: Valgrind runs even
	 * uninstrumented code 5-300x slower (a 16M-element simd tanh: 44 s
	 * with --tool=none, 0.13 s natively; its AVX2 gathers).  The symbols a
	 * first call would bind lazily are bound at load (counts.c sets
	 * LD_BIND_NOW), so no dynamic linker runs in a counted call either way. */
	int warm = 1;
	if (catalog_cell(c)) {
		bv_layout l;
		bv_cell_layout(c, &l);
		warm = 4.0 * (double)(l.nx + l.nx2 + l.ny + l.nwork) <= BV_COUNT_WARM_MAX;
		if (s == BV_OK && !v->p->host_memory(c->backend)) {
			/* Valgrind counts the host's side of a call only */
			s = BV_UNAVAILABLE;
			snprintf(reason, sizeof(reason), "a device backend: its work is not on the host, so not counted");
		}
	}
	cJSON_AddBoolToObject(o, "warm", warm);
	/* Valgrind simulates from here (--instr-atstart=no): the setup, the
	 * inputs and the plugin's loading ran at full speed, and the warm
	 * call's pass fills the simulated caches as it fills the real ones
	 * before the timed calls. */
	CALLGRIND_START_INSTRUMENTATION;
	if (s == BV_OK && warm)
		s = t.call.fn(&t.call, &t.args);
	if (s == BV_OK) {
		CALLGRIND_TOGGLE_COLLECT;
		s = t.call.fn(&t.call, &t.args);
		CALLGRIND_TOGGLE_COLLECT;
	}
	if (s != BV_OK && !*reason)
		snprintf(reason, sizeof(reason), "%s", v->p->last_error());
	if (t.args.cell)
		v->p->suite_close(t.args.cell);
	cJSON_AddStringToObject(o, "status", status_name(s));
	if (*reason)
		cJSON_AddStringToObject(o, "reason", reason);
	return o;
}

/* --describe: every version's suite description, checked here (so a bad
 * one is named by its version, not found in the merge), as one document:
 * {"schema": "bv-runner-describe/1", "versions": {LABEL: description, or
 * null for a plugin with no suite (plugin.c's)}}.  3 when a plugin's suite
 * breaks bv_suite.h's rules (suite_plugin.c) or its description is bad. */
static int describe_versions(const version *vs, int nv, const char *out)
{
	cJSON *doc = cJSON_CreateObject();
	cJSON_AddStringToObject(doc, "schema", "bv-runner-describe/1");
	cJSON *vers = cJSON_AddObjectToObject(doc, "versions");
	for (int i = 0; i < nv; i++) {
		const bv_plugin *p = vs[i].p;
		if (!p->suite_describe) {
			cJSON_AddNullToObject(vers, vs[i].label);
			continue;
		}
		const char *text = p->suite_describe();
		cJSON *d = text ? cJSON_Parse(text) : NULL;
		char why[1024] = "", where[300];
		snprintf(where, sizeof(where), "(%s's description)", vs[i].label);
		if (!text)
			snprintf(why, sizeof(why), "%s", p->last_error());
		else if (!d)
			snprintf(why, sizeof(why), "its description is not JSON");
		else
			bv_suite_desc_check(where, d, why, sizeof(why));
		if (*why) {
			fprintf(stderr, "bv-runner: %s: the suite: %s\n", vs[i].label, why);
			cJSON_Delete(d);
			cJSON_Delete(doc);
			return 3;
		}
		cJSON_AddItemToObject(vers, vs[i].label, d);
	}
	return write_doc(doc, out);
}

/* ---- the runner's own numbers ----------------------------------------- */

/* Each numeric option through numbers.h's checked conversions: a value that
 * is not one ("--seed abc", "--rounds 5x", "--timeout nan") is an error
 * naming the option and the value, exit 2, never atoi's silent 0 (which
 * made `--seed abc` a random seed). */
static void bad_number(const char *opt, const char *val, const char *expected)
{
	fprintf(stderr, "bv-runner: %s '%s': expected %s\n", opt, val, expected);
	exit(2);
}

static long long int_option(const char *opt, const char *val, long long min, long long max)
{
	long long v;
	if (bv_parse_int(val, min, max, &v)) {
		char want[96];
		snprintf(want, sizeof(want), "a whole number from %lld to %lld", min, max);
		bad_number(opt, val, want);
	}
	return v;
}

static unsigned long long u64_option(const char *opt, const char *val)
{
	unsigned long long v;
	if (bv_parse_u64(val, ULLONG_MAX, &v)) {
		char want[96];
		snprintf(want, sizeof(want), "a whole number from 0 to %llu", ULLONG_MAX);
		bad_number(opt, val, want);
	}
	return v;
}

/* A finite number in (0, max] (or [0, max] when zero_ok). */
static double positive_option(const char *opt, const char *val, double max, int zero_ok, const char *unit)
{
	double v;
	if (bv_parse_double(val, 0, max, &v) || (!zero_ok && v == 0)) {
		char want[128];
		if (zero_ok)
			snprintf(want, sizeof(want), "a number of %s from 0 to %g", unit, max);
		else
			snprintf(want, sizeof(want), "a number of %s greater than 0 and at most %g", unit, max);
		bad_number(opt, val, want);
	}
	return v;
}

/* --only, --checked: "3,5,9", cell indices; listed() reads them as such. */
static void index_list_option(const char *opt, const char *val)
{
	for (const char *p = val; *p;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		char item[32];
		long long v;
		if (len == 0 || len >= sizeof(item))
			bad_number(opt, val, "cell indices separated by commas (3,5,9)");
		memcpy(item, p, len), item[len] = '\0';
		if (bv_parse_int(item, 0, LONG_MAX, &v))
			bad_number(opt, val, "cell indices separated by commas (3,5,9)");
		p = comma ? comma + 1 : p + len;
		if (comma && !*p)
			bad_number(opt, val, "cell indices separated by commas (3,5,9)");
	}
}

/* --drop I:LABEL: a cell index, then a version's label. */
static void drop_option(const char *val)
{
	const char *colon = strchr(val, ':');
	char item[32];
	long long v;
	size_t len = colon ? (size_t)(colon - val) : 0;
	if (!colon || !colon[1] || len == 0 || len >= sizeof(item))
		bad_number("--drop", val, "INDEX:LABEL, a cell index and a version");
	memcpy(item, val, len), item[len] = '\0';
	if (bv_parse_int(item, 0, LONG_MAX, &v))
		bad_number("--drop", val, "INDEX:LABEL, a cell index and a version");
}

/* Membership in "3,5,9", a list of cell indices (--only, --checked);
 * a NULL list holds every index when all is set, else none. */
static int listed(const char *only, long index, int all)
{
	if (!only)
		return all;
	for (const char *p = only; *p;) {
		char *end;
		long v = strtol(p, &end, 10);
		if (end == p)
			return 0;
		if (v == index)
			return 1;
		p = *end == ',' ? end + 1 : end;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *out = NULL, *only = NULL, *checked = NULL;
	bv_selection sel = {0};
	settings set = {21, 1e6, 60, 0, 1, 1};
	unsigned long long seed = 0;
	int pin = -1, calibrate = 0, count = 0, describe = 0, load_only = 0;
	char *labels[MAX_VERSIONS], *paths[MAX_VERSIONS];
	char **drops = calloc((size_t)argc, sizeof(char *));
	if (!drops) {
		fprintf(stderr, "bv-runner: out of memory\n");
		return 3;
	}
	int nv = 0, ndrops = 0;
	int probe_fd = -1; /* --probe-fd: the run's probe file (trust.h) */
	const char *simd_isa = NULL; /* --simd-isa: every version's simd backend forced onto it */
	const char *ops_file = NULL, *ops_hash = NULL; /* user-defined ops: bench-versions's file */
	const char *suite_file = NULL, *suite_hash = NULL; /* a suite's merged description */

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *val = i + 1 < argc ? argv[i + 1] : NULL;
		if (strcmp(a, "--calibrate") == 0)
			calibrate = 1;
		else if (strcmp(a, "--count") == 0)
			count = 1;
		else if (strcmp(a, "--describe") == 0)
			describe = 1;
		else if (strcmp(a, "--load") == 0)
			load_only = 1;
		else if (strcmp(a, "--out") == 0 && val)
			out = val, i++;
		else if (strcmp(a, "--seed") == 0 && val)
			seed = u64_option(a, val), i++;
		else if (strcmp(a, "--rounds") == 0 && val)
			set.rounds = (int)int_option(a, val, 1, 100000), i++;
		else if (strcmp(a, "--sample-us") == 0 && val)
			set.sample_ns = positive_option(a, val, 1e9, 0, "microseconds") * 1e3, i++;
		else if (strcmp(a, "--timeout") == 0 && val)
			set.timeout_s = positive_option(a, val, 1e7, 0, "seconds"), i++;
		else if (strcmp(a, "--pin") == 0 && val)
			pin = (int)int_option(a, val, 0, CPU_SETSIZE - 1), i++;
		else if (strcmp(a, "--only") == 0 && val)
			index_list_option(a, val), only = val, i++;
		else if (strcmp(a, "--checked") == 0 && val)
			index_list_option(a, val), checked = val, i++;
		else if (strcmp(a, "--cell-ms") == 0 && val)
			set.cell_ns = positive_option(a, val, 1e9, 1, "milliseconds") * 1e6, i++;
		else if (strcmp(a, "--threads") == 0 && val)
			set.threads = (int)int_option(a, val, 1, 1024), i++;
		else if (strcmp(a, "--inputs") == 0 && val)
			set.inputs = (int)int_option(a, val, 1, BV_MAX_INPUT_SETS), i++;
		else if (strcmp(a, "--simd-isa") == 0 && val)
			simd_isa = val, i++;
		else if (strcmp(a, "--probe-fd") == 0 && val)
			probe_fd = (int)int_option(a, val, 3, 1 << 20), i++;
		else if (strcmp(a, "--memory-limit") == 0 && val)
			memory_limit = u64_option(a, val), i++;
		else if (strcmp(a, "--drop") == 0 && val)
			drop_option(val), drops[ndrops++] = argv[++i];
		else if (strcmp(a, "--ops-file") == 0 && val)
			ops_file = val, i++;
		else if (strcmp(a, "--ops-hash") == 0 && val)
			ops_hash = val, i++;
		else if (strcmp(a, "--suite-file") == 0 && val)
			suite_file = val, i++;
		else if (strcmp(a, "--suite-hash") == 0 && val)
			suite_hash = val, i++;
		else if (strcmp(a, "--benches") == 0 && val)
			sel.benches = val, i++;
		else if (strcmp(a, "--ops") == 0 && val)
			sel.ops = val, i++;
		else if (strcmp(a, "--backends") == 0 && val)
			sel.backends = val, i++;
		else if (strcmp(a, "--sizes") == 0 && val)
			sel.sizes = val, i++;
		else if (a[0] != '-' && strchr(a, '=') && nv == MAX_VERSIONS) {
			/* bench-versions says so before it builds anything; this is
			 * for a runner started by hand. */
			fprintf(stderr, "bv-runner: at most %d versions in one process\n", MAX_VERSIONS);
			free(drops);
			return 2;
		} else if (a[0] != '-' && strchr(a, '=')) {
			char *eq = strchr(argv[i], '=');
			*eq = '\0';
			labels[nv] = argv[i], paths[nv] = eq + 1;
			nv++;
		} else
			usage();
	}
	/* A bench-versions killed outright (SIGKILL) takes its runner along:
	 * an orphan would go on writing into a results directory a resumed
	 * run now owns. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	/* What a kernel starts and orphans (a setsid()'d process) comes to us,
	 * not to init, so that in_child can end it with the cell. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	if ((!out && !load_only) || (nv == 0 && !calibrate) || set.rounds < 1 || set.rounds > 100000 || !(set.sample_ns > 0) ||
	    !(set.timeout_s > 0) || set.threads < 1)
		usage();
	if (pin >= 0) {
		cpu_set_t cpus;
		CPU_ZERO(&cpus);
		CPU_SET(pin, &cpus);
		if (pin >= CPU_SETSIZE || sched_setaffinity(0, sizeof(cpus), &cpus) != 0) {
			fprintf(stderr, "bv-runner: cannot pin to CPU %d: %s\n", pin, strerror(errno));
			free(drops);
			return 2;
		}
	}
	if (calibrate) {
		free(drops);
		return write_doc(bv_calibrate(), out);
	}
	rng_state = seed ? seed : ((uint64_t)getpid() << 32 ^ (uint64_t)now_ns()) | 1;

	/* Load in a random order: the first library loaded tends to land at
	 * the same place relative to the host, and neither version should
	 * always get it.  The output keeps the order given. */
	version vs[MAX_VERSIONS] = {{0}};
	char(*loaded)[PATH_MAX] = calloc(MAX_VERSIONS, PATH_MAX);
	if (!loaded) {
		fprintf(stderr, "bv-runner: out of memory\n");
		exit(3);
	}
	int order[MAX_VERSIONS];
	for (int i = 0; i < nv; i++)
		order[i] = i, vs[i].label = labels[i];
	shuffle(order, nv);
	for (int k = 0; k < nv; k++)
		if (load(&vs[order[k]], paths[order[k]], loaded, k) != 0) {
			free(loaded); /* a plugin gone (cache removed mid-run): leak-free under LSan */
			free(drops);
			return 3;
		}
	free(loaded);
	if (load_only) {
		free(drops);
		return 0;
	}
	if (describe) {
		free(drops);
		return describe_versions(vs, nv, out);
	}
	/* Before any cell, in this process: the check and timing children
	 * inherit the choice.  A version whose library cannot be told (before
	 * kernels 0.2.0, which has no simd backend) keeps BV_NA and its simd
	 * cells say n/a on their own. */
	for (int i = 0; simd_isa && i < nv; i++) {
		int s = vs[i].p->set_simd_isa(simd_isa);
		if (s == BV_NA && vs[i].p->suite_open && !vs[i].p->catalog) {
			snprintf(vs[i].isa_refused, sizeof(vs[i].isa_refused), "--simd-isa %s: %s", simd_isa,
				 vs[i].p->last_error());
		}
		if (s != BV_OK && s != BV_NA) {
			fprintf(stderr, "bv-runner: --simd-isa %s: %s: %s\n", simd_isa, vs[i].label, vs[i].p->last_error());
			free(drops);
			return 2;
		}
	}

	/* The orchestrator's user-defined ops, the same bytes (its hash), or
	 * the cells' indices would name other cells. */
	if (ops_file) {
		char why[1024];
		if (bv_ops_file_load(ops_file, why, sizeof(why)) != 0) {
			fprintf(stderr, "bv-runner: %s\n", why);
			free(drops);
			return 2;
		}
		if (ops_hash && strcmp(ops_hash, bv_ops_file_hash()) != 0) {
			fprintf(stderr, "bv-runner: ops file %s changed during the run (hash %s, bench-versions read %s)\n",
				ops_file, bv_ops_file_hash(), ops_hash);
			free(drops);
			return 2;
		}
	}
	/* A catalog-suite plugin's registry gets the same user-defined ops
	 * (their definitions: ranges, tolerances, references), which its
	 * setup and check read. */
	for (int i = 0; ops_file && i < nv; i++) {
		static const char *const groups[] = {"unary", "binary"};
		if (!vs[i].p->catalog || !vs[i].p->catalog_add_ops)
			continue;
		for (int g = 0; g < 2; g++) {
			const bv_bench *b = bv_bench_find(groups[g]);
			bv_op_def *mine = b ? malloc((b->nops ? b->nops : 1) * sizeof(*mine)) : NULL;
			size_t n = 0;
			for (size_t k = 0; mine && k < b->nops; k++)
				if (b->ops[k].function)
					mine[n++] = b->ops[k];
			if (n && vs[i].p->catalog_add_ops(groups[g], mine, n) != BV_OK) {
				fprintf(stderr, "bv-runner: %s: %s\n", vs[i].label, vs[i].p->last_error());
				free(mine), free(drops);
				return 3;
			}
			free(mine);
		}
	}
	/* The suite's description as bench-versions merged it, the same bytes,
	 * registered after the ops file's ops (the cells' indices agree). */
	if (suite_file) {
		char why[1024];
		if (bv_suite_file_load(suite_file, why, sizeof(why)) != 0) {
			fprintf(stderr, "bv-runner: %s\n", why);
			free(drops);
			return 2;
		}
		if (suite_hash && strcmp(suite_hash, bv_suite_file_hash()) != 0) {
			fprintf(stderr,
				"bv-runner: suite file %s changed during the run (hash %s, bench-versions read %s)\n",
				suite_file, bv_suite_file_hash(), suite_hash);
			free(drops);
			return 2;
		}
	}
	bv_cell *cells;
	char err[1024];
	long ncells = bv_cells_select(&sel, &cells, err, sizeof(err));
	if (ncells < 0) {
		fprintf(stderr, "bv-runner: %s\n", err);
		free(drops);
		return 2;
	}

	if (count) {
		long at = -1;
		for (long i = 0; i < ncells && at < 0; i++)
			if (listed(only, i, 0))
				at = i;
		if (nv != 1 || at < 0) {
			fprintf(stderr, "bv-runner: --count takes one version and one cell (--only I)\n");
			free(cells);
			free(drops);
			return 2;
		}
		cJSON *doc = count_cell(&vs[0], &cells[at], at);
		free(cells);
		free(drops);
		return write_doc(doc, out);
	}

	cJSON *doc = cJSON_CreateObject();
	cJSON_AddStringToObject(doc, "schema", "bv-runner/2");
	cJSON_AddNumberToObject(doc, "pid", (double)getpid());
	cJSON_AddNumberToObject(doc, "rounds", set.rounds);
	if (pin >= 0)
		cJSON_AddNumberToObject(doc, "pinned_cpu", pin);
	cJSON *vers = cJSON_AddArrayToObject(doc, "versions");
	for (int i = 0; i < nv; i++) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "label", vs[i].label);
		cJSON_AddStringToObject(o, "kernel_version", vs[i].p->kernel_version());
		const char *isa = vs[i].p->simd_isa();
		if (isa)
			cJSON_AddStringToObject(o, "simd_isa", isa);
		else
			cJSON_AddNullToObject(o, "simd_isa");
		cJSON_AddItemToArray(vers, o);
	}
	cJSON_AddNumberToObject(doc, "threads", set.threads);
	/* Once per process, before any cell: the probe's pages are faulted in
	 * here, not in the first cell's probe.  Without the memory the state
	 * still has the load, and NAN (null) rates. */
	bv_probe probe = {0};
	bv_probe_init(&probe, probe_fd);
	if (probe_fd >= 0)
		close(probe_fd); /* mapped; the cells' children need no descriptor */
	cJSON *arr = cJSON_AddArrayToObject(doc, "cells");
	at_open(out);
	for (long i = 0; i < ncells; i++)
		if (listed(only, i, 1))
			cJSON_AddItemToArray(arr, measure_cell(vs, nv, &cells[i], i, &set, drops, ndrops,
							       listed(checked, i, 0), &probe));
	at_close(out);
	bv_probe_free(&probe);
	free(cells);
	free(drops);
	return write_doc(doc, out);
}
