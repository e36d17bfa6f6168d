/*
 * classes.c - machine classes (classes.h): the class key of a log and the
 * grouping of logs by it; compare's merge that keeps classes apart is
 * merge.c's (bv_merge_classes).
 *
 * Why never pool: a ratio is paired inside one process on one machine; the
 * same two versions on an AVX2-only host and on an AVX-512 host can differ
 * in opposite directions (a kernel that gained an AVX-512 path), so one
 * ratio "over both" describes neither machine.  Each class is merged on its
 * own, with its own baseline and its own false-discovery control, and only
 * then set beside the others.
 *
 * The key is the machine fields that decide speed: machine.cpu, the ISA
 * level (machine.calibration.isa, else the baseline's version.simd_isa
 * when no --simd-isa forced it) and machine.gpu.  The host name is not in
 * it: two CI runners of one type are one class.  The name is what a person
 * reads (machine.class, from BENCH_VERSIONS_CLASS at run time, else derived
 * from the key), so two keys under one name are refused, never merged.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "classes.h"
#include "json.h"
#include "results.h"

int bv_class_name_ok(const char *name)
{
	size_t n = name ? strlen(name) : 0;
	if (n == 0 || n > BV_CLASS_NAME_MAX || name[0] == '.' || name[0] == '-')
		return 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)name[i];
		if (!isalnum(ch) && ch != '.' && ch != '_' && ch != '-' && ch != '+')
			return 0;
	}
	return 1;
}

/* Words that name a maker or say nothing about which part it is. */
static int filler_word(const char *w, size_t n)
{
	static const char *const fill[] = {"AMD",          "Intel",        "NVIDIA", "Genuine",
	                                   "GenuineIntel", "AuthenticAMD", "CPU",    "Processor",
	                                   "Corporation",  "Tesla",        NULL};
	for (const char *const *f = fill; *f; f++)
		if (strlen(*f) == n && !strncasecmp(w, *f, n))
			return 1;
	return 0;
}

/* Appends to buf (of len) the word w[0..n) with "(R)", "(TM)" and every
 * character a name may not hold dropped; returns how many were added. */
static size_t put_word(char *buf, size_t len, const char *w, size_t n)
{
	size_t at = strlen(buf), added = 0;
	for (size_t i = 0; i < n && at + 1 < len; i++) {
		if (w[i] == '(') { /* (R), (TM) */
			const char *close = memchr(w + i, ')', n - i);
			if (close) {
				i = (size_t)(close - w);
				continue;
			}
		}
		unsigned char ch = (unsigned char)w[i];
		if (isalnum(ch) || ch == '.' || ch == '_' || ch == '+')
			buf[at++] = (char)ch, added++;
	}
	buf[at] = '\0';
	return added;
}

/* The brand word and the first word with a digit after it ("EPYC-7763",
 * "Xeon-8375C", "H100"), stopping at '@' (a clock speed is not a part). */
static void short_model(const char *model, char *buf, size_t len)
{
	int brand = 0, number = 0;
	for (const char *p = model; *p && *p != '@' && !(brand && number);) {
		p += strspn(p, " \t,");
		size_t n = strcspn(p, " \t,@");
		if (n == 0)
			break;
		int digit = 0;
		for (size_t i = 0; i < n; i++)
			digit |= isdigit((unsigned char)p[i]) != 0;
		char word[64] = "";
		size_t wlen = n < sizeof(word) - 1 ? n : sizeof(word) - 1;
		memcpy(word, p, wlen), word[wlen] = '\0';
		/* "Intel(R)": the maker, with its mark */
		size_t bare = strcspn(word, "(");
		if (!filler_word(word, bare) && !(brand && !digit) && !strstr(word, "-Core")) {
			size_t at = strlen(buf);
			if (at && at + 1 < len)
				strcat(buf, "-");
			if (put_word(buf, len, p, n) == 0)
				buf[at] = '\0';
			else if (digit)
				number = brand = 1;
			else
				brand = 1;
		}
		p += n;
	}
}

char *bv_class_derive_name(const char *cpu, const char *isa, const char *gpu)
{
	char name[BV_CLASS_NAME_MAX + 1] = "";
	/* "avx512f" -> "avx512", "avx2+fma" -> "avx2": the level, not its extras */
	size_t n = 0;
	while (isa && (isalnum((unsigned char)isa[n])) && n < 16)
		n++;
	if (n && (isa[n - 1] == 'f' || isa[n - 1] == 'F') && n > 1 && isdigit((unsigned char)isa[n - 2]))
		n--;
	put_word(name, sizeof(name), n ? isa : "isa", n ? n : 3);
	char model[BV_CLASS_NAME_MAX + 1] = "";
	short_model(cpu ? cpu : "", model, sizeof(model));
	if (*model && strlen(name) + 1 + strlen(model) <= BV_CLASS_NAME_MAX)
		strcat(name, "-"), strcat(name, model);
	char g[BV_CLASS_NAME_MAX + 1] = "";
	if (gpu && *gpu)
		short_model(gpu, g, sizeof(g));
	if (*g && strlen(name) + 1 + strlen(g) <= BV_CLASS_NAME_MAX)
		strcat(name, "-"), strcat(name, g);
	return bv_strdup(name);
}

static char *str_or_empty(const char *s)
{
	return bv_strdup(s ? s : "");
}

