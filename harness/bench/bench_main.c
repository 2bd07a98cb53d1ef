/* SPDX-License-Identifier: MIT */
/*
 * bench.c - mmfuzz bench: prints what the model costs. Not a test: there
 * are no thresholds, only figures.
 *
 *  - the page descriptor size;
 *  - buddy alloc+free pairs/s at orders 0, 3 and 9 on a 1-node machine
 *    (64K pages of Normal), next to glibc malloc/free of the same sizes in
 *    the same pattern: a batch of N blocks allocated, then freed in a fixed
 *    shuffled order, so the model splits on the way down and merges on the
 *    way back;
 *  - the seeds, counted on one thread playing every CPU (exact counts, one
 *    timed pass, not --seconds): seed 000's zone->lock trips per pcp
 *    sizing; seed 003's vm_committed_as folds on a brk loop, batch 2 * ncpus
 *    (variant pcpu-batch-2ncpu) against the policy's; seed 004's per-cpu
 *    allocations and list locks per fork, init_many against the variant
 *    rss-counters-one-by-one; seed 001's compaction table (migrate and free
 *    scanned, isolated, migrate success/failure, scan efficiency, cost) on
 *    a usemem-like workload, the fixed model beside each compaction variant
 *    (bench_compaction.c);
 *  - the per-input reset: mm_sim_init() of the machines the fuzz targets
 *    decode, and the bytes it writes;
 *  - executor throughput: fixed-seed random 512-byte inputs decoded and run
 *    by mm_exec_run(), as fuzz_common.c does per input, without sanitizers
 *    when built with the release preset;
 *  - the same inputs under each fuzz target's machine shape, their cost by
 *    the CPU count of the machine they decode to (the sanitized figure:
 *    the dev preset's mmfuzz).
 *
 * Every measurement repeats one deterministic round until --seconds have
 * passed. The per-op counts (zone-lock acquisitions, splits, merges, ops,
 * reset bytes) are taken from the first round, so they are the same on
 * every run and with --quick; only the times vary. The correct model is
 * measured, and the seeds' variants by name: MMFUZZ_VARIANT is ignored.
 */
#include "bench.h"
#include "results.h"

#include <limits.h>
#include <malloc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

unsigned long bench_violations;

struct mm_sim *bench_sim_create(void)
{
	struct mm_sim *sim = mm_sim_create();

	if (!sim)
		fprintf(stderr, "mmfuzz: bench: out of memory\n");
	else
		mm_sim_set_violation_handler(sim, bench_count_violation, NULL);
	return sim;
}

int bench_variant(const char *name)
{
	int v = mm_variant_lookup(name);

	if (v == MM_VARIANT_UNKNOWN)
		fprintf(stderr, "mmfuzz: bench: this model has no variant '%s'\n", name);
	return v;
}

void bench_count_violation(const struct mm_violation *v, void *arg)
{
	char line[512];

	(void)arg;
	if (!bench_violations++) {
		mm_violation_format(v, line, sizeof(line));
		fprintf(stderr, "mmfuzz: bench: the correct model reported %s\n", line);
	}
}

/* Runs round(ctx) until seconds have passed (at least once); returns the time. */
double bench_time_rounds(void (*round)(void *), void *ctx, double seconds, unsigned long *rounds)
{
	unsigned long n = 0;
	double t0 = cli_now(), t;

	do {
		round(ctx);
		n++;
		t = cli_now() - t0;
	} while (t < seconds);
	*rounds = n;
	return t;
}

/* ------------------------------------------------------------------------
 * The command
 * ---------------------------------------------------------------------- */

static const char usage_line[] =
	"mmfuzz bench [--seconds S] [--quick] [--policy P.so] [--json FILE] [--repeat N]";

static int parse_seconds(const char *s, double *out)
{
	if (!cli_parse_seconds(s, 1e-9, BENCH_MAX_SECONDS, out))
		return cli_usage_error("bench: --seconds wants a number of seconds in (0, %.0f], "
				       "got '%s'",
				       BENCH_MAX_SECONDS, s);
	return 0;
}

