/* machine.c - what a results log records about the machine it ran on, and
 * the machine's calibration (its peaks), cached once per machine. */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "env.h"
#include "fs.h"
#include "json.h"
#include "machine.h"
#include "classes.h"
#include "proc.h"

/* First line of a small file, trimmed, or NULL. */
static char *first_line(const char *path)
{
	char *text = NULL;
	if (bv_read_file(path, 1 << 16, &text, NULL) != 0)
		return NULL;
	text[strcspn(text, "\n")] = '\0';
	return text;
}

static char *cpu_model(void)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512];
	char *model = NULL;
	while (f && !model && fgets(line, sizeof(line), f)) {
		if (strncmp(line, "model name", 10) == 0) {
			char *colon = strchr(line, ':');
			if (colon) {
				colon += 1 + (colon[1] == ' ');
				colon[strcspn(colon, "\n")] = '\0';
				model = bv_strdup(colon);
			}
		}
	}
	if (f)
		fclose(f);
	return model ? model : bv_strdup("unknown");
}

/* The first NVIDIA GPU's model as its driver reports it, or NULL: read from
 * /proc so that recording it needs neither a device nor the CUDA runtime. */
static char *gpu_model(void)
{
	DIR *d = opendir("/proc/driver/nvidia/gpus");
	struct dirent *e;
	char *model = NULL;
	while (d && !model && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char *path = bv_asprintf("/proc/driver/nvidia/gpus/%s/information", e->d_name), *text = NULL;
		if (bv_read_file(path, 1 << 16, &text, NULL) == 0) {
			char *line = strstr(text, "Model:");
			if (line) {
				line += 6;
				line += strspn(line, " \t");
				model = bv_asprintf("%.*s", (int)strcspn(line, "\n"), line);
			}
		}
		free(text);
		free(path);
	}
	if (d)
		closedir(d);
	return model;
}

cJSON *bv_machine_info(void)
{
	/* What it cannot read (no cpufreq on a VM, no pkg-config) is null in
	 * the document, never an error: the last error stays the caller's (a
	 * failed run's, reported after its logs take this document; a refused
	 * --resume read "cannot open .../scaling_governor"). */
	char *kept = bv_strdup(bv_error_last());
	cJSON *m = cJSON_CreateObject();
	struct utsname u;
	char host[256] = "unknown";
	gethostname(host, sizeof(host) - 1);
	cJSON_AddStringToObject(m, "hostname", host);
	char *cpu = cpu_model();
	cJSON_AddStringToObject(m, "cpu", cpu);
	free(cpu);
	cJSON_AddNumberToObject(m, "cores", (double)sysconf(_SC_NPROCESSORS_ONLN));
	char *gov = first_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
	if (gov)
		cJSON_AddStringToObject(m, "governor", gov);
	else
		cJSON_AddNullToObject(m, "governor");
	free(gov);
	if (uname(&u) == 0) {
		char *os = bv_asprintf("%s %s %s", u.sysname, u.release, u.machine);
		cJSON_AddStringToObject(m, "os", os);
		free(os);
	}
	const char *cc = getenv("CC") && *getenv("CC") ? getenv("CC") : "cc";
	char *argv[] = {(char *)cc, "--version", NULL}, *version = NULL;
	if (bv_run_capture(argv, 4096, &version) == 0) {
		version[strcspn(version, "\n")] = '\0';
		cJSON_AddStringToObject(m, "compiler", version);
	} else
		cJSON_AddNullToObject(m, "compiler");
	free(version);
	/* The OpenBLAS a blas backend would link, as the package says. */
	char *pc[] = {"pkg-config", "--modversion", "openblas", NULL}, *blas = NULL;
	if (bv_run_capture(pc, 256, &blas) == 0 && *blas) {
		blas[strcspn(blas, "\n")] = '\0';
		cJSON_AddStringToObject(m, "openblas", blas);
	} else
		cJSON_AddNullToObject(m, "openblas");
	free(blas);
	/* A name for this machine's class (classes.h), when its owner gave one:
	 * compare and report show the classes of several machines side by side
	 * under it.  A name that could not be shown or used as a directory is
	 * left out, said once, rather than written into every log. */
	const char *cls = getenv(BV_CLASS_ENV);
	if (cls && *cls && bv_class_name_ok(cls))
		cJSON_AddStringToObject(m, "class", cls);
	else if (cls && *cls)
		fprintf(stderr, "bench-versions: %s is not a class name (1-%d of letters, digits, '.', '_', '-', '+'); "
				"not recorded\n",
			BV_CLASS_ENV, BV_CLASS_NAME_MAX);
	char *gpu = gpu_model();
	if (gpu)
		cJSON_AddStringToObject(m, "gpu", gpu);
	else
		cJSON_AddNullToObject(m, "gpu");
	free(gpu);
	bv_fail(0, "%s", kept);
	free(kept);
	return m;
}

/* A file name for this machine: its CPU, core count and host name. */
static char *machine_key(void)
{
	char host[256] = "unknown";
	gethostname(host, sizeof(host) - 1);
	char *cpu = cpu_model();
	/* "3": the calibration method's version; a better method measures again
	 * (3: each chunk's best of many passes, 2026-11-24). */
	char *key = bv_asprintf("3-%s-%ld-%s", cpu, sysconf(_SC_NPROCESSORS_ONLN), host);
	free(cpu);
	for (char *p = key; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '.' ||
		      *p == '-'))
			*p = '_';
	if (strlen(key) > 150)
		key[150] = '\0';
	return key;
}

