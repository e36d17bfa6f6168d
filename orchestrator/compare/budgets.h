/*
 * budgets.h - how much slower a release may get, per cell: a default allowed
 * slowdown and overrides per group, op, backend or size, from a JSON file
 * (docs/cli/report.md#budgets).
 *
 * Precedence: the override that names the most fields (of bench, op,
 * backend, size) among those matching a cell wins; between equally specific
 * matches the smaller budget wins, so an ambiguity never loosens a gate.
 * No match: the default.
 */
#ifndef BV_BUDGETS_H
#define BV_BUDGETS_H

#include <stddef.h>

typedef struct bv_budget_rule {
	char *bench, *op, *backend; /* NULL: any */
	size_t size;                /* 0: any */
	double slowdown;            /* allowed slowdown as a fraction: 0.05 = 5 % */
	char *note;                 /* why this cell has its own budget (may be NULL) */
	int index;                  /* position in "overrides", for messages */
} bv_budget_rule;

typedef struct bv_budgets {
	char *path; /* the file, or NULL for the built-in default */
	double default_slowdown;
	bv_budget_rule *rules;
	size_t nrules;
} bv_budgets;

/* No file: every cell gets slowdown (a fraction). */
void bv_budgets_default(bv_budgets *b, double slowdown);
/* Reads and validates a budgets file; every error is BV_EINPUT naming the
 * file and the field ("budgets.json: overrides[2].op: unknown op 'reul'").
 * default_slowdown is used when the file has no default_slowdown_pct. */
int bv_budgets_load(const char *path, double default_slowdown, bv_budgets *out);
/* The same for text in memory; name is used in messages. */
int bv_budgets_parse(const char *name, const char *text, size_t len, double default_slowdown,
		     bv_budgets *out);
/* The allowed slowdown of one cell; *rule (if not NULL) gets the override
 * that decided it, or NULL for the default. */
double bv_budget_for(const bv_budgets *b, const char *bench, const char *op, const char *backend, size_t size,
		     const bv_budget_rule **rule);
void bv_budgets_free(bv_budgets *b);

#endif