int bv_class_of(const cJSON *doc, const char *path, bv_class *out)
{
	memset(out, 0, sizeof(*out));
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(doc, "machine");
	const cJSON *ver = cJSON_GetObjectItemCaseSensitive(doc, "version");
	const cJSON *method = cJSON_GetObjectItemCaseSensitive(doc, "method");
	const char *isa = bv_json_str(cJSON_GetObjectItemCaseSensitive(m, "calibration"), "isa");
	/* Without a calibration (a --quick run), what the simd backend chose
	 * for this CPU says the level too, unless --simd-isa chose for it. */
	if (!isa && !bv_json_str(method, "simd_isa_forced"))
		isa = bv_json_str(ver, "simd_isa");
	const cJSON *named = cJSON_GetObjectItemCaseSensitive(m, "class");
	if (named && !cJSON_IsNull(named) && !(cJSON_IsString(named) && bv_class_name_ok(named->valuestring)))
		return bv_fail(
		    BV_EINPUT,
		    "%s: machine.class is not a class name (1-%d of letters, digits, '.', '_', '-', '+')",
		    path, BV_CLASS_NAME_MAX);
	out->cpu = str_or_empty(bv_json_str(m, "cpu"));
	out->isa = str_or_empty(isa);
	out->gpu = str_or_empty(bv_json_str(m, "gpu"));
	out->named = cJSON_IsString(named);
	out->name =
	    out->named ? bv_strdup(named->valuestring) : bv_class_derive_name(out->cpu, out->isa, out->gpu);
	return 0;
}

int bv_class_same(const bv_class *a, const bv_class *b)
{
	return !strcmp(a->cpu, b->cpu) && !strcmp(a->isa, b->isa) && !strcmp(a->gpu, b->gpu);
}

void bv_class_free(bv_class *c)
{
	free(c->name), free(c->cpu), free(c->isa), free(c->gpu);
	memset(c, 0, sizeof(*c));
}

static char *class_desc(const bv_class *c)
{
	/* all three are the log's text: escaped before they reach a terminal */
	char *cpu = bv_escape(*c->cpu ? c->cpu : "unknown"), *gpu = bv_escape(c->gpu);
	char *isa = bv_escape(*c->isa ? c->isa : "unknown");
	char *d = bv_asprintf("cpu '%s', isa %s, gpu %s", cpu, isa, *gpu ? gpu : "none");
	free(cpu), free(gpu), free(isa);
	return d;
}

int bv_class_groups_add(bv_class_groups *g, bv_class *c, const char *path, const char *first_path)
{
	size_t k = 0;
	while (k < g->nclasses && !bv_class_same(&g->classes[k], c))
		k++;
	if (k == g->nclasses) {
		for (size_t j = 0; j < g->nclasses; j++)
			if (!strcmp(g->classes[j].name, c->name)) {
				char *a = class_desc(&g->classes[j]), *b = class_desc(c);
				int rc = bv_fail(
				    BV_EINPUT,
				    "class name %s names two machine classes: %s (%s) and %s (%s); their "
				    "ratios cannot be pooled: give each machine its own name with %s=NAME "
				    "when it runs",
				    c->name, a, first_path ? first_path : "an earlier log", b, path,
				    BV_CLASS_ENV);
				free(a), free(b);
				bv_class_free(c);
				return rc;
			}
		g->classes = bv_xrealloc(g->classes, (g->nclasses + 1) * sizeof(bv_class));
		g->classes[g->nclasses++] = *c;
	} else if (g->classes[k].named != c->named || strcmp(g->classes[k].name, c->name)) {
		/* One machine kind under two names (one run named, one not): the
		 * key decides; the given name wins over a derived one. */
		if (c->named && !g->classes[k].named) {
			free(g->classes[k].name);
			g->classes[k].name = bv_strdup(c->name), g->classes[k].named = 1;
		}
		bv_class_free(c);
	} else
		bv_class_free(c);
	memset(c, 0, sizeof(*c));
	g->of = bv_xrealloc(g->of, (g->nlogs + 1) * sizeof(size_t));
	g->of[g->nlogs++] = k;
	return 0;
}

int bv_class_groups_read(char *const *paths, size_t n, bv_class_groups *g)
{
	memset(g, 0, sizeof(*g));
	int rc = bv_logs_check_sizes(paths, n);
	for (size_t i = 0; i < n && rc == 0; i++) {
		cJSON *doc = NULL;
		bv_class c;
		rc = bv_log_load(paths[i], &doc);
		if (rc == 0)
			rc = bv_class_of(doc, paths[i], &c);
		cJSON_Delete(doc);
		if (rc)
			break;
		/* the first log of the class whose name this one takes, for the message */
		const char *first = NULL;
		for (size_t j = 0; j < g->nlogs && !first; j++)
			if (!strcmp(g->classes[g->of[j]].name, c.name))
				first = paths[j];
		rc = bv_class_groups_add(g, &c, paths[i], first);
	}
	if (rc)
		bv_class_groups_free(g);
	return rc;
}

void bv_class_groups_free(bv_class_groups *g)
{
	for (size_t k = 0; k < g->nclasses; k++)
		bv_class_free(&g->classes[k]);
	free(g->classes), free(g->of);
	memset(g, 0, sizeof(*g));
}
