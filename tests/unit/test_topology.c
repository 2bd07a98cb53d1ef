/* SPDX-License-Identifier: MIT */
/*
 * test_topology.c - big machines and node distances: the zonelists'
 * node order against build_zonelists()' rule worked out by hand, and a
 * 64-node, 1024-CPU machine whose every zone keeps its own pagesets and
 * page descriptors that name it.
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

/* The node of each zone on local's fallback zonelist, -1 after the last. */
static void assert_order(struct mm_sim *sim, unsigned int local, const int *want, unsigned int nr)
{
	struct zone **zl = sim->node_data[local]->zonelist;
	char got[256] = "";

	for (unsigned int i = 0; zl[i]; i++)
		snprintf(got + strlen(got), sizeof(got) - strlen(got), " %d", zl[i]->node);
	for (unsigned int i = 0; i < nr; i++)
		ck_assert_msg(zl[i] && zl[i]->node == want[i],
			      "node %u's zonelist:%s; position %u should be node %d", local, got, i,
			      want[i]);
	ck_assert_msg(!zl[nr], "node %u's zonelist:%s; longer than %u", local, got, nr);
}

static const unsigned int four_cpus[] = {2, 2, 2, 2}, four_pages[] = {512, 512, 512, 512};

/* No SLIT: every remote node at 20, the ones above the local node first. */
START_TEST(test_equidistant)
{
	struct mm_sim *sim = machine(4, four_cpus, four_pages);
	static const int want[4][4] = {{0, 1, 2, 3}, {1, 2, 3, 0}, {2, 3, 0, 1}, {3, 0, 1, 2}};

	for (unsigned int n = 0; n < 4; n++)
		assert_order(sim, n, want[n], 4);
	ck_assert_int_eq(mm_node_distance(sim, 0, 0), 10);
	ck_assert_int_eq(mm_node_distance(sim, 0, 3), 20);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * Node 1 is near node 0 (12), nodes 2 and 3 far from both (20). node_load
 * makes equidistant nodes take turns: node 0's list loads node 1 and node 2
 * (the first of each new distance), so node 1 tries 3 before 2.
 */
START_TEST(test_slit_round_robin)
{
	static const uint8_t d[16] = {10, 12, 20, 20, 12, 10, 20, 20,
				      20, 20, 10, 12, 20, 20, 12, 10};
	static const int want0[] = {0, 1, 2, 3}, want1[] = {1, 0, 3, 2};
	struct mm_sim *sim = machine(4, four_cpus, four_pages);
	char err[160];

	ck_assert_int_eq(mm_sim_set_node_distances(sim, d, 4, err, sizeof(err)), 0);
	ck_assert_int_eq(mm_node_distance(sim, 1, 0), 12);
	ck_assert_int_eq(mm_node_distance(sim, 2, 1), 20);
	assert_order(sim, 0, want0, 4);
	assert_order(sim, 1, want1, 4);
	mm_sim_destroy(sim);
}
END_TEST

/* PENALTY_FOR_NODE_WITH_CPUS: a headless (CPU-less) node takes the overflow first. */
START_TEST(test_headless_first)
{
	static const unsigned int cpus[] = {2, 2, 0}, pages[] = {512, 512, 512};
	static const int want0[] = {0, 2, 1}, want2[] = {2, 0, 1};
	struct mm_sim *sim = machine(3, cpus, pages);

	assert_order(sim, 0, want0, 3);
	/* The headless node's own list: its memory first, then by distance and load. */
	assert_order(sim, 2, want2, 3);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * A memoryless node (CPUs, no memory) has no zones of its own: its list
 * starts at the nearest node with memory, its THISNODE list is empty, and
 * its CPUs allocate from the nearest node.
 */
START_TEST(test_memoryless)
{
	static const unsigned int cpus[] = {1, 1, 1}, pages[] = {512, 0, 512};
	static const uint8_t d[9] = {10, 30, 40, 30, 10, 20, 40, 20, 10};
	static const int want1[] = {2, 0};
	struct mm_sim *sim = machine(3, cpus, pages);
	char err[160];
	uint32_t gen;

	ck_assert_int_eq(mm_sim_set_node_distances(sim, d, 3, err, sizeof(err)), 0);
	assert_order(sim, 1, want1, 2);
	ck_assert_ptr_null(sim->node_data[1]->zonelist_nofallback[0]);
	mm_set_current_cpu(1);
	long long pfn = mm_alloc_pages(sim, 0, MM_GFP_KERNEL, -1, 1, &gen);
	ck_assert_int_ge(pfn, 512); /* node 2's zone: pfns 512..1023 */
	ck_assert_int_eq(mm_alloc_pages(sim, 0, MM_GFP_KERNEL | MM_GFP_THISNODE, -1, 2, &gen), -1);
	mm_free_pages(sim, (uint64_t)pfn, 0, 1, gen);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * __alloc_pages()' preferred node: a node the machine has is the first of
 * the allocation's zonelist whichever CPU asks, node 0 included; no node
 * (-1) or one past the machine's means the asking CPU's own. Two nodes of
 * 512 pages (node 0: pfns 0..511, node 1: 512..1023), asked from node 1's
 * CPU.
 */
START_TEST(test_preferred_node)
{
	static const unsigned int cpus[] = {1, 1}, pages[] = {512, 512};
	static const struct {
		int nid;
		bool node0;
	} rows[] = {{0, true}, {1, false}, {-1, false}, {2, false}};
	struct mm_sim *sim = machine(2, cpus, pages);
	uint32_t gen;

	mm_set_current_cpu(1);
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		long long pfn = mm_alloc_pages(sim, 0, MM_GFP_KERNEL, rows[i].nid, 1, &gen);

		ck_assert_msg(pfn >= 0 && (pfn < 512) == rows[i].node0,
			      "preferred node %d from node 1's CPU: pfn %lld", rows[i].nid, pfn);
		mm_free_pages(sim, (uint64_t)pfn, 0, 1, gen);
	}
	ck_assert_uint_eq(mm_check_full(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

/* numa_set_distance()'s rule; a refused table leaves the zonelists as they were. */
START_TEST(test_distances_refused)
{
	static const uint8_t bad_diag[4] = {11, 20, 20, 10}, bad_remote[4] = {10, 10, 20, 10};
	static const uint8_t ok[4] = {10, 20, 20, 10};
	static const unsigned int cpus[] = {1, 1}, pages[] = {512, 512};
	static const int want0[] = {0, 1};
	struct mm_sim *sim = machine(2, cpus, pages);
	char err[160];

	ck_assert_int_eq(mm_sim_set_node_distances(sim, bad_diag, 2, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "0 -> 0 is 11"));
	ck_assert_int_eq(mm_sim_set_node_distances(sim, bad_remote, 2, err, sizeof(err)), -1);
	ck_assert_int_eq(mm_sim_set_node_distances(sim, ok, 1, err, sizeof(err)), -1);
	ck_assert_int_eq(mm_node_distance(sim, 0, 1), 20);
	assert_order(sim, 0, want0, 2);
	mm_sim_destroy(sim);
}
END_TEST

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

	tcase_add_test(tc, test_equidistant);
	tcase_add_test(tc, test_slit_round_robin);
	tcase_add_test(tc, test_headless_first);
	tcase_add_test(tc, test_memoryless);
	tcase_add_test(tc, test_preferred_node);
	tcase_add_test(tc, test_distances_refused);
	tcase_add_test(tc, test_big_box);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(topology_suite());
}
