/*
 * options.h - bench-versions's side of the option parser: every subcommand
 * describes its options in a table and parses them with bv_options_parse.
 * The table and the parser are harness/common/parse_options.h, shared with
 * bv-runner; here they report in common.h's error model (BV_EINPUT with the
 * message set; the caller exits 2), and here are the rules every command
 * words alike (what follows a parse, options that exclude or need another).
 */
#ifndef BV_OPTIONS_H
#define BV_OPTIONS_H

#include <stddef.h>
#include <stdio.h>

#include "numbers.h"
#include "parse_options.h"

/* Parses argv[1..argc) against opts (bv_parse_options): 0, 1 when --help
 * or -h came first of what was wrong (the caller prints its usage and
 * exits 0), or BV_EINPUT with the message set: an unknown option, a
 * missing or bad value.  Earlier options may have been stored when it
 * fails. */
int bv_options_parse(const bv_option *opts, int argc, char **argv, char **pos, size_t *npos);

/* Converts one value as the parser does, for the option o: 0, or BV_EINPUT
 * with the message "--name 'VALUE': expected ...".  value NULL: "--name
 * needs a value". */
int bv_option_set(const bv_option *o, const char *value);

/* The options' lines of a usage text: "  --name ARG   help", aligned, with
 * --help at the end (bv_print_options). */
void bv_options_help(const bv_option *opts, FILE *out);

/* A command's usage text: its lines, then bv_options_help(opts, out). */
typedef void bv_usage_fn(FILE *out, const bv_option *opts);

/* What every command does once bv_options_parse (or a check of what it
 * parsed) has returned rc, so that each says it alike:
 *   rc 1 (--help): the usage on stdout; returns 0, the exit code;
 *   rc an error: "WHO: MESSAGE (see bench-versions CMD --help)" on stderr;
 *     returns BV_EXIT_USAGE (2);
 *   rc 0 and missing (what the command cannot do without is not given,
 *     e.g. no VERSION): the usage on stderr; returns BV_EXIT_USAGE;
 *   else -1: the command goes on.
 * who is what the message starts with ("bench-versions compare"; run's is
 * "bench-versions"), cmd the command whose --help is named ("compare"). */
int bv_options_done(int rc, int missing, const char *who, const char *cmd, bv_usage_fn *usage,
		    const bv_option *opts);

/* The rules between options, written once so that every command words
 * them alike; each returns 0, or BV_EINPUT with the message set.
 * a_given, b_given: whether each was given (a flag set, a string not NULL).
 *
 * bv_options_exclusive: a and b together are refused:
 *   "A with B: WHY".
 * bv_options_requires: a is only for use with b:
 *   "A is for B (WHY)", or "A is for B" when why is NULL. */
int bv_options_exclusive(const char *a, int a_given, const char *b, int b_given, const char *why);
int bv_options_requires(const char *a, int a_given, const char *b, int b_given, const char *why);

/* The conversions themselves (bv_parse_int, bv_parse_u64, bv_parse_double,
 * bv_parse_size, bv_parse_duration) are in harness/common/numbers.h, shared with
 * bv-runner. */

#endif
