/* numbers.c - checked conversions of numbers given as text (numbers.h). */
#include "numbers.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A value starts with its number: strtol and strtod would skip leading
 * space and take "-1" for an unsigned, so both are refused here first. */
static int starts_like_a_number(const char *s, int sign_ok)
{
	return s &&
	       (isdigit((unsigned char)s[0]) || s[0] == '.' || (sign_ok && (s[0] == '-' || s[0] == '+')));
}

int bv_parse_int(const char *s, long long min, long long max, long long *out)
{
	if (!starts_like_a_number(s, 1) || s[0] == '.')
		return -1;
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

int bv_parse_u64(const char *s, unsigned long long max, unsigned long long *out)
{
	if (!starts_like_a_number(s, 0) || s[0] == '.')
		return -1;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || end == s || *end || v > max)
		return -1;
	*out = v;
	return 0;
}

/* The number at the start of s, finite; *rest gets what follows it. */
static int leading_double(const char *s, double *v, const char **rest)
{
	if (!starts_like_a_number(s, 1))
		return -1;
	char *end;
	errno = 0;
	double d = strtod(s, &end);
	/* ERANGE: an overflow (HUGE_VAL) or an underflow (1e-999): neither is
	 * what was meant.  strtod takes "nan" and "inf", which a digit first
	 * rules out, but "1e999" is inf too. */
	if (errno || end == s || !isfinite(d))
		return -1;
	*v = d;
	*rest = end;
	return 0;
}

int bv_parse_double(const char *s, double min, double max, double *out)
{
	double v;
	const char *rest;
	if (leading_double(s, &v, &rest) || *rest || !(v >= min && v <= max))
		return -1;
	*out = v;
	return 0;
}

int bv_parse_size(const char *s, double min, double max, unsigned long long *out)
{
	double v, mul = 1;
	const char *rest;
	if (leading_double(s, &v, &rest) || v < 0)
		return -1;
	switch (*rest) {
	case 'k':
	case 'K': mul = 1024.0, rest++; break;
	case 'm':
	case 'M': mul = 1024.0 * 1024, rest++; break;
	case 'g':
	case 'G': mul = 1024.0 * 1024 * 1024, rest++; break;
	case 't':
	case 'T': mul = 1024.0 * 1024 * 1024 * 1024, rest++; break;
	default: break;
	}
	/* "2G", "2GB", "2GiB" and "512B" all say bytes; nothing else may follow. */
	if (mul > 1 && (!strcasecmp(rest, "iB") || !strcasecmp(rest, "B")))
		rest += strlen(rest);
	else if (mul == 1 && !strcasecmp(rest, "B"))
		rest++;
	double bytes = floor(v * mul);
	/* 2^64 is the first double past what an unsigned long long holds. */
	if (*rest || !(bytes >= min && bytes <= max) || bytes >= 18446744073709551616.0)
		return -1;
	*out = (unsigned long long)bytes;
	return 0;
}

int bv_parse_duration(const char *s, double min, double max, double *out)
{
	static const struct {
		const char *unit;
		double seconds;
	} units[] = {{"", 1}, {"s", 1}, {"ms", 1e-3}, {"m", 60}, {"min", 60}, {"h", 3600}};
	double v;
	const char *rest;
	if (leading_double(s, &v, &rest))
		return -1;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(rest, units[i].unit)) {
			double sec = v * units[i].seconds;
			if (!(sec >= min && sec <= max))
				return -1;
			*out = sec;
			return 0;
		}
	return -1;
}
