/*
 * runner_timing.c - timing the versions of one cell, in a child: the
 * calls per sample calibrated once, every version warmed, then the rounds,
 * each version once a round in a random order (shuffle, seeded by --seed);
 * a preempted sample is re-taken (trust.h).  Separate because this is the
 * code every timing passes through: a change here is a change of the
 * measurement, reviewed with docs/measurement.md in mind.
 */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "runner_internal.h"
#include "pages.h"

uint64_t rng_state;

static uint64_t rng_next(void)
{
	/* xorshift64*: the order of versions only needs to be unpredictable
	 * with respect to the machine, not cryptographic. */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

void shuffle(int *v, int n)
{
	for (int i = n - 1; i > 0; i--) {
		int j = (int)(rng_next() % (uint64_t)(i + 1)), t = v[i];
		v[i] = v[j], v[j] = t;
	}
}

double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* ---- timing the versions of one cell (in a child) --------------------- */


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
cJSON *time_child(void *arg)
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
