/* SPDX-License-Identifier: MIT */
/*
 * test_topology.c - big machines: a 64-node, 1024-CPU machine whose
 * every zone keeps its own pagesets and page descriptors that name it.
 */
#include "common.h"
#include "internal.h"

/* nr nodes with cpus[n] CPUs and, where pages[n], a Normal zone of that many pages. */
static struct mm_sim *machine(unsigned int nr, const unsigned int *cpus, const unsigned int *pages)
{
	struct mm_config cfg;
	uint64_t pfn = 0;

	mm_config_init(&cfg);
	cfg.nr_nodes = nr;
	for (unsigned int n = 0; n < nr; n++) {
		cfg.cpus_per_node[n] = cpus[n];
		if (pages[n]) {
			cfg_zone(&cfg, n, ZONE_NORMAL, pfn, pages[n], pages[n]);
			pfn += pages[n];
		}
	}
	return sim_new(&cfg);
}

/*
 * The model's largest machine: 64 nodes of 16 CPUs. Every populated zone
 * has pagesets of its own (no two zones share a slot), and a page of node
 * 63 names its zone (zone id 317: more than a byte holds).
 */
START_TEST(test_big_box)
{
	unsigned int cpus[MM_MAX_NODES], pages[MM_MAX_NODES];
	struct mm_sim *sim;
	uint32_t gen;

	for (unsigned int n = 0; n < MM_MAX_NODES; n++) {
		cpus[n] = MM_MAX_CPUS / MM_MAX_NODES;
		pages[n] = 1024;
	}
	sim = machine(MM_MAX_NODES, cpus, pages);
	ck_assert_uint_eq(mm_nr_cpus(sim), MM_MAX_CPUS);
	for (unsigned int a = 0; a < MM_MAX_NODES; a++) {
		const struct zone *za = &sim->node_data[a]->node_zones[ZONE_NORMAL];
		for (unsigned int b = a + 1; b < MM_MAX_NODES; b++) {
			const struct zone *zb = &sim->node_data[b]->node_zones[ZONE_NORMAL];
			ck_assert_msg(za->per_cpu_pageset + MM_MAX_CPUS <= zb->per_cpu_pageset ||
					      zb->per_cpu_pageset + MM_MAX_CPUS <=
						      za->per_cpu_pageset,
				      "nodes %u and %u share pagesets", a, b);
		}
	}
	mm_set_current_cpu(MM_MAX_CPUS - 1);
	long long pfn = mm_alloc_pages(sim, 3, MM_GFP_KERNEL, -1, 7, &gen);
	ck_assert_int_ge(pfn, 63 * 1024);
	ck_assert_int_eq(sim->mem_map[pfn].zone_id, 63 * MAX_NR_ZONES + ZONE_NORMAL);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	mm_free_pages(sim, (uint64_t)pfn, 3, 7, gen);
	mm_drain_all_pages(sim);
	ck_assert_int_eq(zinfo(sim, 63, ZONE_NORMAL).nr_free_exact, 1024);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

static Suite *topology_suite(void)
{
	Suite *s = suite_create("topology");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_big_box);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(topology_suite());
}
