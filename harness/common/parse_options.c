/* parse_options.c - the option parser (see parse_options.h); its checked
 * conversions are numbers.c.  libc only: bench-versions and bv-runner both
 * link it, and the runner has no common.c. */
#include "parse_options.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benches.h"
#include "numbers.h"

/* ---- text and the message -------------------------------------------- */

/* Out of memory ends the process, as bench-versions's bv_xmalloc does:
 * nothing here can go on without. */
static void *need(void *p)
{
	if (!p) {
		fputs("out of memory\n", stderr);
		abort();
	}
	return p;
}

/* Appends to *s (NULL: empty), growing it. */
static void add(char **s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(char **s, const char *fmt, ...)
{
	char *more, *joined;
	va_list ap;
	va_start(ap, fmt);
	int n = vasprintf(&more, fmt, ap);
	va_end(ap);
	need(n < 0 ? NULL : more);
	need(asprintf(&joined, "%s%s", *s ? *s : "", more) < 0 ? NULL : joined);
	free(more);
	free(*s);
	*s = joined;
}

/* The last error's message, this thread's (as common.c's). */
static _Thread_local char *last_error;

static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int fail(const char *fmt, ...)
{
	char *msg;
	va_list ap;
	va_start(ap, fmt);
	int n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	free(last_error);
	last_error = need(n < 0 ? NULL : msg);
	return -1;
}

const char *bv_parse_options_error(void) { return last_error ? last_error : "unknown error"; }

/* A value from the command line, quoted in a message: its control
 * characters as \xNN, as bench-versions's bv_escape writes them, so a
 * value cannot start a line of its own.  The bytes past ASCII are left to
 * the program's error model (common.c escapes every message: C1 controls,
 * bidi overrides, bytes that are not UTF-8), which gives what bv_escape
 * gave for the whole value. */
static char *escaped(const char *s)
{
	char *out = need(malloc(4 * strlen(s) + 1)), *o = out;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			o += sprintf(o, "\\x%02x", *p);
		else
			*o++ = (char)*p;
	*o = '\0';
	return out;
}

/* A list of names, grown as it is filled. */
typedef struct names {
	const char **v;
	size_t n, cap;
} names;

static void names_push(names *l, const char *s)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 32;
		l->v = need(realloc(l->v, l->cap * sizeof(*l->v)));
	}
	l->v[l->n++] = s;
}

/* ---- one option ------------------------------------------------------ */

/* What a kind expects, for a message: "a whole number from 1 to 1000". */
static void expected(const bv_option *o, char **b)
{
	switch (o->kind) {
	case BV_OPT_INT: add(b, "a whole number from %.0f to %.0f", o->min, o->max); break;
	case BV_OPT_U64:
		if (o->max > 0)
			add(b, "a whole number from 0 to %.0f", o->max);
		else
			add(b, "a whole number from 0 to %llu", ULLONG_MAX);
		break;
	case BV_OPT_DOUBLE: /* %.15g: 1000000, not 1e+06 */
		add(b, "a number %s %.15g %s %.15g%s%s", o->above_min ? "greater than" : "from", o->min,
		    o->above_min ? "and at most" : "to", o->max, o->unit ? " " : "", o->unit ? o->unit : "");
		break;
	case BV_OPT_SIZE:
		add(b, "a size in bytes, or a number with K, M, G or T (powers of 1024)");
		if (o->min > 0)
			add(b, ", at least %.0f bytes", o->min);
		if (o->max < 1e18) /* the tables' "no bound" */
			add(b, ", at most %.0f bytes", o->max);
		break;
	case BV_OPT_DURATION:
		add(b, "a duration in seconds, or a number with ms, s, m or h, from %.15g to %.15g s", o->min,
		    o->max);
		break;
	case BV_OPT_ENUM:
		add(b, "one of ");
		for (const char *const *v = o->values; *v; v++)
			add(b, "%s%s", v == o->values ? "" : "|", *v);
		break;
	default: add(b, "a non-empty value"); break;
	}
}

/* "--name 'VALUE': expected WHAT"; what NULL: what the kind expects. */
static int bad_value(const bv_option *o, const char *value, const char *what)
{
	char *b = NULL;
	if (!what)
		expected(o, &b);
	/* The value as given, escaped: it is text from outside. */
	char *shown = escaped(value);
	int rc = fail("%s '%s': expected %s", o->name, shown, what ? what : b);
	free(shown);
	free(b);
	return rc;
}

