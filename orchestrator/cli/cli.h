/* cli.h - subcommands; main.c dispatches to one per file (cmd_*.c). */
#ifndef BV_CLI_H
#define BV_CLI_H

int bv_cmd_run(int argc, char **argv);
int bv_cmd_list(int argc, char **argv);
int bv_cmd_compat(int argc, char **argv);
int bv_cmd_cache(int argc, char **argv);
int bv_cmd_compare(int argc, char **argv);
int bv_cmd_bisect(int argc, char **argv);
int bv_cmd_share(int argc, char **argv);
int bv_cmd_publish(int argc, char **argv);
int bv_cmd_report(int argc, char **argv);
int bv_cmd_plan(int argc, char **argv);
int bv_cmd_history(int argc, char **argv);

#endif
