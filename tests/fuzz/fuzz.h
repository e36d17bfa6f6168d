/*
 * fuzz.h - shared by the libFuzzer targets in tests/fuzz/fuzz_<parser>.c.
 *
 * Each target feeds its input to one parser of the orchestrator, the same
 * entry the program uses (a buffer entry where the program reads a file),
 * and checks what must hold for any input: no crash, no sanitizer report, no
 * leak, an error always with a message that holds no terminal control, and
 * target-specific invariants (abort() when one breaks, so libFuzzer records
 * the input).
 *
 * Adding a parser (the budgets JSON of orchestrator/compare/budgets.c is next: a
 * fuzz_budgets.c calling its buffer entry, like fuzz_compat.c): one file
 * tests/fuzz/fuzz_<name>.c and a seed corpus tests/fuzz/corpus/<name>/; the
 * Makefile and tests/fuzz/run.sh pick both up by their names.
 */
#ifndef BV_FUZZ_H
#define BV_FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

/* The input as a NUL-terminated string (libFuzzer's buffer is not). */
static inline char *fuzz_str(const uint8_t *data, size_t size)
{
	char *s = bv_xmalloc(size + 1);
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/* Stops the run with the reason, so the input is kept as a finding. */
#define FUZZ_ASSERT(cond)                                                                               \
	do {                                                                                            \
		if (!(cond)) {                                                                          \
			fprintf(stderr, "fuzz invariant broken: %s (%s:%d)\n", #cond, __FILE__, __LINE__); \
			abort();                                                                        \
		}                                                                                       \
	} while (0)

/* Whether a message is safe for a terminal: no control character but
 * newlines and tabs (bv_fail escapes the rest, whatever the input held). */
static inline int fuzz_printable(const char *s)
{
	for (; *s; s++)
		if (((unsigned char)*s < 0x20 && *s != '\n' && *s != '\t') || *s == 0x7f)
			return 0;
	return 1;
}

/* A failing parser must say why, in words a terminal only shows. */
#define FUZZ_ERROR_SAYS_WHY(rc)                                                         \
	do {                                                                            \
		if (rc) {                                                               \
			FUZZ_ASSERT((rc) == BV_EINPUT || (rc) == BV_ERUN);              \
			FUZZ_ASSERT(bv_error_last() && bv_error_last()[0] != '\0');     \
			FUZZ_ASSERT(fuzz_printable(bv_error_last()));                    \
		}                                                                       \
	} while (0)

/* A scratch directory for the whole fuzzing process, under $BV_FUZZ_TMP
 * when set (tests/fuzz/run.sh makes one per target and removes it after:
 * libFuzzer ends a process without a chance to clean up), else /tmp. */
static inline char *fuzz_tmpdir(const char *what)
{
	const char *base = getenv("BV_FUZZ_TMP");
	char *t = bv_asprintf("%s/bv-fuzz-%s-XXXXXX", base && *base ? base : "/tmp", what);
	if (!mkdtemp(t)) {
		perror("mkdtemp");
		abort();
	}
	return t;
}

static inline void fuzz_write(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");
	if (!f || (len && fwrite(data, 1, len, f) != len) || fclose(f) != 0) {
		perror(path);
		abort();
	}
}

#endif
