/*
 * bisect_answer_text.c - bisect's answer as text (the default): the first
 * bad commit with its ratios (or the range left), the steps as a table, and
 * one line each for the builds, the rounds and the state file.
 */
#include <stdio.h>
#include <stdlib.h>

#include "bisect.h"
#include "bisect_answer.h"
#include "bisect_step.h"
#include "common.h"

void bv_bisect_answer_text(const bv_bisect_ctx *x, const bv_bisect_answer *a, FILE *out)
{
	char r[64];
	const char *dir = x->improvement ? "faster" : "slower";
	if (a->status == BV_BISECT_FOUND) {
		bv_bisect_commit fi;
		bv_bisect_commit_read(x->git, a->first, &fi);
		fprintf(out, "first %s commit: %s\n", dir, a->first);
		fprintf(out, "  subject: %s\n  author:  %s <%s>\n  date:    %s\n", fi.subject, fi.author,
		        fi.email, fi.date);
		bv_bisect_commit_free(&fi);
		bv_bisect_ratio_text(a->first_step ? &a->first_step->vs_good : a->check, r, sizeof(r));
		fprintf(out, "  vs good %.12s:   %s\n", a->good, r);
		if (a->first_step) {
			bv_bisect_ratio_text(&a->first_step->vs_bad, r, sizeof(r));
			fprintf(out, "  vs bad %.12s:    %s\n", a->bad, r);
		}
		if (a->vs_parent->valid) {
			bv_bisect_ratio_text(a->vs_parent, r, sizeof(r));
			fprintf(out, "  vs parent %.12s: %s %s\n", a->parent, r,
			       bv_verdict_name(bv_bisect_parent_verdict(a->vs_parent, x->mo.threshold)));
		}
	} else {
		fprintf(out, "%s: the first %s commit is one of %zu:\n",
		       a->status == BV_BISECT_RANGE ? "skipped commits leave a range" : "stopped at --max-steps",
		       dir, a->nrange);
		for (size_t i = 0; i < a->nrange; i++) {
			bv_bisect_commit ri;
			bv_bisect_commit_read(x->git, a->range[i], &ri);
			fprintf(out, "  %.12s %s\n", a->range[i], ri.subject);
			bv_bisect_commit_free(&ri);
		}
	}
	bv_bisect_ratio_text(a->check, r, sizeof(r));
	fprintf(out, "bad/good: %s in %s/%s/%s/%s\n", r, x->bench, x->op, x->backend, x->shape);
	fprintf(out, "steps:\n  #  commit        ratio to good [95%% CI]   verdict\n");
	for (size_t i = 0; i < a->nsteps; i++) {
		const bv_bisect_point *p = &a->steps[i];
		bv_bisect_ratio_text(&p->vs_good, r, sizeof(r));
		fprintf(out, "  %-2zu %.12s  %-24s %s%s%s%s%s\n", i + 1, p->commit, r, bv_bisect_side_name(p->side),
		       p->reason ? " (" : "", p->reason ? p->reason : "", p->reason ? ")" : "",
		       p->reused ? ", reused" : "");
	}
	fprintf(out, "builds: %d (%d new, %d cached, %d failed); measured %d, reused %d %s; %.0f s\n", x->builds,
	       x->builds_new, x->builds - x->builds_new - x->builds_failed, x->builds_failed, x->taken, x->reused,
	       bv_plural(x->reused, "measurement", "measurements"), a->elapsed);
	if (x->rounds)
		fprintf(out, "rounds: %d\n", x->rounds);
	fprintf(out, "state: %s\n", x->state);
}
