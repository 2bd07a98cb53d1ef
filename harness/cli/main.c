/* SPDX-License-Identifier: MIT */
/*
 * main.c - the mmfuzz command: one binary, a subcommand per job.
 */
#include "cli.h"

#include <stdio.h>
#include <string.h>

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
} commands[] = {
	{"trace", cmd_trace, "trace FILE            print a fuzz input as a text trace"},
	{"run", cmd_run,
	 "run [--variant V] [--target T] [--strict-watermarks] FILE...  run traces (text or "
	 "binary), report violations"},
	{"encode", cmd_encode, "encode TRACE.txt -o OUT  write a text trace's binary form"},
	{"repro", cmd_repro,
	 "repro [--variant V] [--target T] [--strict-watermarks] FILE  print the trace up to the "
	 "failing op and why"},
	{"variants", cmd_variants,
	 "variants              list the bug switches and who catches them"},
	{"shape", cmd_shape, "shape --zoneinfo F --cpus N ...  the model of a real machine"},
	{"bench", cmd_bench, "bench                 print the model's speed figures"},
	{"stress", cmd_stress,
	 "stress [--threads N] [--duration S] ...  real threads, one per simulated CPU "
	 "(--help)"},
};

static int usage(FILE *f)
{
	fputs("usage: mmfuzz COMMAND [ARGS]\n", f);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  mmfuzz %s\n", commands[i].help);
	fputs("Exit status: 0 clean, 1 an invariant was violated, 2 bad usage or input\n"
	      "(stress: 3 when its watchdog fired).\n",
	      f);
	return f == stdout ? EXIT_CLEAN : EXIT_USAGE;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage(stderr);
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help"))
		return usage(stdout);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name)) {
			int ret = commands[i].fn(argc - 1, argv + 1);
			/* Before LeakSanitizer's exit-time report can cut stdio short. */
			fflush(stdout);
			return ret;
		}
	return cli_usage_error("unknown command '%s' (try 'mmfuzz --help')", argv[1]);
}
