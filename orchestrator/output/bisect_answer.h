/*
 * bisect_answer.h - what `bench-versions bisect` found, as each output
 * format writes it: one bisect_answer_<format>.c per format (text, json),
 * as export.h's exporters are one file per format.
 */
#ifndef BV_BISECT_ANSWER_H
#define BV_BISECT_ANSWER_H

#include <stddef.h>
#include <stdio.h>

#include "bisect.h"
#include "bisect_step.h"

/* What a bisect found, for every output format. */
typedef struct bv_bisect_answer {
	bv_bisect_ending status;           /* found, range, stopped */
	const char *good, *bad, *first;    /* first: the first bad commit when found */
	const bv_bisect_point *first_step; /* its step (NULL: it is bad itself) */
	const char *parent;                /* its first parent ("" if none) */
	const bv_bisect_ratio *check, *vs_parent;
	const bv_bisect_point *steps;
	size_t nsteps;
	char *const *range; /* the commits that may be the first bad one */
	size_t nrange;
	int first_parent;
	double elapsed;
} bv_bisect_answer;

/* A format: its --format name and its writer, which writes a, from the
 * bisect x, to out.  Nothing fails in them but out itself, as with
 * printf: the answer is the last thing a bisect does. */
typedef struct bv_bisect_answerer {
	const char *name;
	void (*write)(const bv_bisect_ctx *x, const bv_bisect_answer *a, FILE *out);
} bv_bisect_answerer;

/* The format called name; NULL when there is none. */
const bv_bisect_answerer *bv_bisect_answerer_find(const char *name);
/* The formats' names, NULL-terminated: the values --format takes. */
const char *const *bv_bisect_answer_formats(void);

/* One per format, each in its own bisect_answer_<name>.c. */
void bv_bisect_answer_text(const bv_bisect_ctx *x, const bv_bisect_answer *a, FILE *out);
void bv_bisect_answer_json(const bv_bisect_ctx *x, const bv_bisect_answer *a, FILE *out);

#endif
