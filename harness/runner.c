/*
 * runner.c - bv-runner, the measuring host: one short process that loads
 * every version's plugin, then for each cell of the matrix checks every
 * version's output against the reference and times the versions alternately,
 * in a fresh random order each round, on the same input buffers.
 *
 * Why one process for all versions: on these machines a process keeps one
 * speed level for its whole life (measurement.md), so timing version A in one
 * process and B in another compares the levels, not the code.  Pairing A and B
 * inside each process cancels the level; the orchestrator then runs several
 * such processes and takes the median over them, because code placement still
 * differs between processes.
 *
 *   bv-runner --out FILE [--seed N] [--rounds N] [--sample-us N]
 *             [--benches L] [--ops L] [--backends L] [--sizes L]
 *             LABEL=PLUGIN.so ...
 *
 * Writes one JSON document (schema "bv-runner/1") with every cell's status
 * and raw samples per version; exit 0, or 2 on bad arguments, 3 when a plugin
 * cannot be loaded or the output cannot be written.
 */
#include <cjson/cJSON.h>
#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "benches.h"
#include "plugin.h"

#define MAX_VERSIONS 16

typedef struct version {
	const char *label;
	const bv_plugin *p;
	/* per cell */
	int status; /* BV_OK, BV_NA, BV_UNAVAILABLE, BV_FAILED, or -1 wrong result */
	char reason[512];
	bv_call call;
	float *x, *y; /* buffers in the backend's memory */
	int own_buffers;
	double *samples;
} version;

static uint64_t rng_state;

