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

/* What a bisect found, for the two output formats. */
typedef struct answer {
	bv_bisect_ending status; /* found, range, stopped */
	const char *good, *bad, *first; /* first: the first bad commit when found */
	const point *first_step;         /* its step (NULL: it is bad itself) */
	const char *parent;              /* its first parent ("" if none) */
	const bv_bisect_ratio *check, *vs_parent;
	const point *steps;
	size_t nsteps;
	char *const *range; /* the commits that may be the first bad one */
	size_t nrange;
	int first_parent;
	double elapsed;
} answer;

void print_json(const ctx *x, const answer *a);
void print_text(const ctx *x, const answer *a);

#endif
