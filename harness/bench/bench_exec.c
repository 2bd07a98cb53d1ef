/* SPDX-License-Identifier: MIT */
/*
 * bench_exec.c - mmfuzz bench: what a fuzz input costs: the per-input reset, the
 * executor, and each fuzz target's machine shape.
 */
#include "bench.h"

#include <limits.h>
#include <malloc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ------------------------------------------------------------------------
 * The fuzz inputs: fixed-seed random bytes, decoded with the default limits
 * ---------------------------------------------------------------------- */

int bench_make_inputs(struct bench_inputs *in)
{
	uint64_t seed = BENCH_SEED;
	struct mm_prog p;

	mm_limits_default(&in->lim);
	mm_prog_init(&p);
	for (unsigned int i = 0; i < BENCH_INPUTS; i++) {
		for (unsigned int b = 0; b < BENCH_INPUT_LEN; b += 8) {
			uint64_t x = mm_splitmix64(&seed);
			memcpy(&in->data[i][b], &x, 8);
		}
		if (mm_decode(in->data[i], BENCH_INPUT_LEN, &in->lim, &p)) {
			mm_prog_free(&p);
			return -1;
		}
		in->cfg[i] = p.cfg;
	}
	mm_prog_free(&p);
	return 0;
}

/* ------------------------------------------------------------------------
 * The per-input reset
 * ---------------------------------------------------------------------- */

struct reset_ctx {
	struct mm_sim *sim;
	const struct mm_config *cfg;
	unsigned int n;
	unsigned long failed;
};

static void reset_round(void *arg)
{
	struct reset_ctx *c = arg;

	for (unsigned int i = 0; i < c->n; i++)
		c->failed += mm_sim_init(c->sim, &c->cfg[i], -1) != 0;
}

/* Times mm_sim_init over cfg[0..n); prints one row. */
static int reset_row(const char *what, const struct mm_config *cfg, unsigned int n, double seconds)
{
	struct reset_ctx c = {.sim = mm_sim_create(), .cfg = cfg, .n = n};
	double pages = 0, bytes = 0, max_bytes = 0;
	unsigned long rounds;

	if (!c.sim) {
		fprintf(stderr, "mmfuzz: bench: out of memory\n");
		return -1;
	}
	/* The first round, untimed: the bytes each init writes, and buffer growth. */
	for (unsigned int i = 0; i < n; i++) {
		if (mm_sim_init(c.sim, &cfg[i], -1)) {
			fprintf(stderr, "mmfuzz: bench: cannot build a %s\n", what);
			mm_sim_destroy(c.sim);
			return -1;
		}
		double b = (double)mm_sim_reset_bytes(c.sim);
		bytes += b;
		max_bytes = b > max_bytes ? b : max_bytes;
		pages += (double)mm_config_max_pfn(&cfg[i]);
	}
	double t = bench_time_rounds(reset_round, &c, seconds, &rounds);
	mm_sim_destroy(c.sim);
	if (c.failed) {
		fprintf(stderr, "mmfuzz: bench: mm_sim_init failed on a %s\n", what);
		return -1;
	}
	printf("%-34s %7.0f %12.0f %12.0f %10.2f %12.0f\n", what, pages / n, bytes / n, max_bytes,
	       t * 1e6 / ((double)rounds * n), (double)rounds * n / t);
	return 0;
}

int bench_reset(const struct bench_inputs *in, double seconds)
{
	struct mm_config big;
	char what[64];

	bench_machine(&big);
	printf("per-input reset: mm_sim_init() (mean over the machines; bytes from "
	       "mm_sim_reset_bytes())\n");
	printf("%-34s %7s %12s %12s %10s %12s\n", "machine", "pages", "reset bytes", "max bytes",
	       "us/init", "inits/s");
	snprintf(what, sizeof(what), "fuzz inputs (%u decoded)", BENCH_INPUTS);
	if (reset_row(what, in->cfg, BENCH_INPUTS, seconds))
		return -1;
	return reset_row("the buddy bench machine", &big, 1, seconds);
}

/* ------------------------------------------------------------------------
 * The executor: decode + run, per input, as the fuzz targets do
 * ---------------------------------------------------------------------- */

/* Machines by CPU count: the O(CPUs) work (pagesets, diffs, scans) dominates past 64. */
static const unsigned int cpu_class_max[] = {4, 16, 64, 128, MM_MAX_CPUS};
#define NR_CPU_CLASSES (sizeof(cpu_class_max) / sizeof(cpu_class_max[0]))

struct exec_ctx {
	const struct bench_inputs *in;
	struct mm_limits lim; /* the inputs' or a fuzz target's */
	struct mm_exec *ex;
	struct mm_prog prog;
	struct mm_exec_opts opts;
	unsigned long failed;
	bool count; /* the first round: sum the counts below */
	unsigned long long ops, skipped, locks, full_checks, allocs, alloc_fail;
	bool timed; /* time each input into secs[] by its cls[] */
	unsigned int cls[BENCH_INPUTS];
	double secs[NR_CPU_CLASSES];
};

static void exec_round(void *arg)
{
	struct exec_ctx *c = arg;
	long failed_op;

	for (unsigned int i = 0; i < BENCH_INPUTS; i++) {
		double t0 = c->timed ? cli_now() : 0;
		int bad = mm_decode(c->in->data[i], BENCH_INPUT_LEN, &c->lim, &c->prog) ||
			  mm_exec_run(c->ex, &c->prog, &c->opts, &failed_op) < 0;
		if (c->timed)
			c->secs[c->cls[i]] += cli_now() - t0;
		if (bad) {
			c->failed++;
			continue;
		}
		if (c->count) {
			struct mm_stats st;
			mm_sim_stats(mm_exec_sim(c->ex), &st);
			c->ops += c->prog.nr_ops;
			c->skipped += mm_exec_skipped(c->ex);
			c->locks += st.zone_lock_acquisitions;
			c->full_checks += st.full_checks;
			c->allocs += st.alloc_success;
			c->alloc_fail += st.alloc_fail;
		}
	}
}

