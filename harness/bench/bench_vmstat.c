/* SPDX-License-Identifier: MIT */
/*
 * bench_vmstat.c - seed 002's trade-off in counted figures: the same
 * allocation workload near the watermarks at 4, 64 and 256 CPUs, with
 * kswapd's pressure thresholds (the fix, 88f5acf88ae6) and without them
 * (the normal thresholds throughout, variant vmstat-no-pressure). Fewer
 * folds is the speed the per-cpu diffs buy; the drift and the exact free
 * pages at their lowest are what it costs.
 *
 * The workload is a program run by the executor, so kswapd can reclaim
 * the reclaimable allocations through their handles.
 */
#include "bench.h"
#include "results.h"

#include <stdio.h>
#include <stdlib.h>

#define S2_PAGES  262144u /* Normal: 1 GiB; min 1024, low 1286, high 1548 */
#define S2_FLOOR  1536u	  /* free pages the preallocation leaves: below high */
#define S2_OPS	  100000u /* order-0 allocations (5/8) and frees, CPUs in turn */
#define S2_KSWAPD 64u	  /* a kswapd step and a try to sleep every S2_KSWAPD ops */
#define S2_RNG	  UINT64_C(0x5eed0002)

static int push(struct mm_prog *p, struct mm_op op)
{
	return mm_prog_push(p, &op);
}

static struct mm_op alloc_op(unsigned int cpu, unsigned int order, unsigned int gfp)
{
	return (struct mm_op){.kind = MM_OP_ALLOC,
			      .cpu = (uint16_t)cpu,
			      .alloc = {.order = (uint8_t)order, .node = -1, .gfp = (uint16_t)gfp}};
}

/*
 * The program: the pcp lists off (every page moves a diff by one), the
 * zone preallocated down to S2_FLOOR free pages, kswapd woken, then the
 * workload. Its
 * allocations are reclaimable: kswapd always has something to take back,
 * so it never gives the node up as hopeless (the model has no direct
 * reclaim to reset kswapd_failures).
 */
static int build_workload(struct mm_prog *p, unsigned int ncpus, uint32_t *live)
{
	uint64_t rng = S2_RNG;
	unsigned int nr_live = 0;
	int err = 0;

	mm_prog_free(p);
	mm_config_init(&p->cfg);
	p->cfg.cpus_per_node[0] = ncpus;
	p->cfg.zones[0][ZONE_NORMAL] = (struct mm_zone_config){0, S2_PAGES, S2_PAGES, S2_PAGES};
	err |= push(p, (struct mm_op){.kind = MM_OP_PCP_DISABLE, .pcp.zone = ZONE_NORMAL});
	for (unsigned int i = 0; i < (S2_PAGES - S2_FLOOR) >> 9; i++)
		err |= push(p, alloc_op(0, 9, MM_GFP_KERNEL | MM_GFP_MOVABLE));
	/* below high: kswapd is woken before the workload starts drifting */
	err |= push(p, (struct mm_op){.kind = MM_OP_KSWAPD_WAKE, .vmstat.zone = ZONE_NORMAL});
	for (unsigned int i = 0; i < S2_OPS; i++) {
		uint64_t r = mm_splitmix64(&rng);
		unsigned int cpu = i % ncpus;
		if ((r & 7) < 5 || !nr_live) {
			live[nr_live++] = p->nr_allocs;
			err |= push(p, alloc_op(cpu, 0, MM_GFP_KERNEL | MM_GFP_RECLAIMABLE));
		} else {
			unsigned int k = (unsigned int)((r >> 8) % nr_live);
			err |= push(p, (struct mm_op){.kind = MM_OP_FREE,
						      .cpu = (uint16_t)cpu,
						      .free.handle = live[k]});
			live[k] = live[--nr_live];
		}
		if (i % S2_KSWAPD == S2_KSWAPD - 1) {
			err |= push(p, (struct mm_op){.kind = MM_OP_KSWAPD_STEP});
			err |= push(p, (struct mm_op){.kind = MM_OP_KSWAPD_SLEEP});
		}
	}
	return err ? -1 : 0;
}

