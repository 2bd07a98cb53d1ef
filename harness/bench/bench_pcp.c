/* SPDX-License-Identifier: MIT */
/*
 * bench_pcp.c - mmfuzz bench: seed 000, the pcp sizing deferred init leaves, in
 * zone->lock trips.
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

/* ------------------------------------------------------------------------
 * Seed 000: pcp sizing left from deferred init, counted in zone->lock trips
 * ---------------------------------------------------------------------- */

#define S0_NODES       2u
#define S0_CPUS	       64u	  /* per node */
#define S0_PAGES       (1u << 20) /* Normal per node: 4 GiB */
#define S0_BOOT_PAGES  32768u	  /* initialised at boot: 128 MiB, as early boot sees */
#define S0_WORKING_SET 96u	  /* order-0 pages each CPU holds, then frees */
#define S0_ROUNDS      4u

/*
 * Every CPU in turn allocates a working set of order-0 pages and frees it,
 * on the deferred-init machine after deferred init completed. One thread
 * runs all CPUs, so the counts are exact and the same every run.
 */
static int seed000_row(struct mm_sim *sim, const char *variant, long long *pfn, uint32_t *gen)
{
	struct mm_config cfg;
	struct mm_stats st;
	struct mm_pcp_info pi;
	int v = bench_variant(variant);
	unsigned long long page_ops = 0, failed = 0;

	mm_config_init(&cfg);
	cfg.nr_nodes = S0_NODES;
	for (unsigned int n = 0; n < S0_NODES; n++) {
		cfg.cpus_per_node[n] = S0_CPUS;
		cfg.zones[n][ZONE_NORMAL] = (struct mm_zone_config){(uint64_t)n * S0_PAGES,
								    S0_PAGES, S0_PAGES, S0_PAGES};
	}
	cfg.deferred_init_pages = S0_BOOT_PAGES;
	if (v == MM_VARIANT_UNKNOWN)
		return -1;
	if (mm_sim_init(sim, &cfg, v)) {
		fprintf(stderr, "mmfuzz: bench: cannot build the seed 000 machine\n");
		return -1;
	}
	mm_deferred_init_complete(sim);
	mm_sim_stats(sim, &st);
	unsigned long long locks0 = st.zone_lock_acquisitions;
	double t0 = cli_now();
	for (unsigned int r = 0; r < S0_ROUNDS; r++) {
		for (unsigned int cpu = 0; cpu < S0_NODES * S0_CPUS; cpu++) {
			mm_set_current_cpu((int)cpu);
			for (unsigned int i = 0; i < S0_WORKING_SET; i++) {
				pfn[i] = mm_alloc_pages(sim, 0, MM_GFP_KERNEL, -1, i, &gen[i]);
				failed += pfn[i] < 0;
			}
			for (unsigned int i = 0; i < S0_WORKING_SET; i++)
				if (pfn[i] >= 0)
					mm_free_pages(sim, (uint64_t)pfn[i], 0, i, gen[i]);
			page_ops += 2 * S0_WORKING_SET;
		}
	}
	double t = cli_now() - t0;
	mm_sim_stats(sim, &st);
	mm_pcp_info(sim, 0, ZONE_NORMAL, 0, &pi);
	if (failed) {
		fprintf(stderr, "mmfuzz: bench: %llu allocations failed on the seed 000 machine\n",
			failed);
		return -1;
	}
	unsigned long long locks = st.zone_lock_acquisitions - locks0;
	const char *row = variant ? variant : "fixed";
	results_metric("seed000", row, "locks_per_1000op",
		       1000.0 * (double)locks / (double)page_ops);
	results_metric("seed000", row, "ns_per_op", t * 1e9 / (double)page_ops);
	printf("%-34s %5d %8d %8d %12.1f %12.1f %10.1f\n",
	       variant ? variant : "fixed (3e8fc0075e24)", pi.batch, pi.high_min, pi.high_max,
	       1000.0 * (double)locks / (double)page_ops,
	       (double)(st.pcp_pages_refilled + st.pcp_pages_flushed) /
		       (double)(st.pcp_refills + st.pcp_bulk_frees),
	       t * 1e9 / (double)page_ops);
	return 0;
}

int bench_seed000(void)
{
	struct mm_sim *sim = bench_sim_create();
	long long pfn[S0_WORKING_SET];
	uint32_t gen[S0_WORKING_SET];
	int ret;

	if (!sim)
		return -1;
	printf("seed 000: pcp sizing after deferred init; %u nodes x %u CPUs, Normal %u pages per\n"
	       "node, %u initialised at boot; each CPU allocates %u order-0 pages and frees\n"
	       "them, %u rounds (one thread plays every CPU: exact counts)\n",
	       S0_NODES, S0_CPUS, S0_PAGES, S0_BOOT_PAGES, S0_WORKING_SET, S0_ROUNDS);
	printf("%-34s %5s %8s %8s %12s %12s %10s\n", "model", "batch", "high_min", "high_max",
	       "locks/1000op", "pages/lock", "ns/op");
	ret = seed000_row(sim, NULL, pfn, gen);
	if (!ret)
		ret = seed000_row(sim, "pcp-no-recalc-after-deferred-init", pfn, gen);
	if (!ret)
		ret = seed000_row(sim, "pcp-high-equals-batch", pfn, gen);
	mm_sim_destroy(sim);
	return ret;
}
