/*
 * parse_options.h - the table-driven option parser of bench-versions's
 * subcommands and of bv-runner, in the manner of git's parse-options: a
 * program describes its options in a table (name, kind, where the value
 * goes, the range or the allowed values, the help text) and one loop
 * parses the command line against it.  The --help text is printed from the
 * same table, so an option and its help cannot drift apart, and a new
 * option is one line.
 *
 * Every value goes through one checked conversion (numbers.h; as curl's
 * str2num does): strtoll/strtod with the end pointer and errno checked, so
 * an empty value, trailing garbage, a value out of range, NaN or infinity
 * is a usage error naming the option, the value and what was expected,
 * never a silent 0 (`--threshold abc` was a 0 % threshold before this
 * parser, `bv-runner --seed abc` a random seed).
 *
 * Both `--name VALUE` and `--name=VALUE` work; `--` ends the options; an
 * option given twice keeps the last value (a CALLBACK option sees each).
 *
 * In harness/ because bv-runner is built without the orchestrator: plain C
 * and libc, numbers.h and benches.h's bv_closest_name.  An error is -1 with
 * the message kept here (bv_parse_options_error); each program reports it
 * in its own model: bench-versions's options.h puts it into common.h's
 * (BV_EINPUT), bv-runner prints it and exits 2.
 */
#ifndef BV_PARSE_OPTIONS_H
#define BV_PARSE_OPTIONS_H

#include <stddef.h>
#include <stdio.h>


typedef enum bv_opt_kind {
	BV_OPT_END,      /* ends a table */
	BV_OPT_FLAG,     /* int: set to 1; takes no value */
	BV_OPT_INT,      /* int: a whole number in [min, max] */
	BV_OPT_U64,      /* unsigned long long: a whole number in [min, max] (max 0: any) */
	BV_OPT_DOUBLE,   /* double: a finite number in [min, max], stored times scale (0: 1) */
	BV_OPT_SIZE,     /* unsigned long long: bytes, or a number with K, M, G, T (powers of 1024) */
	BV_OPT_DURATION, /* double: seconds, or a number with ms, s, m (min) or h */
	BV_OPT_STRING,   /* const char *: any non-empty text (a pointer into argv) */
	BV_OPT_ENUM,     /* const char *: one of values (a pointer into argv) */
	BV_OPT_REFUSED,  /* no such option on purpose: help is the message; the value is never echoed */
	BV_OPT_INCLUDE,  /* another table (dest), parsed as if its lines were here */
	BV_OPT_CALLBACK, /* call(o, value) takes the value (each time it is given) */
} bv_opt_kind;

struct bv_option;
/* A CALLBACK option's taker: NULL when it took value (into o->dest, as it
 * likes: a list, a checked string), else what was expected, for the message
 * "--name 'VALUE': expected WHAT" ("cell indices separated by commas"). */
typedef const char *bv_option_fn(const struct bv_option *o, const char *value);

typedef struct bv_option {
	const char *name; /* "--timeout" */
	bv_opt_kind kind;
	void *dest;       /* of the type the kind says */
	const char *arg;  /* the value's name in --help: "S", "N", "DIR" */
	const char *help; /* lines after the first are indented under it; NULL: not shown.
			   * INCLUDE: shown instead of the included lines (NULL: those are shown) */
	double min, max;  /* INT, U64, DOUBLE, SIZE, DURATION: the range, in the units given */
	int above_min;    /* DOUBLE: min itself is refused (a number greater than min) */
	double scale;     /* DOUBLE: the value stored is the value given times scale (percent: 0.01) */
	const char *unit; /* DOUBLE: the unit a message names ("percent", "days") */
	const char *const *values; /* ENUM: the allowed values, NULL-terminated */
	bv_option_fn *call;        /* CALLBACK: takes the value */
	const char **seen;         /* when not NULL: the option's name once it is given
				    * (INCLUDE: the first of its options given) */
} bv_option;

/* One line of a table each; what follows the help text (optional) are
 * more fields, e.g. `.seen = &given`. */
#define BV_FLAG(n, d, h, ...)                                                                                \
	{                                                                                                    \
		.name = (n), .kind = BV_OPT_FLAG, .dest = (d), .help = (h), __VA_ARGS__                      \
	}
