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
	{"trace", cmd_trace,
	 "trace [--target T] FILE [-o OUT]  print a fuzz input (or a trace) as a text trace"},
	{"run", cmd_run,
	 "run [--variant V] [--policy P.so] [--check-every K] [--target T] [--strict-watermarks] "
	 "FILE...\n"
	 "      run traces (text or binary), report violations"},
	{"encode", cmd_encode, "encode TRACE.txt -o OUT  write a text trace's binary form"},
	{"repro", cmd_repro,
	 "repro [--variant V] [--policy P.so] [--target T] [--strict-watermarks] FILE\n"
	 "      [-o trace.txt] [--dump DIR]  print the trace up to the failing op and why;\n"
	 "      exit 1 if it reproduced; --dump: zoneinfo, buddyinfo, pagetypeinfo and\n"
	 "      vmstat at the start, before the failing op and at it"},
	{"minimize", cmd_minimize,
	 "minimize [--variant V] [--policy P.so] [--target T] [--strict-watermarks] FILE\n"
	 "      [-o OUT.txt]  the fewest ops that fail the same way, as a trace; exit 1\n"
	 "      minimized, 0 clean, 3 flaky (the violation did not come back on 10 of 10 runs)"},
	{"variants", cmd_variants,
	 "variants [--markdown]  list the variants and what catches them"},
	{"ops", cmd_ops, "ops                   list the op kinds, each with its line in a trace"},
	{"shape", cmd_shape,
	 "shape --zoneinfo F --cpus N [--cpus-per-node A,B] [--min-free-kbytes K]\n"
	 "      [--watermark-scale-factor W]  the model of a real machine"},
	{"bench", cmd_bench,
	 "bench [--seconds S] [--quick] [--policy P.so] [--json F] [--repeat N]\n"
	 "      print the model's speed figures"},
	{"stress", cmd_stress,
	 "stress [--threads N] [--nodes N] [--duration S] [--variant V] [--pin] [--bench] ...\n"
	 "      real threads, one per simulated CPU (mmfuzz stress --help lists the rest)"},
	{"compare", cmd_compare,
	 "compare A.json B.json  repeated runs' figures side by side (mmtests' layout,\n"
	 "      '*' where Welch's t-test says p < 0.05); A1.json A2.json -- B1.json ...\n"
	 "      pools several files a side"},
	{"explore", cmd_explore,
	 "explore KNOB [--zoneinfo F] [--cpus N] [--probes P] [--ops K] [--seed S]\n"
	 "      [--range LO,HI] [--values V,...] [--json F]  the largest value of a\n"
	 "      policy knob (pressure-threshold, normal-threshold, pcp-batch, pcp-high,\n"
	 "      percpu-batch) that keeps the invariants"},
	{"policy", cmd_policy,
	 "policy build FILE.c [-o FILE.so]  compile a policy plugin for --policy\n"
	 "      (docs/policy-lab.md)"},
	{"fuzz-summary", cmd_fuzz_summary,
	 "fuzz-summary ROWS.tsv --mode M --engine E --seconds S --jobs J [--variant V]\n"
	 "      [--policy P]  ci/fuzz's summary.json from its rows (docs/ci.md)"},
};

int cli_command_help(const char *name)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(name, commands[i].name))
			printf("usage: mmfuzz %s\n", commands[i].help);
	return EXIT_CLEAN;
}

static int usage(FILE *f)
{
	fputs("usage: mmfuzz COMMAND [ARGS]\n", f);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  mmfuzz %s\n", commands[i].help);
	fputs("Exit status: 0 clean, 1 an invariant was violated, 2 bad usage or input\n"
	      "(stress: 3 when its watchdog fired; minimize: 3 when the violation is flaky).\n",
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