int bv_parse_option(const bv_option *o, const char *value)
{
	if (o->kind == BV_OPT_REFUSED)
		return fail("%s", o->help);
	if (o->kind == BV_OPT_FLAG) {
		if (value)
			return fail("%s takes no value (given '%s')", o->name, value);
		*(int *)o->dest = 1;
		return 0;
	}
	if (!value)
		return fail("%s needs a value (%s %s)", o->name, o->name, o->arg ? o->arg : "VALUE");
	long long i;
	unsigned long long u;
	double d;
	switch (o->kind) {
	case BV_OPT_INT:
		if (bv_parse_int(value, (long long)o->min, (long long)o->max, &i))
			return bad_value(o, value, NULL);
		*(int *)o->dest = (int)i;
		return 0;
	case BV_OPT_U64:
		if (bv_parse_u64(value, o->max > 0 ? (unsigned long long)o->max : ULLONG_MAX, &u))
			return bad_value(o, value, NULL);
		*(unsigned long long *)o->dest = u;
		return 0;
	case BV_OPT_DOUBLE:
		if (bv_parse_double(value, o->min, o->max, &d) || (o->above_min && d == o->min))
			return bad_value(o, value, NULL);
		*(double *)o->dest = d * (o->scale ? o->scale : 1);
		return 0;
	case BV_OPT_SIZE:
		if (bv_parse_size(value, o->min, o->max, &u))
			return bad_value(o, value, NULL);
		*(unsigned long long *)o->dest = u;
		return 0;
	case BV_OPT_DURATION:
		if (bv_parse_duration(value, o->min, o->max, &d))
			return bad_value(o, value, NULL);
		*(double *)o->dest = d;
		return 0;
	case BV_OPT_STRING:
		if (!*value)
			return bad_value(o, value, NULL);
		*(const char **)o->dest = value;
		return 0;
	case BV_OPT_ENUM:
		for (const char *const *v = o->values; *v; v++)
			if (!strcmp(*v, value)) {
				*(const char **)o->dest = value;
				return 0;
			}
		return bad_value(o, value, NULL);
	case BV_OPT_CALLBACK: {
		const char *what = o->call(o, value);
		return what ? bad_value(o, value, what) : 0;
	}
	default: return fail("%s: not an option with a value", o->name);
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
static void names_of(const bv_option *opts, names *l)
{
	for (const bv_option *o = opts; o->kind != BV_OPT_END; o++)
		if (o->kind == BV_OPT_INCLUDE)
			names_of(o->dest, l);
		else if (o->help && o->kind != BV_OPT_REFUSED) /* not the hidden or refused ones */
			names_push(l, o->name + strspn(o->name, "-"));
}

/* "unknown option --quik: did you mean --quick?" */
static int unknown_option(const bv_option *opts, const char *a, size_t len)
{
	/* Not echoed past '=': a mistyped option may carry a secret. */
	char *name = need(strndup(a, len));
	names l = {0};
	names_of(opts, &l);
	long k = bv_closest_name(name + strspn(name, "-"), l.v, l.n);
	int rc = k < 0 ? fail("unknown option %s", name) : fail("unknown option %s: did you mean --%s?", name, l.v[k]);
	free(l.v);
	free(name);
	return rc;
}

int bv_parse_options(const bv_option *opts, int argc, char **argv, char **pos, size_t *npos)
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
		int rc = bv_parse_option(o, value);
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
	char *text = need(strdup(help));
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
static void help_of(const bv_option *opts, FILE *out, int col, names *shown)
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
		names_push(shown, o->name);
		char *label;
		need(asprintf(&label, "%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "") < 0 ? NULL : label);
		print_lines(out, label, o->help, col);
		free(label);
	}
}

void bv_print_options(const bv_option *opts, FILE *out)
{
	/* The help column: two spaces past the widest label, at most 21, so a
	 * long label does not push every help text to the right. */
	size_t w = widest(opts) + 4;
	int col = w > 21 ? 21 : (int)w;
	names shown = {0};
	help_of(opts, out, col, &shown);
	free(shown.v);
	print_lines(out, "--help", "this usage", col);
}