static uint64_t rng_next(void)
{
	/* xorshift64*: the order of versions within a round only needs to be
	 * unpredictable with respect to the machine, not cryptographic. */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void usage(void)
{
	fprintf(stderr, "usage: bv-runner --out FILE [--seed N] [--rounds N] [--sample-us N]\n"
			"                 [--benches L] [--ops L] [--backends L] [--sizes L] LABEL=PLUGIN ...\n");
	exit(2);
}

static const char *status_name(int s)
{
	switch (s) {
	case BV_OK: return "ok";
	case BV_NA: return "n/a";
	case BV_UNAVAILABLE: return "skipped";
	case -1: return "wrong result";
	default: return "failed";
	}
}

/* Times `reps` calls of v; returns ns per call, or NAN if a call failed. */
static double time_calls(version *v, const bv_args *a, const char *backend, long reps)
{
	double t0 = now_ns();
	for (long r = 0; r < reps; r++)
		if (v->call.fn(&v->call, a) != BV_OK)
			return NAN;
	if (!v->p->host_memory(backend) && v->p->sync(backend) != BV_OK)
		return NAN;
	return (now_ns() - t0) / (double)reps;
}

/* Sets up v for cell c: finds the op, prepares buffers, runs it once and
 * checks the output.  On return v->status says whether it can be timed. */
static void prepare(version *v, const bv_cell *c, const float *hx, float *hy, float *check)
{
	const bv_plugin *p = v->p;
	const char *be = c->backend;
	size_t bytes = c->size * sizeof(float);
	v->reason[0] = '\0';
	v->own_buffers = 0;
	v->x = v->y = NULL;
	v->status = p->probe(be);
	if (v->status != BV_OK) {
		snprintf(v->reason, sizeof(v->reason), "%s", p->last_error());
		return;
	}
	v->status = p->lookup(c->bench->name, c->op->name, be, &v->call);
	if (v->status != BV_OK) {
		snprintf(v->reason, sizeof(v->reason), "%s/%s not in this version", c->bench->name, c->op->name);
		return;
	}
	if (p->host_memory(be)) {
		/* Host backends share the host's buffers: same addresses, same pages. */
		v->x = (float *)hx, v->y = hy;
	} else {
		void *dx = NULL, *dy = NULL;
		v->status = p->alloc(be, bytes, &dx);
		if (v->status == BV_OK)
			v->status = p->alloc(be, bytes, &dy);
		if (v->status == BV_OK)
			v->status = p->copy_in(be, dx, hx, bytes);
		v->x = dx, v->y = dy, v->own_buffers = 1;
		if (v->status != BV_OK) {
			snprintf(v->reason, sizeof(v->reason), "%s", p->last_error());
			return;
		}
	}
	bv_args a = {v->x, v->y, c->size};
	memset(check, 0xff, bytes); /* NaN everywhere: a kernel that writes nothing fails */
	if (!v->own_buffers)
		memset(v->y, 0xff, bytes);
	int s = v->call.fn(&v->call, &a);
	if (s == BV_OK && v->own_buffers)
		s = p->copy_out(be, check, v->y, bytes);
	else if (s == BV_OK)
		memcpy(check, v->y, bytes);
	if (s != BV_OK) {
		v->status = s;
		snprintf(v->reason, sizeof(v->reason), "%s", p->last_error());
		return;
	}
	if (!bv_check(c->op, hx, check, c->size, v->reason, sizeof(v->reason)))
		v->status = -1;
}

static void release(version *v, const char *backend)
{
	if (v->own_buffers) {
		v->p->release(backend, v->x);
		v->p->release(backend, v->y);
	}
	v->x = v->y = NULL;
	v->own_buffers = 0;
}

static cJSON *measure_cell(version *vs, int nv, const bv_cell *c, int rounds, double sample_ns)
{
	size_t bytes = c->size * sizeof(float);
	size_t alloc = (bytes + 63) & ~(size_t)63;
	float *hx = aligned_alloc(64, alloc ? alloc : 64);
	float *hy = aligned_alloc(64, alloc ? alloc : 64);
	float *check = aligned_alloc(64, alloc ? alloc : 64);
	if (!hx || !hy || !check) {
		fprintf(stderr, "bv-runner: out of memory for %zu elements\n", c->size);
		exit(3);
	}
	for (size_t i = 0; i < c->size; i++)
		hx[i] = bv_input(c->op, i);

	int ready[MAX_VERSIONS], nready = 0;
	for (int i = 0; i < nv; i++) {
		prepare(&vs[i], c, hx, hy, check);
		if (vs[i].status == BV_OK)
			ready[nready++] = i;
	}

	long reps = 1;
	if (nready > 0) {
		/* Calibrate once on the first ready version so every version runs the
		 * same number of calls per sample. */
		version *v = &vs[ready[0]];
		bv_args a = {v->x, v->y, c->size};
		time_calls(v, &a, c->backend, 1); /* first call pays for cold caches and page faults */
		double one = time_calls(v, &a, c->backend, 1);
		if (isfinite(one) && one > 0)
			reps = (long)fmax(1.0, fmin(1e7, sample_ns / one));
	}
	for (int k = 0; k < nready; k++) {
		version *v = &vs[ready[k]];
		v->samples = calloc((size_t)rounds, sizeof(double));
		bv_args a = {v->x, v->y, c->size};
		time_calls(v, &a, c->backend, reps); /* warm-up */
	}
	int order[MAX_VERSIONS];
	for (int r = 0; r < rounds; r++) {
		memcpy(order, ready, sizeof(int) * (size_t)nready);
		for (int i = nready - 1; i > 0; i--) {
			int j = (int)(rng_next() % (uint64_t)(i + 1)), t = order[i];
			order[i] = order[j], order[j] = t;
		}
		for (int k = 0; k < nready; k++) {
			version *v = &vs[order[k]];
			bv_args a = {v->x, v->y, c->size};
			v->samples[r] = time_calls(v, &a, c->backend, reps);
			if (!isfinite(v->samples[r]) && v->status == BV_OK) {
				v->status = BV_FAILED;
				snprintf(v->reason, sizeof(v->reason), "failed while timing: %s", v->p->last_error());
			}
		}
	}

	cJSON *cell = cJSON_CreateObject();
	cJSON_AddStringToObject(cell, "bench", c->bench->name);
	cJSON_AddStringToObject(cell, "op", c->op->name);
	cJSON_AddStringToObject(cell, "backend", c->backend);
	cJSON_AddNumberToObject(cell, "size", (double)c->size);
	cJSON_AddNumberToObject(cell, "reps", (double)reps);
	cJSON *arr = cJSON_AddArrayToObject(cell, "versions");
	for (int i = 0; i < nv; i++) {
		version *v = &vs[i];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "label", v->label);
		cJSON_AddStringToObject(o, "status", status_name(v->status));
		if (v->reason[0])
			cJSON_AddStringToObject(o, "reason", v->reason);
		if (v->status == BV_OK && v->samples)
			cJSON_AddItemToObject(o, "samples_ns", cJSON_CreateDoubleArray(v->samples, rounds));
		cJSON_AddItemToArray(arr, o);
		free(v->samples);
		v->samples = NULL;
		release(v, c->backend);
	}
	free(hx);
	free(hy);
	free(check);
	return cell;
}