/* The 1-minute load average, or -1. */
static double load_now(void)
{
	char *line = first_line("/proc/loadavg");
	double l = -1;
	if (line && sscanf(line, "%lf", &l) != 1)
		l = -1;
	free(line);
	return l;
}

int bv_calibration_stale(const cJSON *cal, time_t now, double load, long cpus, char *why, size_t len)
{
	double copy, read, flops, at, was;
	if (bv_json_num(cal, "copy_gbps", &copy) || bv_json_num(cal, "read_gbps", &read) ||
	    bv_json_num(cal, "peak_gflops", &flops) || !(copy > 0.01 && copy < 1e5) || !(read > 0.01 && read < 1e5) ||
	    !(flops > 0.01 && flops < 1e7)) {
		snprintf(why, len, "the stored one is unreadable");
		return 1;
	}
	if (bv_json_num(cal, "measured_at", &at) || !(at > 0)) {
		snprintf(why, len, "the stored one does not say when or at what load it was taken");
		return 1;
	}
	/* In doubles: a hostile file's 1e300 does not fit a time_t (a cast
	 * would be undefined), and is simply far in the future. */
	double age = (double)now - at;
	if (age > BV_CALIBRATION_MAX_AGE_S || age < -3600) {
		snprintf(why, len, "the stored one is %.0f days old", age / 86400);
		return 1;
	}
	/* Taken while other work held every core, and the machine is far
	 * quieter now: its figures are likely low (the issue's `939% of copy
	 * bw` came from one taken on a loaded machine). */
	int known = !bv_json_num(cal, "load_average", &was);
	if (known && cpus > 0 && was >= (double)cpus && load >= 0 && load < was / 2) {
		snprintf(why, len, "the stored one was taken at load %.1f on %ld CPUs, and the load is %.1f now", was, cpus,
			 load);
		return 1;
	}
	/* Taken at a load nobody could read (null): it may have been a busy
	 * machine's, so not kept as a quiet one's is, once the load can be
	 * read.  While it cannot, measuring again would not know better. */
	if (!known && load >= 0) {
		snprintf(why, len, "the stored one does not say at what load it was taken");
		return 1;
	}
	return 0;
}

void bv_calibration_stamp(cJSON *cal, time_t now, double load, long cpus)
{
	cJSON_AddNumberToObject(cal, "measured_at", (double)now);
	/* An unknown load (no /proc/loadavg) is null: a 0 would read as a
	 * quiet machine's, and the calibration would be kept for good. */
	if (load >= 0)
		cJSON_AddNumberToObject(cal, "load_average", round(load * 100) / 100);
	else
		cJSON_AddNullToObject(cal, "load_average");
	cJSON_AddNumberToObject(cal, "cpus", (double)cpus);
}

int bv_machine_calibration(int force, const char *reason, cJSON **out)
{
	*out = NULL;
	char *key = machine_key();
	char *dir = bv_asprintf("%s/machine", bv_cache_dir());
	char *path = bv_asprintf("%s/%s.json", dir, key);
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	double load = load_now();
	char why[256] = "once";
	int rc = 0;
	if (force)
		snprintf(why, sizeof(why), "%s", reason ? reason : "--recalibrate");
	else if (bv_exists(path) && bv_json_load(path, 1 << 20, out) == 0) {
		if (!bv_calibration_stale(*out, time(NULL), load, cpus, why, sizeof(why)))
			goto done;
		cJSON_Delete(*out);
		*out = NULL;
	}
	fprintf(stderr, "calibrate: measuring this machine's bandwidth and peak FLOP rate (%s)\n", why);
	if (cpus > 0 && load >= (double)cpus)
		fprintf(stderr, "calibrate: the machine is busy (load %.1f on %ld CPUs): the figures may come out low; "
				"they are measured again once it is quieter (or with --recalibrate)\n",
			load, cpus);
	rc = bv_mkdir_p(dir);
	char *tmp = rc == 0 ? bv_mkdtemp_in(dir, ".tmp-") : NULL;
	char *file = tmp ? bv_asprintf("%s/calibration.json", tmp) : NULL;
	if (rc == 0 && !tmp)
		rc = bv_fail(BV_ERUN, "cannot create a temporary directory in %s", dir);
	if (rc == 0) {
		char *runner = bv_asprintf("%s/bv-runner", bv_libexec());
		char *argv[] = {runner, "--calibrate", "--out", file, NULL};
		int st = bv_run(argv, NULL, NULL, BV_ENV_RUNNER);
		free(runner);
		if (st != 0)
			rc = st < 0 ? st : bv_fail(BV_ERUN, "bv-runner --calibrate exited with status %d", st);
	}
	if (rc == 0)
		rc = bv_json_load(file, 1 << 20, out);
	if (rc == 0) {
		/* When and at what load: what decides whether it is taken again. */
		bv_calibration_stamp(*out, time(NULL), load, cpus);
		rc = bv_json_save(file, *out);
	}
	if (rc == 0 && rename(file, path) != 0) /* atomic: never half a file */
		rc = bv_fail(BV_ERUN, "cannot store %s", path);
	if (rc) {
		cJSON_Delete(*out);
		*out = NULL;
	}
	if (tmp)
		bv_rm_rf(tmp);
	free(tmp);
	free(file);
done:
	free(key), free(dir), free(path);
	return rc;
}
