/*
 * report_text.c - the report as text, what `bench-versions report` prints
 * by default: the verdict and its reasons, the notes, the counts of each
 * status, the geomeans, then the warnings, improvements and new cells.
 */
#include <stdio.h>
#include <stdlib.h>

#include "common.h"
#include "report.h"
#include "table.h"

int bv_report_text(const bv_report *r, FILE *out)
{
	const bv_table *t = &r->table;
	fprintf(out, "%s: candidate %s against baseline %s\n", r->ready ? "READY" : "NOT READY", t->labels[1],
		t->labels[0]);
	for (size_t i = 0; i < r->nreasons; i++)
		fprintf(out, "  - %s\n", r->reasons[i]);
	for (size_t i = 0; i < t->nnotes; i++)
		fprintf(out, "note: %s\n", t->notes[i]);
	char count[64];
	fprintf(out, "cells: %zu", r->ncells - r->counts[BV_CELL_NOT_RUN]);
	for (int s = 0; s < BV_CELL_NSTATUS; s++)
		if (r->counts[s] && s != BV_CELL_NOT_RUN)
			fprintf(out, ", %s", bv_cell_status_count((bv_cell_status)s, r->counts[s], count, sizeof(count)));
	fputc('\n', out);
	for (size_t g = 0; g < r->ngroups; g++)
		if (r->groups[g].n)
			fprintf(out, "geomean %s/%s over %s: %.3f (%zu %s)\n", t->labels[1], t->labels[0],
				r->groups[g].bench, r->groups[g].geomean, r->groups[g].n,
				bv_plural((long long)r->groups[g].n, "cell", "cells"));
	if (r->ngeomean && r->ngroups > 1)
		fprintf(out, "geomean %s/%s overall: %.3f (%zu %s)\n", t->labels[1], t->labels[0], r->geomean,
			r->ngeomean, bv_plural((long long)r->ngeomean, "cell", "cells"));
	static const bv_cell_status listed[] = {BV_CELL_WARNING, BV_CELL_IMPROVEMENT, BV_CELL_NEW};
	static const char *const titles[] = {"warnings (slower, not blocking)", "improvements", "new cells"};
	for (int l = 0; l < 3; l++) {
		if (!r->counts[listed[l]])
			continue;
		fprintf(out, "%s:\n", titles[l]);
		for (size_t k = 0; k < r->ncells; k++)
			if (r->cells[k].status == listed[l]) {
				char name[256], *sum = bv_report_cell_summary(&r->cells[k]);
				bv_report_cell_name(&r->cells[k], name, sizeof(name));
				fprintf(out, "  %-32s %s\n", name, sum);
				free(sum);
			}
	}
	return ferror(out) ? bv_fail(BV_ERUN, "cannot write the output") : 0;
}
