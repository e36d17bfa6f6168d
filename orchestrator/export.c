/*
 * export.c - the registry of output formats.  Each format is one file
 * (export_<name>.c) with one write function; adding a format is that file
 * and one line here.
 */
#include <string.h>

#include "stages.h"

int bv_export_table(const bv_table *t, FILE *out);
int bv_export_json(const bv_table *t, FILE *out);

static const bv_exporter exporters[] = {
	{"table", bv_export_table},
	{"json", bv_export_json},
};

const bv_exporter *bv_exporter_find(const char *name)
{
	for (size_t i = 0; i < sizeof(exporters) / sizeof(exporters[0]); i++)
		if (strcmp(exporters[i].name, name) == 0)
			return &exporters[i];
	return NULL;
}

const char *bv_exporter_names(void) { return "table, json"; }
