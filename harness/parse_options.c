/* options.c - the option parser (see options.h); its checked conversions are harness/numbers.c. */
#include "options.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "benches.h"
#include "common.h"

/* ---- one option ------------------------------------------------------ */

/* What a kind expects, for a message: "a whole number from 1 to 1000". */
static void expected(const bv_option *o, bv_buf *b)
{
	switch (o->kind) {
	case BV_OPT_INT: bv_buf_printf(b, "a whole number from %.0f to %.0f", o->min, o->max); break;
	case BV_OPT_U64:
		if (o->max > 0)
			bv_buf_printf(b, "a whole number from 0 to %.0f", o->max);
		else
			bv_buf_printf(b, "a whole number from 0 to %llu", ULLONG_MAX);
		break;
	case BV_OPT_DOUBLE: /* %.15g: 1000000, not 1e+06 */
		bv_buf_printf(b, "a number from %.15g to %.15g%s%s", o->min, o->max, o->unit ? " " : "",
			      o->unit ? o->unit : "");
		break;
	case BV_OPT_SIZE:
		bv_buf_puts(b, "a size in bytes, or a number with K, M, G or T (powers of 1024)");
		if (o->min > 0)
			bv_buf_printf(b, ", at least %.0f bytes", o->min);
		if (o->max < 1e18) /* the tables' "no bound" */
			bv_buf_printf(b, ", at most %.0f bytes", o->max);
		break;
	case BV_OPT_DURATION:
		bv_buf_printf(b, "a duration in seconds, or a number with ms, s, m or h, from %.15g to %.15g s",
			      o->min, o->max);
		break;
	case BV_OPT_ENUM:
		bv_buf_puts(b, "one of ");
		for (const char *const *v = o->values; *v; v++)
			bv_buf_printf(b, "%s%s", v == o->values ? "" : "|", *v);
		break;
	default: bv_buf_puts(b, "a non-empty value"); break;
	}
}

static int bad_value(const bv_option *o, const char *value)
{
	bv_buf b = BV_BUF_INIT;
	expected(o, &b);
	/* The value as given, escaped: it is text from outside. */
	char *shown = bv_escape(value);
	int rc = bv_fail(BV_EINPUT, "%s '%s': expected %s", o->name, shown, b.s);
	free(shown);
	bv_buf_free(&b);
	return rc;
}

int bv_option_set(const bv_option *o, const char *value)
{
	if (o->kind == BV_OPT_REFUSED)
		return bv_fail(BV_EINPUT, "%s", o->help);
	if (o->kind == BV_OPT_FLAG) {
		if (value)
			return bv_fail(BV_EINPUT, "%s takes no value (given '%s')", o->name, value);
		*(int *)o->dest = 1;
		return 0;
	}
	if (!value)
		return bv_fail(BV_EINPUT, "%s needs a value (%s %s)", o->name, o->name,
			       o->arg ? o->arg : "VALUE");
	long long i;
	unsigned long long u;
	double d;
	switch (o->kind) {
	case BV_OPT_INT:
		if (bv_parse_int(value, (long long)o->min, (long long)o->max, &i))
			return bad_value(o, value);
		*(int *)o->dest = (int)i;
		return 0;
	case BV_OPT_U64:
		if (bv_parse_u64(value, o->max > 0 ? (unsigned long long)o->max : ULLONG_MAX, &u))
			return bad_value(o, value);
		*(unsigned long long *)o->dest = u;
		return 0;
	case BV_OPT_DOUBLE:
		if (bv_parse_double(value, o->min, o->max, &d))
			return bad_value(o, value);
		*(double *)o->dest = d * (o->scale ? o->scale : 1);
		return 0;
	case BV_OPT_SIZE:
		if (bv_parse_size(value, o->min, o->max, &u))
			return bad_value(o, value);
		*(unsigned long long *)o->dest = u;
		return 0;
	case BV_OPT_DURATION:
		if (bv_parse_duration(value, o->min, o->max, &d))
			return bad_value(o, value);
		*(double *)o->dest = d;
		return 0;
	case BV_OPT_STRING:
		if (!*value)
			return bad_value(o, value);
		*(const char **)o->dest = value;
		return 0;
	case BV_OPT_ENUM:
		for (const char *const *v = o->values; *v; v++)
			if (!strcmp(*v, value)) {
				*(const char **)o->dest = value;
				return 0;
			}
		return bad_value(o, value);
	default: return bv_fail(BV_EINPUT, "%s: not an option with a value", o->name);
	}
}

