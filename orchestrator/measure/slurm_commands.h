/*
 * slurm_commands.h - within the Slurm driver (slurm.c and its
 * slurm_*.c): running Slurm's client commands (slurm_commands.c).
 * slurm.h is the driver's interface to the rest of the tool.
 */
#ifndef BV_SLURM_COMMANDS_H
#define BV_SLURM_COMMANDS_H

#include <stddef.h>

/* name in $BV_SLURM_BIN, else on PATH: an absolute path (malloc'd), or
 * NULL with the message set. */
char *bv_slurm_find_tool(const char *name);
/* Runs argv with Slurm's environment; *out gets its output (never NULL).
 * Returns the exit status (or a negative BV_E*). */
int bv_slurm_cmd(char *const argv[], char **out);
/* The last line of a command's output that says something, escaped. */
char *bv_slurm_last_words(const char *out);
/* Runs argv with Slurm's environment in a process group of its own and
 * untracked (sbatch, scancel); *out gets its output (never NULL). */
int bv_slurm_run_apart(char *const argv[], char **out);
/* scancel of the given jobs, apart (bv_slurm_run_apart): it runs after the signal. */
void bv_slurm_cancel_jobs(const char *scancel, const unsigned long long *jobs, size_t n);

#endif