int main(int argc, char **argv)
{
	const char *out = NULL;
	bv_selection sel = {0};
	int rounds = 21;
	double sample_us = 1000;
	unsigned long long seed = 0;
	version vs[MAX_VERSIONS];
	int nv = 0;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *val = i + 1 < argc ? argv[i + 1] : NULL;
		if (strcmp(a, "--out") == 0 && val)
			out = val, i++;
		else if (strcmp(a, "--seed") == 0 && val)
			seed = strtoull(val, NULL, 10), i++;
		else if (strcmp(a, "--rounds") == 0 && val)
			rounds = atoi(val), i++;
		else if (strcmp(a, "--sample-us") == 0 && val)
			sample_us = atof(val), i++;
		else if (strcmp(a, "--benches") == 0 && val)
			sel.benches = val, i++;
		else if (strcmp(a, "--ops") == 0 && val)
			sel.ops = val, i++;
		else if (strcmp(a, "--backends") == 0 && val)
			sel.backends = val, i++;
		else if (strcmp(a, "--sizes") == 0 && val)
			sel.sizes = val, i++;
		else if (a[0] != '-' && strchr(a, '=') && nv < MAX_VERSIONS) {
			char *eq = strchr(a, '=');
			*eq = '\0';
			vs[nv].label = a;
			void *h = dlopen(eq + 1, RTLD_NOW | RTLD_LOCAL);
			bv_plugin_get_fn get = h ? (bv_plugin_get_fn)(uintptr_t)dlsym(h, BV_PLUGIN_SYMBOL) : NULL;
			if (!get) {
				fprintf(stderr, "bv-runner: cannot load plugin for %s: %s\n", a, dlerror());
				return 3;
			}
			vs[nv].p = get();
			if (vs[nv].p->abi != BV_PLUGIN_ABI) {
				fprintf(stderr, "bv-runner: plugin %s has ABI %d, expected %d\n", eq + 1,
					vs[nv].p->abi, BV_PLUGIN_ABI);
				return 3;
			}
			vs[nv].samples = NULL;
			nv++;
		} else
			usage();
	}
	if (!out || nv == 0 || rounds < 1 || rounds > 100000 || !(sample_us > 0))
		usage();
	rng_state = seed ? seed : ((uint64_t)getpid() << 32 ^ (uint64_t)now_ns()) | 1;

	bv_cell *cells;
	char err[256];
	long ncells = bv_cells_select(&sel, &cells, err, sizeof(err));
	if (ncells < 0) {
		fprintf(stderr, "bv-runner: %s\n", err);
		return 2;
	}

	cJSON *doc = cJSON_CreateObject();
	cJSON_AddStringToObject(doc, "schema", "bv-runner/1");
	cJSON_AddNumberToObject(doc, "pid", (double)getpid());
	cJSON_AddNumberToObject(doc, "rounds", rounds);
	cJSON *vers = cJSON_AddArrayToObject(doc, "versions");
	for (int i = 0; i < nv; i++) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "label", vs[i].label);
		cJSON_AddStringToObject(o, "kernel_version", vs[i].p->kernel_version());
		cJSON_AddItemToArray(vers, o);
	}
	cJSON *arr = cJSON_AddArrayToObject(doc, "cells");
	for (long i = 0; i < ncells; i++)
		cJSON_AddItemToArray(arr, measure_cell(vs, nv, &cells[i], rounds, sample_us * 1e3));
	free(cells);

	char *text = cJSON_Print(doc);
	cJSON_Delete(doc);
	FILE *f = text ? fopen(out, "w") : NULL;
	int ok = f && fputs(text, f) >= 0;
	if (f && fclose(f) != 0)
		ok = 0;
	free(text);
	if (!ok) {
		fprintf(stderr, "bv-runner: cannot write %s: %s\n", out, strerror(errno));
		return 3;
	}
	return 0;
}