/* ---- the table ------------------------------------------------------- */

/* The line of opts named by the first len bytes of name, depth first
 * through included tables, the first match winning (so a command's own
 * line shadows an included one of the same name); *via gets the outermost
 * INCLUDE line it was found through (NULL: opts itself). */
static const bv_option *find(const bv_option *opts, const char *name, size_t len, const bv_option **via)
{
	for (const bv_option *o = opts; o->kind != BV_OPT_END; o++) {
		if (o->kind == BV_OPT_INCLUDE) {
			const bv_option *inner = NULL;
			const bv_option *hit = find(o->dest, name, len, &inner);
			if (hit) {
				*via = o;
				return hit;
			}
		} else if (strlen(o->name) == len && !strncmp(o->name, name, len)) {
			*via = NULL;
			return o;
		}
	}
	return NULL;
}

/* The names of opts' lines a user may give, through included tables,
 * without their leading dashes (so "-quick" is close to --quick). */
static void names_of(const bv_option *opts, bv_strv *names)
{
	for (const bv_option *o = opts; o->kind != BV_OPT_END; o++)
		if (o->kind == BV_OPT_INCLUDE)
			names_of(o->dest, names);
		else if (o->help && o->kind != BV_OPT_REFUSED) /* not the hidden or refused ones */
			bv_strv_push(names, o->name + strspn(o->name, "-"));
}

/* "unknown option --quik: did you mean --quick?" */
static int unknown_option(const bv_option *opts, const char *a, size_t len)
{
	/* Not echoed past '=': a mistyped option may carry a secret. */
	char *name = bv_xmalloc(len + 1);
	memcpy(name, a, len);
	name[len] = '\0';
	bv_strv names = BV_STRV_INIT;
	names_of(opts, &names);
	long k = bv_closest_name(name + strspn(name, "-"), (const char *const *)names.v, names.n);
	int rc = k < 0 ? bv_fail(BV_EINPUT, "unknown option %s", name)
		       : bv_fail(BV_EINPUT, "unknown option %s: did you mean --%s?", name, names.v[k]);
	bv_strv_free(&names);
	free(name);
	return rc;
}

int bv_options_parse(const bv_option *opts, int argc, char **argv, char **pos, size_t *npos)
{
	*npos = 0;
	int only_positional = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (only_positional || a[0] != '-' || !a[1]) { /* "-" alone is not an option */
			pos[(*npos)++] = argv[i];
			continue;
		}
		if (!strcmp(a, "--")) {
			only_positional = 1;
			continue;
		}
		if (!strcmp(a, "--help") || !strcmp(a, "-h"))
			return 1;
		const char *eq = strchr(a, '=');
		size_t len = eq ? (size_t)(eq - a) : strlen(a);
		const bv_option *via = NULL, *o = a[1] == '-' ? find(opts, a, len, &via) : NULL;
		if (!o)
			return unknown_option(opts, a, len);
		/* The next argument is the value whatever it looks like:
		 * `--threshold -5` is a bad value, not a missing one. */
		const char *value = NULL;
		if (eq)
			value = eq + 1;
		else if (o->kind != BV_OPT_FLAG && o->kind != BV_OPT_REFUSED && i + 1 < argc)
			value = argv[++i];
		int rc = bv_option_set(o, value);
		if (rc)
			return rc;
		if (o->seen && !*o->seen)
			*o->seen = o->name;
		if (via && via->seen && !*via->seen)
			*via->seen = o->name;
	}
	return 0;
}

/* ---- help ------------------------------------------------------------ */