static int seed002_row(struct mm_exec *ex, struct mm_prog *p, unsigned int ncpus,
		       const char *variant, mm_violation_fn on_violation)
{
	struct mm_exec_opts o;
	struct mm_zone_info zi;
	struct mm_stats st;
	long failed_op;

	mm_exec_opts_default(&o);
	o.variant = bench_variant(variant);
	if (o.variant == MM_VARIANT_UNKNOWN)
		return -1;
	o.check_every = 0;
	o.stop_on_violation = false;
	/* the variant breaks the seed's invariant by design: its row is figures only */
	o.on_violation = variant ? NULL : on_violation;
	if (mm_exec_run(ex, p, &o, &failed_op) < 0) {
		fprintf(stderr, "mmfuzz: bench: cannot build the seed 002 machine\n");
		return -1;
	}
	struct mm_sim *sim = mm_exec_sim(ex);
	mm_sim_stats(sim, &st);
	mm_zone_info(sim, 0, ZONE_NORMAL, &zi);
	char row[64];
	snprintf(row, sizeof(row), "%u cpus %s", ncpus, variant ? "normal" : "pressure");
	results_metric("seed002", row, "folds_per_1000",
		       st.vmstat_updates
			       ? 1000.0 * (double)st.vmstat_folds / (double)st.vmstat_updates
			       : 0.0);
	results_metric("seed002", row, "max_drift", (double)zi.max_drift);
	results_metric("seed002", row, "vs_min",
		       (double)(zi.min_exact_free - (long)zi.wmark[WMARK_MIN]));
	printf("%5u %-10s %11.1f %10ld %9ld %8ld %10llu %9llu %10llu %9lu\n", ncpus,
	       variant ? "normal" : "pressure",
	       st.vmstat_updates ? 1000.0 * (double)st.vmstat_folds / (double)st.vmstat_updates
				 : 0.0,
	       zi.max_drift, zi.min_exact_free, zi.min_exact_free - (long)zi.wmark[WMARK_MIN],
	       st.snapshot_reads, st.kswapd_wakes, st.kswapd_reclaimed, mm_sim_violations(sim));
	return 0;
}

int bench_seed002(mm_violation_fn on_violation)
{
	static const unsigned int cpus[] = {4, 64, 256};
	struct mm_exec *ex = mm_exec_create();
	uint32_t *live = calloc(S2_OPS, sizeof(*live));
	struct mm_prog p;
	int ret = 0;

	mm_prog_init(&p);
	if (!ex || !live) {
		mm_exec_destroy(ex);
		free(live);
		return cli_usage_error("bench: out of memory");
	}
	printf("seed 002: vmstat drift near the watermarks; Normal %u pages (min 1024, low 1286,\n"
	       "high 1548), pcp lists off, preallocated down to %u free, kswapd woken; %u order-0\n"
	       "reclaimable allocations (5/8) and frees on the CPUs in turn, a kswapd step and a\n"
	       "try to sleep every %u ops. 'vs min': the lowest exact free count minus min;\n"
	       "'violations': of the seed's invariants (the normal rows break them by design)\n",
	       S2_PAGES, S2_FLOOR, S2_OPS, S2_KSWAPD);
	printf("%5s %-10s %11s %10s %9s %8s %10s %9s %10s %9s\n", "CPUs", "thresholds",
	       "folds/1000", "max drift", "min exact", "vs min", "snapshots", "wakes", "reclaimed",
	       "violations");
	for (size_t i = 0; !ret && i < sizeof(cpus) / sizeof(cpus[0]); i++) {
		ret = build_workload(&p, cpus[i], live);
		if (ret)
			ret = cli_usage_error("bench: out of memory");
		if (!ret)
			ret = seed002_row(ex, &p, cpus[i], NULL, on_violation);
		if (!ret)
			ret = seed002_row(ex, &p, cpus[i], "vmstat-no-pressure", on_violation);
	}
	mm_prog_free(&p);
	mm_exec_destroy(ex);
	free(live);
	return ret;
}
