/* options.c - the option parser in bench-versions's error model (see
 * options.h); the parser is harness/common/parse_options.c. */
#include "options.h"

#include "common.h"

/* The parser's message into common.h's model: bv_fail escapes it as it
 * escapes every message, so what a user reads is what it was when the
 * parser called bv_fail itself. */
static int reported(int rc)
{
	return rc < 0 ? bv_fail(BV_EINPUT, "%s", bv_parse_options_error()) : rc;
}

int bv_options_parse(const bv_option *opts, int argc, char **argv, char **pos, size_t *npos)
{
	return reported(bv_parse_options(opts, argc, argv, pos, npos));
}

int bv_option_set(const bv_option *o, const char *value) { return reported(bv_parse_option(o, value)); }

void bv_options_help(const bv_option *opts, FILE *out) { bv_print_options(opts, out); }

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