/* The tables, once: one run of the results */
static int bench_tables(const struct bench_inputs *in, double seconds)
{
	int ret = bench_pairs(seconds);
	if (!ret) {
		putchar('\n');
		ret = bench_seed000();
	}
	if (!ret) {
		putchar('\n');
		ret = bench_seed002(bench_count_violation);
	}
	if (!ret) {
		putchar('\n');
		ret = bench_seed003();
	}
	if (!ret) {
		putchar('\n');
		ret = bench_seed003_batch();
	}
	if (!ret) {
		putchar('\n');
		ret = bench_seed004();
	}
	if (!ret) {
		unsigned long compaction_violations = 0;
		putchar('\n');
		ret = bench_compaction(&compaction_violations);
		bench_violations += compaction_violations;
	}
	if (!ret) {
		putchar('\n');
		ret = bench_reset(in, seconds);
	}
	if (!ret) {
		putchar('\n');
		ret = bench_exec(in, seconds);
	}
	if (!ret) {
		putchar('\n');
		ret = bench_targets(in, seconds);
	}
	return ret;
}

int cmd_bench(int argc, char **argv)
{
	double seconds = BENCH_SECONDS;
	bool quick = false, seconds_set = false;
	const char *policy = NULL, *json = NULL;
	unsigned int repeat = 1;
	struct bench_inputs *in;
	int ret = 0;

	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];
		bool missing = false;
		const char *v;

		if ((v = cli_flag_value(argc, argv, &i, "--seconds", &missing))) {
			if ((ret = parse_seconds(v, &seconds)))
				return ret;
			seconds_set = true;
		} else if ((v = cli_flag_value(argc, argv, &i, "--policy", &missing))) {
			policy = v;
		} else if ((v = cli_flag_value(argc, argv, &i, "--json", &missing))) {
			json = v;
		} else if ((v = cli_flag_value(argc, argv, &i, "--repeat", &missing))) {
			if (!cli_parse_uint(v, 1, 1000, &repeat))
				return cli_usage_error(
					"bench: --repeat takes 1..1000 runs, not '%s'", v);
		} else if (missing) {
			return cli_usage_error("bench: %s needs a value (%s)", arg, usage_line);
		} else if (!strcmp(arg, "--quick")) {
			quick = true;
		} else if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
			printf("usage: %s\n"
			       "  --seconds S  time per measurement (default %.2f)\n"
			       "  --quick      %.2f s per measurement, unless --seconds is given\n"
			       "  --policy P   a policy plugin's .so for every machine (default: "
			       "$MMFUZZ_POLICY)\n"
			       "  --json FILE  write the figures of every run as JSON "
			       "(docs/results-json.md)\n"
			       "  --repeat N   run the tables N times (for mmfuzz compare)\n"
			       "Counts are deterministic; only the times vary.\n",
			       usage_line, BENCH_SECONDS, BENCH_QUICK_SECONDS);
			return EXIT_CLEAN;
		} else {
			return cli_usage_error("bench: unknown argument '%s' (%s)", arg,
					       usage_line);
		}
	}
	if (quick && !seconds_set)
		seconds = BENCH_QUICK_SECONDS;
	if ((ret = cli_policy(policy)))
		return ret;
	if (json && (ret = results_begin("bench", json)))
		return ret;

	in = malloc(sizeof(*in));
	if (!in || bench_make_inputs(in)) {
		free(in);
		return cli_usage_error("bench: out of memory");
	}
	printf("mmfuzz bench: %.2f s per measurement; counts are per op and deterministic, "
	       "times vary\n\n",
	       seconds);
#if defined(BENCH_SANITIZED) || !defined(__OPTIMIZE__)
	printf("note: this mmfuzz is built with sanitizers or without optimization (and\n"
	       "malloc may be the sanitizer's); the release preset gives the plain figures\n\n");
#endif
	printf("%-34s %zu bytes\n\n", "page descriptor (struct page)", mm_page_descriptor_size());

	for (unsigned int r = 0; !ret && r < repeat; r++) {
		if (repeat > 1)
			printf("== run %u of %u\n\n", r + 1, repeat);
		ret = bench_tables(in, seconds);
		results_next_run();
		if (r + 1 < repeat)
			putchar('\n');
	}
	free(in);
	if (ret)
		return EXIT_USAGE;
	if ((ret = results_write()))
		return ret;
	if (bench_violations) {
		printf("\nthe correct model reported %lu violation(s): see the first above\n",
		       bench_violations);
		return EXIT_VIOLATION;
	}
	return EXIT_CLEAN;
}
