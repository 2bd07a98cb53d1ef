/* SPDX-License-Identifier: MIT */
/*
 * cli.h - shared plumbing of the mmfuzz subcommands: reading inputs (text
 * traces or binary fuzz inputs), the --variant flag, and the exit codes
 * every subcommand keeps: 0 clean, 1 a violation, 2 bad usage or input.
 */
#ifndef MMFUZZ_CLI_H
#define MMFUZZ_CLI_H

#include "mmcore.h"

#define EXIT_CLEAN     0
#define EXIT_VIOLATION 1
#define EXIT_USAGE     2
#define EXIT_FLAKY     3 /* minimize: the violation did not come back on every run */

/* Reads a whole file, NUL-terminated past len; on failure prints one line and returns NULL. */
uint8_t *cli_read_file(const char *path, size_t *len);
/* True if the bytes are a text trace (all printable) rather than a fuzz input. */
bool cli_is_text(const uint8_t *data, size_t len);
/*
 * The flag and number parsers of every command. cli_flag_value: the value
 * of "--name V" or "--name=V" at argv[*i] (advancing *i past it), NULL
 * when argv[*i] is another flag or, with *missing set, lacks its value.
 * Numbers are decimal only, so "010" is 10 and "0x10", "-1", " 7" and
 * "+7" are refused; seconds may have a fraction ("0.5").
 */
const char *cli_flag_value(int argc, char **argv, int *i, const char *name, bool *missing);
bool cli_parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *v);
bool cli_parse_uint(const char *s, unsigned int lo, unsigned int hi, unsigned int *v);
bool cli_parse_seconds(const char *s, double lo, double hi, double *v);
/*
 * A comma-separated list of such numbers, each in [lo, hi], into v: the
 * count; 0 when the list or an entry is empty or bad ("4,,4" included);
 * -1 when it has more than max entries.
 */
int cli_parse_list(const char *s, uint64_t lo, uint64_t hi, uint64_t *v, unsigned int max);
/*
 * Loads a program from a text trace or a binary input. A binary input
 * decodes with the machine shape of its fuzz target: target, else the
 * fuzz_<x> directory it sits in (fuzz-out/crashes/fuzz_x/...), else the
 * defaults; *used (if not NULL) names the shape used. On failure prints
 * "PATH: reason" (with the line number for text) and returns -1.
 */
int cli_load_prog(const char *path, const char *target, struct mm_prog *p, const char **used);
/* Resolves --variant NAME or MMFUZZ_VARIANT; MM_VARIANT_UNKNOWN after a message if unknown. */
int cli_variant(const char *flag_value);
/*
 * Loads --policy FILE.so or $MMFUZZ_POLICY (docs/policy-lab.md) and names
 * the hooks it defines on stderr; EXIT_USAGE after one line if it cannot.
 */
int cli_policy(const char *flag_value);
/* CLOCK_MONOTONIC in seconds: what the bench and the stress tool time with. */
double cli_now(void);
/* Prints a one-line error and returns EXIT_USAGE. */
int cli_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Opens PATH for writing only if it does not exist yet: results are never overwritten. */
FILE *cli_create_new(const char *path);

/*
 * A violation's signature, what crashes are deduplicated by: the invariant
 * and the kind of op it was found during ("final-check" for the full scan
 * at the end). cli_signature() runs p with o's settings and fills sig from
 * the first violation: returns 1, 0 when p runs clean, -1 when the machine
 * cannot be built.
 */
struct cli_signature {
	char id[48];
	char op[32];
	long failed_op;
};
int cli_signature(struct mm_exec *ex, const struct mm_prog *p, const struct mm_exec_opts *o,
		  struct cli_signature *sig);
bool cli_signature_eq(const struct cli_signature *a, const struct cli_signature *b);
/*
 * Cuts p down to the ops that still fail with signature want (ddmin, then
 * 1-minimal); *runs counts the executions. Returns 0, or -1 when memory is
 * short (p is then still a failing program).
 */
int cli_minimize(struct mm_exec *ex, const struct mm_exec_opts *o, const struct cli_signature *want,
		 struct mm_prog *p, unsigned long *runs);

/*
 * The machine a /proc/zoneinfo file describes (cmd_shape.c): the builder of
 * `mmfuzz shape` and `mmfuzz stress --zoneinfo`. EXIT_USAGE after one line.
 */
int cli_zoneinfo_machine(const char *who, const char *path, unsigned int nr_cpus,
			 const unsigned int *cpus_per_node, unsigned int nr_cpus_per_node,
			 struct mm_config *cfg, unsigned int *nr_zones);

/* Prints the command's usage line, as mmfuzz --help has it; returns EXIT_CLEAN. */
int cli_command_help(const char *name);

int cmd_trace(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_encode(int argc, char **argv);
int cmd_repro(int argc, char **argv);
int cmd_minimize(int argc, char **argv);
int cmd_variants(int argc, char **argv);
int cmd_ops(int argc, char **argv);
int cmd_shape(int argc, char **argv);
int cmd_bench(int argc, char **argv);  /* harness/bench/ */
int cmd_stress(int argc, char **argv); /* harness/stress/ */
int cmd_policy(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_explore(int argc, char **argv);
int cmd_fuzz_summary(int argc, char **argv);

#endif
