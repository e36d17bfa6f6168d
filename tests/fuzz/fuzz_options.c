/* fuzz_options.c - the option parser and its conversions (options.c), as
 * every subcommand uses them.  Input: the arguments, separated by NUL bytes
 * ("--threshold\0abc\0main"); the whole input is also given to each
 * conversion as one value.  Whatever is accepted is in its range, finite,
 * and stored only where the table says; whatever is refused says why, and
 * an unknown option's value (after '=') is never echoed. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "fuzz.h"
#include "options.h"

static const char *const formats[] = {"table", "json", NULL};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_str(data, size);
	/* The conversions alone, on the whole input. */
	long long i;
	unsigned long long u;
	double d;
	if (bv_parse_int(s, -5, 1000, &i) == 0)
		FUZZ_ASSERT(i >= -5 && i <= 1000);
	if (bv_parse_u64(s, 1000000, &u) == 0)
		FUZZ_ASSERT(u <= 1000000);
	if (bv_parse_double(s, 0, 1000, &d) == 0)
		FUZZ_ASSERT(isfinite(d) && d >= 0 && d <= 1000);
	if (bv_parse_size(s, 0, 1e15, &u) == 0)
		FUZZ_ASSERT(u <= 1000000000000000ull);
	if (bv_parse_duration(s, 0.001, 86400, &d) == 0)
		FUZZ_ASSERT(isfinite(d) && d >= 0.001 && d <= 86400);

	/* The arguments: argv[0] is the command, then one per NUL. */
	char *argv[66] = {"cmd"};
	int argc = 1;
	for (char *p = s; argc < 65 && p < s + size; p += strlen(p) + 1)
		argv[argc++] = p;
	argv[argc] = NULL;
	int quick = 0, rounds = 7, inner = 0;
	unsigned long long seed = 0, limit = 0;
	double threshold = -1, timeout = 60;
	const char *results = NULL, *format = NULL, *seen = NULL;
	const bv_option sub[] = {
	    BV_FLAG("--inner", &inner, "an included flag"),
	    BV_END,
	};
	const bv_option opts[] = {
	    BV_FLAG("--quick", &quick, "a flag"),
	    BV_INT("--rounds", &rounds, "N", 1, 100000, "an int"),
	    BV_U64("--seed", &seed, "N", "a u64"),
	    BV_PERCENT("--threshold", &threshold, "P", 0, 1000, "a percentage"),
	    BV_DURATION("--timeout", &timeout, "S", 0.001, 86400, "a duration"),
	    BV_SIZE("--memory-limit", &limit, "SIZE", 0, 1e15, "a size"),
	    BV_STRING("--results", &results, "DIR", "a string"),
	    BV_ENUM("--format", &format, "F", formats, "an enum"),
	    BV_REFUSED("--token", "there is no --token option"),
	    BV_INCLUDE(sub, NULL, .seen = &seen),
	    BV_END,
	};
	char *pos[66];
	size_t npos = 0;
	int rc = bv_options_parse(opts, argc, argv, pos, &npos);
	FUZZ_ASSERT(rc == 0 || rc == 1 || rc == BV_EINPUT);
	if (rc == BV_EINPUT) {
		FUZZ_ERROR_SAYS_WHY(rc);
		/* "unknown option --x", never what followed its '='. */
		if (!strncmp(bv_error_last(), "unknown option ", 15))
			FUZZ_ASSERT(!strchr(bv_error_last(), '='));
		if (!strncmp(bv_error_last(), "there is no --token", 19))
			FUZZ_ASSERT(!strchr(bv_error_last(), '\''));
	}
	FUZZ_ASSERT(npos < (size_t)argc);
	for (size_t k = 0; k < npos; k++)
		FUZZ_ASSERT(pos[k] >= s && pos[k] < s + size + 1);
	/* What was stored, whatever else failed, is in range. */
	FUZZ_ASSERT(quick == 0 || quick == 1);
	FUZZ_ASSERT(inner == 0 || (inner == 1 && seen && !strcmp(seen, "--inner")));
	FUZZ_ASSERT(rounds == 7 || (rounds >= 1 && rounds <= 100000));
	FUZZ_ASSERT(threshold == -1 || (isfinite(threshold) && threshold >= 0 && threshold <= 10));
	FUZZ_ASSERT(isfinite(timeout) && timeout >= 0.001 && timeout <= 86400);
	FUZZ_ASSERT(limit <= 1000000000000000ull);
	FUZZ_ASSERT(!results || results[0] != '\0');
	FUZZ_ASSERT(!format || !strcmp(format, "table") || !strcmp(format, "json"));
	(void)seed;
	free(s);
	return 0;
}
