/*
 * history_md.c - `bench-versions history --format markdown`: the table as
 * GitHub-flavoured Markdown, the changes listed, the control line and the
 * notes; every string from a version escaped (bv_md_esc).
 */
#include <stdio.h>
#include <stdlib.h>

#include "export.h"
#include "history.h"
#include "history_format.h"
#include "stats.h"

int bv_hist_write_markdown(const bv_hist *h, FILE *out)
{
	fprintf(out, "### Performance history\n\n| cell |");
	for (size_t j = 0; j < h->nv; j++) {
		fprintf(out, " ");
		bv_md_esc(out, bv_hist_version(h, j)->label);
		fprintf(out, " |");
	}
	fprintf(out, "\n|---|");
	for (size_t j = 0; j < h->nv; j++)
		fprintf(out, "---:|");
	fprintf(out, "\n");
	for (size_t c = 0; c < h->ncells; c++) {
		const bv_hist_cell *x = &h->cells[c];
		fprintf(out, "| `%s` |", x->key);
		for (size_t j = 0; j < h->nv; j++) {
			char num[32];
			bv_hist_num(x->chain[j], num, sizeof(num));
			fprintf(out, bv_hist_change_at(x, j) ? " **%s** |" : " %s |", num);
		}
		fprintf(out, "\n");
	}
	fprintf(
	    out,
	    "\nEach version's time over %s's (the product of paired steps); **bold**: a change point.\n\n",
	    bv_hist_version(h, 0)->label);
	size_t nchanges = bv_hist_count_changes(h);
	fprintf(out, "**Changes:**%s\n\n", nchanges ? "" : " none");
	for (size_t c = 0; c < h->ncells; c++) {
		const bv_hist_cell *x = &h->cells[c];
		for (size_t k = 0; k < x->ncps; k++) {
			const bv_change_point *cp = &x->cps[k];
			bv_hist_change_line l;
			bv_hist_change_line_of(h, x, cp, &l);
			fprintf(out, "- `%s`: ", x->key);
			bv_md_esc(out, l.from);
			fprintf(out, " -> ");
			bv_md_esc(out, l.to);
			fprintf(out, ": %s **%s**%s%s\n", l.size, bv_verdict_name(cp->direction), l.gap,
			        l.why);
			char *cmd = bv_hist_bisect_command(h, x, cp);
			if (cmd)
				fprintf(out, "  - narrow it: `%s`\n", cmd);
			free(cmd);
		}
	}
	if (nchanges)
		fprintf(out, "\n");
	fprintf(out, "<sub>");
	bv_hist_control_line(h, out);
	fprintf(out, "</sub>\n");
	for (size_t i = 0; i < h->notes.n; i++) {
		fprintf(out, "\n> ");
		bv_md_esc(out, h->notes.v[i]);
		fprintf(out, "\n");
	}
	return 0;
}
