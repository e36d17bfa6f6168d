/* machine.c - what a results log records about the machine it ran on. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "common.h"
#include "machine.h"

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

cJSON *bv_machine_info(void)
{
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
	cJSON_AddNullToObject(m, "gpu"); /* filled once the cuda backend can report devices */
	return m;
}
