/*
 * semver.c - parsing and comparing semantic versions, and matching ranges.
 *
 * A range is one or more alternatives joined by "||"; an alternative is a
 * space-separated list of comparators that must all hold.  A comparator is
 * OP VERSION with OP one of = < <= > >= ^ ~ (none means =), where VERSION may
 * leave out trailing parts or write them as x: "0.1" and "0.1.x" both mean
 * >=0.1.0 <0.2.0.
 */
#include "semver.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Reads a number without leading zeros (semver forbids them) or overflow. */
static const char *number(const char *s, unsigned long *out)
{
	if (!isdigit((unsigned char)*s) || (s[0] == '0' && isdigit((unsigned char)s[1])))
		return NULL;
	unsigned long v = 0;
	while (isdigit((unsigned char)*s)) {
		if (v > 100000000ul)
			return NULL;
		v = v * 10 + (unsigned long)(*s++ - '0');
	}
	*out = v;
	return s;
}

static int ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '-' || c == '.';
}

int bv_semver_parse(const char *s, bv_semver *out)
{
	memset(out, 0, sizeof(*out));
	if (!s)
		return -1;
	const char *p = number(s, &out->major);
	if (!p || *p++ != '.' || !(p = number(p, &out->minor)) || *p++ != '.' ||
	    !(p = number(p, &out->patch)))
		return -1;
	if (*p == '-') {
		const char *start = ++p;
		while (ident_char(*p) && *p != '+')
			p++;
		size_t n = (size_t)(p - start);
		if (n == 0 || n >= sizeof(out->pre))
			return -1;
		for (size_t i = 0; i < n; i++) /* no empty identifier: "a..b", ".a", "a." */
			if (start[i] == '.' && (i == 0 || i + 1 == n || start[i + 1] == '.'))
				return -1;
		memcpy(out->pre, start, n);
		out->pre[n] = '\0';
	}
	if (*p == '+') {
		p++;
		if (!ident_char(*p))
			return -1;
		while (ident_char(*p))
			p++;
	}
	return *p == '\0' ? 0 : -1;
}

/* Pre-release precedence: numeric identifiers compare as numbers and sort
 * before alphanumeric ones; a release sorts after all its pre-releases. */
static int cmp_pre(const char *a, const char *b)
{
	if (!*a || !*b) /* a release (no pre-release) ranks above any pre-release */
		return !*a && !*b ? 0 : (*a ? -1 : 1);
	while (*a && *b) {
		size_t la = strcspn(a, "."), lb = strcspn(b, ".");
		int na = strspn(a, "0123456789") == la, nb = strspn(b, "0123456789") == lb;
		int c;
		if (na && nb)
			c = la != lb ? (la < lb ? -1 : 1) : strncmp(a, b, la);
		else if (na != nb)
			c = na ? -1 : 1;
		else {
			c = strncmp(a, b, la < lb ? la : lb);
			if (c == 0 && la != lb)
				c = la < lb ? -1 : 1;
		}
		if (c)
			return c < 0 ? -1 : 1;
		a += la + (a[la] == '.');
		b += lb + (b[lb] == '.');
	}
	return (*a != '\0') - (*b != '\0');
}

int bv_semver_cmp(const bv_semver *a, const bv_semver *b)
{
	if (a->major != b->major)
		return a->major < b->major ? -1 : 1;
	if (a->minor != b->minor)
		return a->minor < b->minor ? -1 : 1;
	if (a->patch != b->patch)
		return a->patch < b->patch ? -1 : 1;
	return cmp_pre(a->pre, b->pre);
}

/* A partial version: "1", "1.2", "1.2.x", "1.2.3", "1.2.3-rc.1". */
typedef struct partial {
	bv_semver v;
	int parts; /* how many of major/minor/patch were given */
} partial;

