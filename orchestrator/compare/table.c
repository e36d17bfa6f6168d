/* table.c - what every reader of the comparison table asks of it (see table.h). */
#include <regex.h>
#include <stdio.h>

#include "benches.h"
#include "common.h"
#include "table.h"

size_t bv_table_base(const bv_table *t, size_t v)
{
	if (!t->class_of || v >= t->nversions)
		return 0;
	size_t b = v;
	while (b > 0 && t->class_of[b - 1] == t->class_of[v])
		b--;
	return b;
}

int bv_table_is_base(const bv_table *t, size_t v) { return bv_table_base(t, v) == v; }

int bv_filter_compile(const char *regex, regex_t *out)
{
	int err = regcomp(out, regex, REG_EXTENDED | REG_NOSUB);
	if (err) {
		char msg[256];
		regerror(err, out, msg, sizeof(msg));
		return bv_fail(BV_EINPUT, "--filter '%s': %s", regex, msg);
	}
	return 0;
}

void bv_row_key(const bv_row *r, char *buf, size_t len)
{
	char size[32];
	snprintf(buf, len, "%s/%s/%s/%s", r->bench, r->op, r->backend, bv_size_format(r->size, size, sizeof(size)));
}
