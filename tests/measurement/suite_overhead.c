/*
 * suite_overhead.c - what the suite API's call path costs against a direct
 * call (docs/suites.md reports it): one process times the same ~1 us library
 * call two ways, alternated in a fresh random order each round, and prints
 * its median ratio (API / direct) over the rounds.  suite_overhead.sh runs
 * many such processes (a process keeps one speed level for its life:
 * docs/measurement.md) and takes the median over them with its interval.
 *
 *   direct  for r < reps: a = ovh_work(a, N)          (the library itself)
 *   API     for r < reps: call.fn(&call, &args)       (the runner's loop:
 *           the plugin's trampoline -> the benchmark's run(ctx) ->
 *           bvs_state(ctx) -> ovh_work(a, N))
 *
 * Both reach the same copy of ovh_work: the suite's objects, suite_plugin.c
 * and the library are linked into this program, as they are into a plugin.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "plugin.h"

float ovh_work(float a, int n);
const bv_plugin *bv_plugin_get(void);

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 31, n = 800;
	long reps = argc > 2 ? atol(argv[2]) : 300;
	srand((unsigned)(now_ns() / 1000));
	const bv_plugin *p = bv_plugin_get();
	bv_call call;
	bv_args args = {0};
	if (p->lookup("ovh", "work", "default", &call) != BV_OK ||
	    p->suite_open("work", "", 1, 1, &args.cell) != BV_OK) {
		fprintf(stderr, "suite_overhead: %s\n", p->last_error());
		return 1;
	}
	volatile float sink = 1.0f;
	float a = 1.0f;
	double *ratio = calloc((size_t)rounds, sizeof(double)), one = 0;
	/* warm: both paths, and one call's time for the output */
	for (long r = 0; r < reps; r++)
		a = ovh_work(a, n), call.fn(&call, &args);
	for (int k = 0; k < rounds; k++) {
		double t[2];
		int first = rand() & 1;
		for (int j = 0; j < 2; j++) {
			int api = j ^ first;
			double t0 = now_ns();
			if (api)
				for (long r = 0; r < reps; r++)
					call.fn(&call, &args);
			else
				for (long r = 0; r < reps; r++)
					a = ovh_work(a, n);
			t[api] = now_ns() - t0;
		}
		ratio[k] = t[1] / t[0];
		one += t[0] / (double)reps / rounds;
	}
	sink = a;
	(void)sink;
	qsort(ratio, (size_t)rounds, sizeof(double), cmp);
	printf("%.6f %.1f\n", ratio[rounds / 2], one);
	p->suite_close(args.cell);
	return 0;
}
