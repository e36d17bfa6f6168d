/*
 * numbers.h - the checked conversions of a number given as text, shared by
 * bench-versions's option parser (orchestrator/cli/options.c) and bv-runner's
 * own options (runner.c), so neither ever takes "abc" for 0 as atoi does.
 *
 * Each is strtoll/strtoull/strtod with the end pointer and errno checked
 * (as curl's str2num does): an empty value, a leading space or sign where
 * none belongs, trailing garbage, a value out of range, NaN or infinity is
 * -1, and *out is untouched; else 0.  The strings are whole values: nothing
 * after the number but the unit a kind allows.
 *
 * Plain C and libc only: harness/ never includes orchestrator/ headers.
 */
#ifndef BV_NUMBERS_H
#define BV_NUMBERS_H

int bv_parse_int(const char *s, long long min, long long max, long long *out);
int bv_parse_u64(const char *s, unsigned long long max, unsigned long long *out);
int bv_parse_double(const char *s, double min, double max, double *out);
/* "512", "64K", "1.5G", "2GiB", "8gb": bytes, rounded down. */
int bv_parse_size(const char *s, double min, double max, unsigned long long *out);
/* "90", "90s", "1.5m", "1min", "2h", "250ms": seconds. */
int bv_parse_duration(const char *s, double min, double max, double *out);

#endif
