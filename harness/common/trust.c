/*
 * trust.c - the preemption rule and the machine-state probes (trust.h).
 *
 * The rule.  A sample is contaminated when this thread was off the CPU for
 * more than max(10 us, 1 % of the sample): wall time (CLOCK_MONOTONIC) minus
 * the thread's CPU time (CLOCK_THREAD_CPUTIME_ID) over the same stretch.
 * Measured on the project's machine (2 vCPU AMD EPYC Zen 5, KVM, avx512) with
 * a dependent multiply-add loop timed like a sample, 2026-11-23:
 *
 *   sample   load                    off-CPU time: median / p90 / p99      > rule   invol. switch
 *   0.3 ms   other helpers' builds   0.7 / 1.0 / 26 us                     1.1 %    1.3 %
 *   0.3 ms   2 x `yes > /dev/null`   1.0 us / 2.4 ms / 7.1 ms              17.9 %   17.9 %
 *   2 ms     other helpers' builds   0.9-1.0 us / 1.8-20 us / 20-870 us    1-10 %   1-11 %
 *   2 ms     2 x `yes > /dev/null`   2.0 us / 4.0 ms / 8.0 ms              33.9 %   33.7 %
 *   2 ms     `make -j2` in a loop    2.0 us / 4.0 ms / 8.0 ms              34 %     34 %
 *   30 ms    other helpers' builds   43-56 us / 0.1-0.5 ms / 2.5-16 ms     ~10 %    58-69 %
 *   30 ms    2 x `yes > /dev/null`   59 ms (every sample)                  100 %    100 %
 *
 * A preempted sample is off the CPU for a whole time slice (3-4 ms here,
 * median 6.2 ms of wall for a 2.1 ms sample), three orders of magnitude
 * above the clocks' own overhead (about 1 us), so the rule hardly depends on
 * its constants; the clean samples' median under load (2.132 ms) was the
 * quiet one (2.136 ms).  An involuntary switch alone is a worse signal for
 * long samples (a 30 ms sample on a machine with other work has one in most
 * samples, for a kernel worker's few microseconds): with threads > 1, where
 * the CPU time cannot be used, a sample counts as contaminated only with
 * more involuntary switches than one per 10 ms of what the sample should
 * take (any switch in a sample under 10 ms): of the samples above that is
 * 1.3 %, 11 % and 11 % with other helpers' builds (0.3, 2, 30 ms), 18 %,
 * 34 % and 100 % with `yes`, and 87 % of 30 ms samples with `make -j2`.
 *
 * A sample still contaminated after its re-takes is kept at its CPU time
 * (single-threaded): wall time less the time the thread was off the CPU.
 * Without that, a long call on a saturated machine is lost: tanh over 1M
 * elements (about 20 ms a call) with two `yes` beside other helpers' builds
 * (load 5-7) was preempted in every take, and its median came out at
 * 48-52 ms, 2.5x the quiet 20-23 ms, with the ratio's interval 10 % wide;
 * kept at CPU time it came out at 16-20 ms, within the quiet runs' own
 * spread.  What the CPU time still holds (caches another task emptied,
 * memory bandwidth it took) is the machine's contention, which the clean
 * samples under load hold too.
 *
 * Re-taking is bounded: a 30 ms sample on a saturated machine is always
 * preempted, and re-taking it only burns the cell's budget.  So a cell stops
 * re-taking once re-takes have stopped paying off (fewer than a quarter of
 * them clean, after the first few) or once it has re-taken as many as it
 * has samples (its time at most doubles).
 *
 * The probes.  Copy bandwidth: 16 MiB copied from a buffer untouched for 64
 * MiB of other copies (twice the last-level cache here), in two halves
 * timed apart, the faster kept; about 1 ms quiet, 2 ms with the memory
 * shared.  A dependent multiply-add chain of 192K steps, about 0.3 ms
 * (1.63 ns a step here), whose time per step follows the core's clock and
 * whatever shares the core.  Both before and after each cell: 3-5 ms per
 * cell and process, against about 230 ms a cell takes per process in the
 * unary matrix at --quick.  They run in the runner's parent process
 * before and after each cell's timing child, on buffers mapped shared, so
 * that no fork write-protects them.
 */