static int parse_partial(const char *s, size_t len, partial *out)
{
	char buf[128];
	if (len == 0 || len >= sizeof(buf))
		return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	memset(out, 0, sizeof(*out));
	if (bv_semver_parse(buf, &out->v) == 0) {
		out->parts = 3;
		return 0;
	}
	unsigned long *fields[3] = {&out->v.major, &out->v.minor, &out->v.patch};
	const char *p = buf;
	for (int i = 0; i < 3; i++) {
		if (*p == 'x' || *p == 'X' || *p == '*') {
			p++;
			if (*p != '\0' && *p != '.')
				return -1;
			break;
		}
		p = number(p, fields[i]);
		if (!p)
			return -1;
		out->parts = i + 1;
		if (*p == '\0')
			return 0;
		if (*p++ != '.' || i == 2)
			return -1;
	}
	/* after a wildcard only more wildcards may follow */
	while (*p == '.' || *p == 'x' || *p == 'X' || *p == '*')
		p++;
	return *p == '\0' ? 0 : -1;
}

/* The first version above a partial's range: 1.2 -> 1.3.0, 1 -> 2.0.0. */
static bv_semver bump(const partial *p, int part)
{
	bv_semver v = {0};
	v.major = p->v.major;
	if (part == 0)
		v.major++;
	else if (part == 1)
		v.minor = p->v.minor + 1;
	else
		v.minor = p->v.minor, v.patch = p->v.patch + 1;
	return v;
}

static int comparator(const bv_semver *v, const char *tok, size_t len, char *err, size_t errlen)
{
	char op[3] = "";
	size_t k = 0;
	while (k < len && k < 2 && strchr("<>=^~", tok[k]))
		op[k] = tok[k], k++;
	op[k] = '\0';
	partial p;
	if (parse_partial(tok + k, len - k, &p) != 0) {
		snprintf(err, errlen, "bad version '%.*s' in range", (int)(len - k), tok + k);
		return -1;
	}
	if (p.parts == 0) /* "*" or "x": anything */
		return 1;
	int c = bv_semver_cmp(v, &p.v);
	bv_semver hi;
	if (strcmp(op, "") == 0 || strcmp(op, "=") == 0) {
		if (p.parts == 3)
			return c == 0;
		hi = bump(&p, p.parts - 1);
		return c >= 0 && bv_semver_cmp(v, &hi) < 0;
	}
	if (strcmp(op, ">=") == 0)
		return c >= 0;
	if (strcmp(op, ">") == 0) {
		if (p.parts < 3) {
			hi = bump(&p, p.parts - 1);
			return bv_semver_cmp(v, &hi) >= 0;
		}
		return c > 0;
	}
	if (strcmp(op, "<") == 0)
		return c < 0;
	if (strcmp(op, "<=") == 0) {
		if (p.parts < 3) {
			hi = bump(&p, p.parts - 1);
			return bv_semver_cmp(v, &hi) < 0;
		}
		return c <= 0;
	}
	if (strcmp(op, "~") == 0) { /* same minor (or same major if only X given) */
		hi = bump(&p, p.parts >= 2 ? 1 : 0);
		return c >= 0 && bv_semver_cmp(v, &hi) < 0;
	}
	if (strcmp(op, "^") == 0) { /* no change in the left-most non-zero part */
		int part = 2;
		if (p.v.major > 0 || p.parts == 1)
			part = 0;
		else if (p.v.minor > 0 || p.parts == 2)
			part = 1;
		hi = bump(&p, part);
		return c >= 0 && bv_semver_cmp(v, &hi) < 0;
	}
	snprintf(err, errlen, "unknown operator '%s' in range", op);
	return -1;
}

int bv_semver_satisfies(const bv_semver *v, const char *range, char *err, size_t errlen)
{
	if (!range || !*range) {
		snprintf(err, errlen, "empty range");
		return -1;
	}
	const char *p = range;
	int any = 0;
	while (1) {
		const char *bar = strstr(p, "||");
		const char *end = bar ? bar : p + strlen(p);
		int all = 1, count = 0;
		while (p < end) {
			while (p < end && *p == ' ')
				p++;
			const char *tok = p;
			while (p < end && *p != ' ')
				p++;
			if (p > tok) {
				int r = comparator(v, tok, (size_t)(p - tok), err, errlen);
				if (r < 0)
					return -1;
				all &= r;
				count++;
			}
		}
		if (count == 0) {
			snprintf(err, errlen, "empty alternative in range '%s'", range);
			return -1;
		}
		any |= all;
		if (!bar)
			return any;
		p = bar + 2;
	}
}