static size_t widest(const bv_option *opts)
{
	size_t w = 0;
	for (const bv_option *o = opts; o->kind != BV_OPT_END; o++) {
		size_t k = 0;
		if (o->kind == BV_OPT_INCLUDE)
			k = o->help ? 0 : widest(o->dest);
		else if (o->help && o->kind != BV_OPT_REFUSED)
			k = strlen(o->name) + (o->arg ? 1 + strlen(o->arg) : 0);
		w = k > w ? k : w;
	}
	return w;
}

/* "  LABEL   help": the help flowed into the columns from col to 79,
 * broken at spaces (a newline in it is a space too); a label too long for
 * the column gets its help on the next line. */
static void print_lines(FILE *out, const char *label, const char *help, int col)
{
	const size_t width = (size_t)(79 - col);
	fprintf(out, "  %-*s", col - 2, label);
	if ((int)strlen(label) > col - 4)
		fprintf(out, "\n%*s", col, "");
	char *text = bv_strdup(help);
	for (char *c = text; *c; c++)
		*c = *c == '\n' ? ' ' : *c;
	for (const char *p = text; *p;) {
		size_t n = strlen(p);
		if (n > width) { /* the last space that fits, else the first one */
			size_t cut = 0;
			for (size_t k = 0; k < n; k++)
				if (p[k] == ' ' && (k <= width || !cut))
					cut = k;
			n = cut ? cut : n;
		}
		fprintf(out, "%.*s\n", (int)n, p);
		for (p += n; *p == ' '; p++)
			;
		if (*p)
			fprintf(out, "%*s", col, "");
	}
	free(text);
}

/* shown: the names listed so far, so a line shadowed by an earlier one of
 * the same name (a command's own --threshold before the measuring
 * options') is not listed twice. */
static void help_of(const bv_option *opts, FILE *out, int col, bv_strv *shown)
{
	for (const bv_option *o = opts; o->kind != BV_OPT_END; o++) {
		if (o->kind == BV_OPT_INCLUDE) {
			if (o->help) /* a summary, in the options' indentation */
				for (const char *p = o->help; *p;) {
					size_t n = strcspn(p, "\n");
					fprintf(out, "%s%.*s\n", n ? "  " : "", (int)n, p);
					p += n + (p[n] == '\n');
				}
			else
				help_of(o->dest, out, col, shown);
			continue;
		}
		if (!o->help || o->kind == BV_OPT_REFUSED)
			continue;
		size_t k;
		for (k = 0; k < shown->n && strcmp(shown->v[k], o->name); k++)
			;
		if (k < shown->n)
			continue;
		bv_strv_push(shown, o->name);
		char *label = bv_asprintf("%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
		print_lines(out, label, o->help, col);
		free(label);
	}
}

void bv_options_help(const bv_option *opts, FILE *out)
{
	/* The help column: two spaces past the widest label, at most 21, so a
	 * long label does not push every help text to the right. */
	size_t w = widest(opts) + 4;
	int col = w > 21 ? 21 : (int)w;
	bv_strv shown = BV_STRV_INIT;
	help_of(opts, out, col, &shown);
	bv_strv_free(&shown);
	print_lines(out, "--help", "this usage", col);
}

/* ---- after parsing --------------------------------------------------- */

int bv_options_done(int rc, int missing, const char *who, const char *cmd, bv_usage_fn *usage,
		    const bv_option *opts)
{
	if (rc == 1) {
		usage(stdout, opts);
		return BV_EXIT_OK;
	}
	if (rc) {
		fprintf(stderr, "%s: %s (see bench-versions %s --help)\n", who, bv_error_last(), cmd);
		return BV_EXIT_USAGE;
	}
	if (missing) {
		usage(stderr, opts);
		return BV_EXIT_USAGE;
	}
	return -1;
}

int bv_options_exclusive(const char *a, int a_given, const char *b, int b_given, const char *why)
{
	if (a_given && b_given)
		return bv_fail(BV_EINPUT, "%s with %s: %s", a, b, why);
	return 0;
}

int bv_options_requires(const char *a, int a_given, const char *b, int b_given, const char *why)
{
	if (!a_given || b_given)
		return 0;
	return why ? bv_fail(BV_EINPUT, "%s is for %s (%s)", a, b, why) : bv_fail(BV_EINPUT, "%s is for %s", a, b);
}