#include "trust.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>

#define OFF_CPU_FLOOR_NS 10e3
#define OFF_CPU_SHARE 0.01
#define SWITCH_EVERY_NS 10e6
#define PROBE_BYTES ((size_t)16 << 20)
#define PROBE_BUFS 4
#define CHAIN_STEPS 196608

int bv_take_contaminated(const bv_take *t, int threads)
{
	if (threads > 1) {
		/* The allowance from what the sample should take: a preempted
		 * take's own wall time would grow it with the preemption. */
		double len = t->expect_ns > 0 ? t->expect_ns : t->wall_ns;
		return (double)t->nivcsw > floor(len / SWITCH_EVERY_NS);
	}
	double off = t->wall_ns - t->cpu_ns;
	return off > fmax(OFF_CPU_FLOOR_NS, OFF_CPU_SHARE * t->wall_ns);
}

int bv_take_better(const bv_take *a, const bv_take *b, int threads)
{
	/* Preemption only ever adds time: the take that lost least of it.
	 * With threads > 1 that is unknown; the shortest take stands for it. */
	if (threads > 1)
		return a->nivcsw < b->nivcsw || (a->nivcsw == b->nivcsw && a->wall_ns < b->wall_ns);
	return a->wall_ns - a->cpu_ns < b->wall_ns - b->cpu_ns;
}

double bv_take_kept_ns(const bv_take *t, double wall_per_call_ns, long reps, int threads)
{
	if (threads > 1 || reps < 1 || !(t->cpu_ns > 0))
		return wall_per_call_ns;
	return fmin(wall_per_call_ns, t->cpu_ns / (double)reps);
}

int bv_retake_allowed(long tried, long clean, long samples)
{
	if (tried >= samples)
		return 0;
	/* The first few always: one unlucky re-take says little. */
	return tried < 4 || 4 * clean >= tried;
}

/* Why time longer than cell_ns when preparing took longer: at 16M elements
 * on a loaded 2-vCPU machine a process spent 0.8-2.2 s per cell of which
 * 12 rounds of timing were 0.3-0.7 s (tests/measurement/logs, the A/A runs
 * of 2026-11-23), and a process's ratio varied between processes no more
 * than its own rounds' median did (1.1-1.8 %, both).  Its preparation buys
 * nothing; its rounds buy precision.  Timing for as long as preparing took
 * at most doubles a process's cost and cuts its ratio's spread by up to
 * sqrt(3) for that cost, which is what the sign test over processes needs
 * (docs/measurement.md, "Rounds against a process's fixed cost"). */
int bv_rounds_fit(int rounds, double cell_ns, double fixed_ns, double round_ns)
{
	/* A short call: the setting.  Its process's spread is mostly where its
	 * code and data landed, which more rounds do not average out. */
	if (!(round_ns > 0) || !(cell_ns > 0) || (double)rounds * round_ns <= cell_ns)
		return rounds;
	double target = fixed_ns > cell_ns ? fixed_ns : cell_ns;
	int most = fixed_ns > cell_ns ? BV_ROUNDS_STRETCH * rounds : rounds;
	double fit = floor(target / round_ns);
	if (fit >= most)
		return most;
	return fit < 5 ? (rounds < 5 ? rounds : 5) : (int)fit;
}

int bv_loadavg_parse(const char *text, double *load1, int *running)
{
	double l5, l15;
	int run, total;
	if (!text || sscanf(text, "%lf %lf %lf %d/%d", load1, &l5, &l15, &run, &total) != 5 || run < 0)
		return -1;
	*running = run;
	return 0;
}

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void *probe_alloc(size_t bytes)
{
	/* Shared, not private: fork would otherwise write-protect the pages,
	 * and the parent's next probe would fault on every one of them.
	 * (MADV_DONTFORK would avoid that too, but memcheck does not know of it:
	 * in each child its leak check then faults its way through the hole.) */
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	memset(p, 1, bytes); /* fault the pages in now, not in the first probe */
	return p;
}

