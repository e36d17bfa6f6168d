/*
 * classes.h - machine classes: logs measured on different kinds of machine
 * are never pooled (docs/results-format.md, "Machine classes").
 *
 * A class is what decides a kernel's speed beside its code: the CPU model,
 * the ISA level the machine runs at and the GPU model.  Ratios measured on
 * an AVX-512 host say nothing about an AVX2-only one, so compare and report
 * judge each class on its own and show the classes side by side.
 */
#ifndef BV_CLASSES_H
#define BV_CLASSES_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "common.h"

/* The environment variable whose value run records as machine.class. */
#define BV_CLASS_ENV "BENCH_VERSIONS_CLASS"
#define BV_CLASS_NAME_MAX 48

typedef struct bv_class {
	char *name;            /* machine.class, else derived (bv_class_derive_name) */
	char *cpu, *isa, *gpu; /* as the log says; "" where it says nothing */
	int named;             /* the name was given (machine.class), not derived */
} bv_class;

/* A class name is 1-48 of letters, digits, '.', '_', '-', '+', not starting
 * with '.' or '-': it is printed in headers and used as a directory name. */
int bv_class_name_ok(const char *name);
/* "avx512-EPYC-7763" from cpu "AMD EPYC 7763 64-Core Processor", isa
 * "avx512f", gpu NULL: the ISA's leading word, the CPU's brand and model
 * number, the GPU's model; only name characters.  The caller frees. */
char *bv_class_derive_name(const char *cpu, const char *isa, const char *gpu);
/* The class of a checked log (bv_log_load).  BV_EINPUT naming path when its
 * machine.class is not a valid name. */
int bv_class_of(const cJSON *doc, const char *path, bv_class *out);
/* The same machine class: the key is cpu, isa and gpu, never the name. */
int bv_class_same(const bv_class *a, const bv_class *b);
void bv_class_free(bv_class *c);

/* Logs grouped by class, in the order each class first appears. */
typedef struct bv_class_groups {
	bv_class *classes;
	size_t nclasses;
	size_t *of; /* per log: its class's index */
	size_t nlogs;
} bv_class_groups;
/* Adds the log named path (class c, taken over) to g.  BV_EINPUT when c's
 * name is already another class's (two machines under one name would pool
 * their ratios): the message names both and the logs they came from. */
int bv_class_groups_add(bv_class_groups *g, bv_class *c, const char *path, const char *first_path);
/* Reads each log's class (each loaded, checked and freed in turn). */
int bv_class_groups_read(char *const *paths, size_t n, bv_class_groups *g);
void bv_class_groups_free(bv_class_groups *g);

#endif
