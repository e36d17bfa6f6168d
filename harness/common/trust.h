/*
 * trust.h - what the runner needs to trust a sample on a loaded machine:
 * the rule that says a sample was preempted (and so is re-taken), and the
 * machine's state around each cell (load, a bandwidth and a compute probe).
 *
 * The rule is pure, so tests/unit can pin it down; the numbers it uses were
 * measured on the project's machine (trust.c says how).
 */
#ifndef BV_TRUST_H
#define BV_TRUST_H

#include <stddef.h>

/* One take of a sample: wall time, this thread's CPU time over the same
 * stretch, the thread's involuntary context switches during it, and what
 * the sample should take (the runner's calibration; 0 if unknown). */
typedef struct bv_take {
	double wall_ns, cpu_ns;
	long nivcsw;
	double expect_ns;
} bv_take;

/* Re-takes of one sample at most, before its least contaminated take is
 * kept and counted. */
#define BV_MAX_RETAKES 3

/* Was the thread off the CPU for a meaningful part of the take?  With
 * threads > 1 (OpenBLAS/OpenMP workers) this thread's CPU time says nothing
 * (it may sleep waiting for its workers), so only involuntary switches
 * count. */
int bv_take_contaminated(const bv_take *t, int threads);

/* Is take a less contaminated than take b (the one to keep when every take
 * of a sample was contaminated)? */
int bv_take_better(const bv_take *a, const bv_take *b, int threads);

/* The time per call to record for a take kept though contaminated:
 * single-threaded, its CPU time (the wall time less what the preemption
 * took), never more than its wall time per call; with threads > 1 the wall
 * time, as nothing better is known. */
double bv_take_kept_ns(const bv_take *t, double wall_per_call_ns, long reps, int threads);

/* May the runner re-take one more sample in this cell?  tried: re-takes so
 * far, clean: how many of them came out clean, samples: the cell's samples
 * (rounds x versions).  Bounds what re-taking can cost: at most one re-take
 * per sample on average, and none once re-takes stop paying off. */
int bv_retake_allowed(long tried, long clean, long samples);

/* How many rounds a process times a cell for.  rounds: the setting (--rounds);
 * cell_ns: the target time for timing the cell in this process (--cell-ms);
 * fixed_ns: what this process has already spent on the cell before its
 * first round (making the inputs, faulting in the buffers, the check, the
 * fork, the calibration calls); round_ns: one round (every version once).
 * A call short enough that `rounds` fit in cell_ns gets `rounds`; a long
 * one as many as fit in cell_ns, or in fixed_ns when preparing cost more
 * than that (up to BV_ROUNDS_STRETCH x rounds), and never fewer than 5 (nor
 * more than `rounds` when that is fewer). */
#define BV_ROUNDS_STRETCH 3
int bv_rounds_fit(int rounds, double cell_ns, double fixed_ns, double round_ns);

/* The first and fourth fields of /proc/loadavg ("0.52 0.58 0.59 3/467 12"):
 * the 1-minute load average and the runnable tasks now.  0, or -1 when the
 * text is not in that form. */
int bv_loadavg_parse(const char *text, double *load1, int *running);

/* The machine's state, taken before and after a cell's timing. */
typedef struct bv_probe {
	float *buf[4]; /* 16 MiB each, allocated once per process */
	size_t n;      /* floats in each */
	unsigned next; /* probes taken: which buffer is read next */
	int mapped;    /* the buffers are one mapping of a probe file */
} bv_probe;

typedef struct bv_state {
	double load1;     /* NAN if /proc/loadavg is unreadable */
	int running;      /* -1 if unreadable */
	double gbps;      /* copy bandwidth, bytes read and written, GB/s */
	double compute_ns; /* ns per step of a dependent multiply-add chain */
} bv_state;

/* The probe's buffers: a mapping of fd, a memory file of at least
 * bv_probe_file_bytes() kept by the caller's caller for a whole run, or
 * with fd < 0 (or one not fit for it) buffers of its own (mapped shared:
 * fork leaves them writable); -1 if memory is short, and then
 * bv_state_take reports NAN rates. */
int bv_probe_init(bv_probe *p, int fd);
size_t bv_probe_file_bytes(void);
void bv_probe_free(bv_probe *p);
void bv_state_take(bv_probe *p, bv_state *s);

#endif