/* The buffers in a memory file the orchestrator keeps for the whole run
 * (--probe-fd): its pages exist after the first process, so mapping them
 * is 5-6 ms where allocating, zeroing and filling 64 MiB afresh was 45-80
 * ms of every process's start (2026-11-24, 2 vCPU Zen 5: the largest part
 * of starting a measuring process).  The contents do not matter: a probe
 * copies whatever is there. */
static int probe_map(bv_probe *p, int fd)
{
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    (size_t)st.st_size < PROBE_BUFS * PROBE_BYTES)
		return -1;
	char *base = mmap(NULL, PROBE_BUFS * PROBE_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);
	if (base == MAP_FAILED)
		return -1;
	for (int k = 0; k < PROBE_BUFS; k++)
		p->buf[k] = (float *)(base + (size_t)k * PROBE_BYTES);
	p->mapped = 1;
	return 0;
}

int bv_probe_init(bv_probe *p, int fd)
{
	*p = (bv_probe){.n = PROBE_BYTES / sizeof(float)};
	if (probe_map(p, fd) == 0)
		return 0;
	for (int k = 0; k < PROBE_BUFS; k++)
		if (!(p->buf[k] = probe_alloc(PROBE_BYTES))) {
			bv_probe_free(p);
			return -1;
		}
	return 0;
}

void bv_probe_free(bv_probe *p)
{
	if (p->mapped && p->buf[0])
		munmap(p->buf[0], PROBE_BUFS * PROBE_BYTES);
	for (int k = 0; k < PROBE_BUFS && !p->mapped; k++)
		if (p->buf[k])
			munmap(p->buf[k], PROBE_BYTES);
	*p = (bv_probe){0};
}

size_t bv_probe_file_bytes(void) { return PROBE_BUFS * PROBE_BYTES; }

/* A dependent chain: each step needs the previous one, so its time is the
 * latency of a multiply and an add at the core's current clock, whatever
 * the compiler. */
static double chain_ns(void)
{
	volatile double seed_a = 0.999999, seed_b = 1e-7;
	double a = seed_a, b = seed_b, x = 1.0;
	double t0 = now_ns();
	for (int i = 0; i < CHAIN_STEPS; i++)
		x = x * a + b;
	double t = now_ns() - t0;
	volatile double sink = x;
	(void)sink;
	return t / CHAIN_STEPS;
}

/* Probe k reads buffer k mod 4 and writes buffer k+3 mod 4, so what it
 * reads was last touched three probes ago, with 64 MiB (twice the
 * last-level cache) touched since: it comes from memory, however little the
 * cell between two probes touched.  Two halves, timed apart, the faster
 * kept: a preemption in one half does not make the figure. */
static double copy_gbps(bv_probe *p)
{
	const float *src = p->buf[p->next % PROBE_BUFS];
	float *dst = p->buf[(p->next + PROBE_BUFS - 1) % PROBE_BUFS];
	size_t half = p->n / 2 * sizeof(float);
	double best = 0;
	p->next++;
	for (int k = 0; k < 2; k++) {
		double t0 = now_ns();
		memcpy((char *)dst + k * half, (const char *)src + k * half, half);
		double t = now_ns() - t0;
		/* Read and written: the bytes the memory moved. */
		if (t > 0 && 2.0 * (double)half / t > best)
			best = 2.0 * (double)half / t;
	}
	/* The copy must not be optimised away: its result is read. */
	volatile float sink = dst[p->n / 2];
	(void)sink;
	return best;
}

void bv_state_take(bv_probe *p, bv_state *s)
{
	char text[128] = "";
	FILE *f = fopen("/proc/loadavg", "r");
	if (!f || !fgets(text, sizeof(text), f) || bv_loadavg_parse(text, &s->load1, &s->running) != 0)
		s->load1 = NAN, s->running = -1;
	if (f)
		fclose(f);
	s->gbps = p->buf[0] ? copy_gbps(p) : NAN;
	s->compute_ns = chain_ns();
}