int bench_exec(const struct bench_inputs *in, double seconds)
{
	struct exec_ctx c = {.in = in, .lim = in->lim, .ex = mm_exec_create(), .count = true};
	unsigned long rounds;
	int ret = 0;

	if (!c.ex) {
		fprintf(stderr, "mmfuzz: bench: out of memory\n");
		return -1;
	}
	mm_prog_init(&c.prog);
	mm_exec_opts_default(&c.opts);
	c.opts.on_violation = bench_count_violation;

	exec_round(&c);
	c.count = false;
	double t = bench_time_rounds(exec_round, &c, seconds, &rounds);
	if (c.failed) {
		fprintf(stderr, "mmfuzz: bench: %lu inputs could not be decoded or run\n",
			c.failed);
		ret = -1;
		goto out;
	}

	double progs = (double)rounds * BENCH_INPUTS;
	double ops = (double)c.ops;
	printf("executor: mm_decode() + mm_exec_run() per input (default limits, full check "
	       "every %u ops\nand at the end), %u random %u-byte inputs, splitmix64 seed %#llx\n",
	       c.opts.check_every, BENCH_INPUTS, BENCH_INPUT_LEN, (unsigned long long)BENCH_SEED);
	printf("%12s %12s %9s %9s %9s %9s %12s %10s\n", "inputs/s", "ops/s", "us/input",
	       "ops/input", "skipped", "locks/op", "checks/input", "allocs ok");
	printf("%12.0f %12.0f %9.2f %9.1f %8.1f%% %9.3f %12.2f %9.1f%%\n", progs / t,
	       progs * (ops / BENCH_INPUTS) / t, t * 1e6 / progs, ops / BENCH_INPUTS,
	       ops > 0 ? 100.0 * (double)c.skipped / ops : 0.0,
	       ops > 0 ? (double)c.locks / ops : 0.0, (double)c.full_checks / BENCH_INPUTS,
	       c.allocs + c.alloc_fail
		       ? 100.0 * (double)c.allocs / (double)(c.allocs + c.alloc_fail)
		       : 0.0);
out:
	mm_prog_free(&c.prog);
	mm_exec_destroy(c.ex);
	return ret;
}

/* ------------------------------------------------------------------------
 * Per fuzz target: the same inputs under each target's machine shape
 * ---------------------------------------------------------------------- */

int bench_target(const struct bench_inputs *in, const char *target, double seconds)
{
	struct exec_ctx c = {.in = in, .ex = mm_exec_create(), .timed = true};
	unsigned long n[NR_CPU_CLASSES] = {0}, rounds;
	int ret = 0;

	if (!c.ex || mm_limits_for_target(target, &c.lim)) {
		mm_exec_destroy(c.ex);
		fprintf(stderr, "mmfuzz: bench: cannot set up %s\n", target);
		return -1;
	}
	mm_prog_init(&c.prog);
	mm_exec_opts_default(&c.opts);
	c.opts.on_violation = bench_count_violation;
	for (unsigned int i = 0; i < BENCH_INPUTS; i++) {
		unsigned int cpus = 0, k = 0;
		if (!mm_decode(in->data[i], BENCH_INPUT_LEN, &c.lim, &c.prog))
			cpus = mm_config_nr_cpus(&c.prog.cfg);
		while (k + 1 < NR_CPU_CLASSES && cpus > cpu_class_max[k])
			k++;
		c.cls[i] = k;
		n[k]++;
	}
	exec_round(&c); /* warm: buffers sized for the largest machine */
	memset(c.secs, 0, sizeof(c.secs));
	double t = bench_time_rounds(exec_round, &c, seconds, &rounds);
	if (c.failed) {
		fprintf(stderr, "mmfuzz: bench: %lu %s inputs could not be decoded or run\n",
			c.failed, target);
		ret = -1;
	} else {
		printf("%-16s %9.0f %9.2f", target, (double)rounds * BENCH_INPUTS / t,
		       t * 1e6 / ((double)rounds * BENCH_INPUTS));
		for (unsigned int k = 0; k < NR_CPU_CLASSES; k++) {
			if (n[k])
				printf(" %7.1f (%3lu)", c.secs[k] * 1e6 / ((double)rounds * n[k]),
				       n[k]);
			else
				printf(" %13s", "-");
		}
		putchar('\n');
	}
	mm_prog_free(&c.prog);
	mm_exec_destroy(c.ex);
	return ret;
}

/*
 * What one fuzz input costs each target, by the machine it decodes to: the
 * executor's inputs again, under each target's limits, as
 * mmfuzz_run_target() runs them (no libFuzzer: its own bookkeeping per run
 * comes on top in the targets' exec/s).
 */
int bench_targets(const struct bench_inputs *in, double seconds)
{
	printf("per fuzz target: the %u inputs above under each target's machine shape;\n"
	       "us/input by CPUs of the machine decoded (inputs in the class)\n",
	       BENCH_INPUTS);
	printf("%-16s %9s %9s", "target", "inputs/s", "us/input");
	for (unsigned int k = 0; k < NR_CPU_CLASSES; k++) {
		char head[24];
		snprintf(head, sizeof(head), "%u-%u CPUs", k ? cpu_class_max[k - 1] + 1 : 1,
			 cpu_class_max[k]);
		printf(" %13s", head);
	}
	putchar('\n');
	for (size_t i = 0; mm_target_at(i); i++)
		if (bench_target(in, mm_target_at(i), seconds))
			return -1;
	return 0;
}
