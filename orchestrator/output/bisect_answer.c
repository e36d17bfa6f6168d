/*
 * bisect_answer.c - the formats of bisect's answer (--format), one writer
 * each in its own bisect_answer_<name>.c, found by name as export.c finds
 * a table's exporters.  The first is the default.
 */
#include <stddef.h>
#include <string.h>

#include "bisect_answer.h"

static const bv_bisect_answerer answerers[] = {
    {"text", bv_bisect_answer_text},
    {"json", bv_bisect_answer_json},
};
enum { NANSWERERS = sizeof(answerers) / sizeof(answerers[0]) };

const bv_bisect_answerer *bv_bisect_answerer_find(const char *name)
{
	for (size_t i = 0; i < NANSWERERS; i++)
		if (!strcmp(answerers[i].name, name))
			return &answerers[i];
	return NULL;
}

const char *const *bv_bisect_answer_formats(void)
{
	static const char *names[NANSWERERS + 1];
	for (size_t i = 0; i < NANSWERERS; i++)
		names[i] = answerers[i].name;
	return names;
}
