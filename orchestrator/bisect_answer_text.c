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
#include "verdict.h"

void print_text(const ctx *x, const answer *a)
{
	char r[64];
	const char *dir = x->improvement ? "faster" : "slower";
	if (a->status == BV_BISECT_FOUND) {
		commit_info fi;
		commit_info_of(x->git, a->first, &fi);
		printf("first %s commit: %s\n", dir, a->first);
		printf("  subject: %s\n  author:  %s <%s>\n  date:    %s\n", fi.subject, fi.author, fi.email, fi.date);
		commit_info_free(&fi);
		fmt_ratio(a->first_step ? &a->first_step->vs_good : a->check, r, sizeof(r));
		printf("  vs good %.12s:   %s\n", a->good, r);
		if (a->first_step) {
			fmt_ratio(&a->first_step->vs_bad, r, sizeof(r));
			printf("  vs bad %.12s:    %s\n", a->bad, r);
		}
		if (a->vs_parent->valid) {
			fmt_ratio(a->vs_parent, r, sizeof(r));
			printf("  vs parent %.12s: %s %s\n", a->parent, r,
			       bv_verdict_name(bv_bisect_parent_verdict(a->vs_parent, x->mo.threshold)));
		}
	} else {
		printf("%s: the first %s commit is one of %zu:\n",
		       a->status == BV_BISECT_RANGE ? "skipped commits leave a range" : "stopped at --max-steps",
		       dir, a->nrange);
		for (size_t i = 0; i < a->nrange; i++) {
			commit_info ri;
			commit_info_of(x->git, a->range[i], &ri);
			printf("  %.12s %s\n", a->range[i], ri.subject);
			commit_info_free(&ri);
		}
	}
	fmt_ratio(a->check, r, sizeof(r));
	printf("bad/good: %s in %s/%s/%s/%s\n", r, x->bench, x->op, x->backend, x->shape);
	printf("steps:\n  #  commit        ratio to good [95%% CI]   verdict\n");
	for (size_t i = 0; i < a->nsteps; i++) {
		const point *p = &a->steps[i];
		fmt_ratio(&p->vs_good, r, sizeof(r));
		printf("  %-2zu %.12s  %-24s %s%s%s%s%s\n", i + 1, p->commit, r, bv_bisect_side_name(p->side),
		       p->reason ? " (" : "", p->reason ? p->reason : "", p->reason ? ")" : "",
		       p->reused ? ", reused" : "");
	}
	printf("builds: %d (%d new, %d cached, %d failed); measured %d, reused %d %s; %.0f s\n", x->builds,
	       x->builds_new, x->builds - x->builds_new - x->builds_failed, x->builds_failed, x->taken, x->reused,
	       bv_plural(x->reused, "measurement", "measurements"), a->elapsed);
	if (x->rounds)
		printf("rounds: %d\n", x->rounds);
	printf("state: %s\n", x->state);
}