#define BV_INT(n, d, a, lo, hi, h, ...)                                                                      \
	{                                                                                                    \
		.name = (n), .kind = BV_OPT_INT, .dest = (d), .arg = (a), .min = (lo), .max = (hi),          \
		.help = (h), __VA_ARGS__                                                                     \
	}
#define BV_U64(n, d, a, h, ...)                                                                              \
	{                                                                                                    \
		.name = (n), .kind = BV_OPT_U64, .dest = (d), .arg = (a), .help = (h), __VA_ARGS__           \
	}
#define BV_DOUBLE(n, d, a, lo, hi, u, h, ...)                                                                \
	{                                                                                                    \
		.name = (n), .kind = BV_OPT_DOUBLE, .dest = (d), .arg = (a), .min = (lo), .max = (hi),       \
		.unit = (u), .help = (h), __VA_ARGS__                                                        \
	}
/* A percentage, stored as a fraction (5 -> 0.05). */
#define BV_PERCENT(n, d, a, lo, hi, h, ...)                                                                  \
	{                                                                                                    \
		.name = (n), .kind = BV_OPT_DOUBLE, .dest = (d), .arg = (a), .min = (lo), .max = (hi),       \
		.scale = 0.01, .unit = "percent", .help = (h), __VA_ARGS__                                   \
	}
#define BV_SIZE(n, d, a, lo, hi, h, ...)                                                                     \
	{                                                                                                    \
		.name = (n), .kind = BV_OPT_SIZE, .dest = (d), .arg = (a), .min = (lo), .max = (hi),         \
		.help = (h), __VA_ARGS__                                                                     \
	}
#define BV_DURATION(n, d, a, lo, hi, h, ...)                                                                 \
	{                                                                                                    \
		.name = (n), .kind = BV_OPT_DURATION, .dest = (d), .arg = (a), .min = (lo), .max = (hi),     \
		.help = (h), __VA_ARGS__                                                                     \
	}
#define BV_STRING(n, d, a, h, ...)                                                                           \
	{                                                                                                    \
		.name = (n), .kind = BV_OPT_STRING, .dest = (d), .arg = (a), .help = (h), __VA_ARGS__        \
	}
#define BV_ENUM(n, d, a, v, h, ...)                                                                          \
	{                                                                                                    \
		.name = (n), .kind = BV_OPT_ENUM, .dest = (d), .arg = (a), .values = (v), .help = (h),       \
		__VA_ARGS__                                                                                  \
	}
#define BV_CALLBACK(n, d, a, fn, h, ...)                                                                      \
	{                                                                                                    \
		.name = (n), .kind = BV_OPT_CALLBACK, .dest = (d), .arg = (a), .call = (fn), .help = (h),    \
		__VA_ARGS__                                                                                  \
	}
#define BV_REFUSED(n, why)                                                                                   \
	{                                                                                                    \
		.name = (n), .kind = BV_OPT_REFUSED, .help = (why)                                           \
	}
#define BV_INCLUDE(t, h, ...)                                                                                \
	{                                                                                                    \
		.kind = BV_OPT_INCLUDE, .dest = (void *)(t), .help = (h), __VA_ARGS__                        \
	}
#define BV_END                                                                                               \
	{                                                                                                    \
		.kind = BV_OPT_END                                                                           \
	}

/* Parses argv[1..argc) against opts.  Arguments that are not options (and
 * all after `--`) go to pos in order, argv's own pointers; pos has room for
 * argc.  Returns 0, 1 when --help or -h came first of what was wrong (the
 * caller prints its usage and exits 0), or -1 with the message set
 * (bv_parse_options_error): an unknown option, a missing or bad value.
 * Earlier options may have been stored when it fails. */
int bv_parse_options(const bv_option *opts, int argc, char **argv, char **pos, size_t *npos);

/* Converts one value as the parser does, for the option o: 0, or -1 with
 * the message "--name 'VALUE': expected ...".  value NULL: "--name needs a
 * value". */
int bv_parse_option(const bv_option *o, const char *value);

/* The message of the last -1 (this thread's): "unknown option --quik: did
 * you mean --quick?".  The value quoted in it has its control characters
 * escaped (\xNN); the rest is as given, for the program's error model to
 * escape as it escapes every message (common.c; bv-runner's arguments are
 * bench-versions's own). */
const char *bv_parse_options_error(void);

/* The options' lines of a usage text: "  --name ARG   help", aligned, with
 * --help at the end. */
void bv_print_options(const bv_option *opts, FILE *out);

#endif
