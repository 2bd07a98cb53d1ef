/* SPDX-License-Identifier: MIT */
/*
 * test_kswapd_wake_nodes.c - which nodes wake_all_kswapds() asks.
 * The kernel walks the zonelist's zones up to highest_zoneidx
 * (for_each_zone_zonelist_nodemask()) and calls wakeup_kswapd() once per
 * node, through the first of them that has managed pages; a zone above
 * highest_zoneidx, or without managed pages, neither asks its node nor
 * counts the node as asked. So a node is asked for (order,
 * highest_zoneidx) exactly when it has a managed zone at or below
 * highest_zoneidx, and wakeup_kswapd() records the request
 * (pgdat->kswapd_order, kswapd_highest_zoneidx) whether it wakes the
 * thread or not. Node 0 holds DMA32 and Normal, node 1 Normal only; rows
 * cross node 0's Normal managed or not, either node's zonelist and
 * highest_zoneidx DMA32 or Normal.
 */
#include "common.h"
#include "internal.h"

#define ORDER 2

static const struct {
	bool normal0_managed; /* node 0's Normal has managed pages */
	int list_node;	      /* whose zonelist the request walks */
	enum zone_type highest;
} rows[] = {
	{true, 0, ZONE_DMA32},	{true, 0, ZONE_NORMAL},	 {true, 1, ZONE_DMA32},
	{true, 1, ZONE_NORMAL}, {false, 0, ZONE_DMA32},	 {false, 0, ZONE_NORMAL},
	{false, 1, ZONE_DMA32}, {false, 1, ZONE_NORMAL},
};

/* Two nodes of one CPU: node 0 DMA32 [0, 128) and Normal [128, 256), node 1 Normal [256, 384). */
static struct mm_sim *two_node_machine(bool normal0_managed)
{
	struct mm_config cfg;
	struct mm_sim *sim;

	cfg_tiny(&cfg, 1, 3, 2);
	cfg.nr_nodes = 2;
	cfg.cpus_per_node[1] = 1;
	cfg_zone(&cfg, 0, ZONE_DMA32, 0, 128, 128);
	cfg_zone(&cfg, 0, ZONE_NORMAL, 128, 128, normal0_managed ? 128 : 0);
	cfg_zone(&cfg, 1, ZONE_NORMAL, 256, 128, 128);
	sim = sim_new(&cfg);
	mm_set_current_cpu(0);
	return sim;
}

/* The rule: the node has a zone with managed pages at or below highest. */
static bool node_asked(bool normal0_managed, int node, enum zone_type highest)
{
	const struct {
		int node;
		enum zone_type zt;
		bool managed;
	} zones[] = {
		{0, ZONE_DMA32, true},
		{0, ZONE_NORMAL, normal0_managed},
		{1, ZONE_NORMAL, true},
	};

	for (size_t i = 0; i < ARRAY_SIZE(zones); i++)
		if (zones[i].node == node && zones[i].managed && zones[i].zt <= highest)
			return true;
	return false;
}

START_TEST(test_wake_asks_nodes_with_usable_zones)
{
	struct mm_sim *sim = two_node_machine(rows[_i].normal0_managed);
	struct vrec vr;

	sim_record(sim, &vr);
	ck_assert_uint_eq(zinfo(sim, 0, ZONE_NORMAL).managed, rows[_i].normal0_managed ? 128 : 0);
	wake_all_kswapds(sim, ORDER, MM_GFP_KERNEL, sim->node_data[rows[_i].list_node]->zonelist,
			 (int)rows[_i].highest);
	for (int node = 0; node < 2; node++) {
		const struct kswapd_state *k = &sim->node_data[node]->kswapd;
		bool asked = node_asked(rows[_i].normal0_managed, node, rows[_i].highest);

		/* not asked: the boot state, order 0 and no zone (KSWAPD_ZONEIDX_UNSET) */
		ck_assert_msg(k->order == (asked ? ORDER : 0u) &&
				      k->highest_zoneidx ==
					      (asked ? (int)rows[_i].highest : MAX_NR_ZONES),
			      "node %d %s: order %u zone %d", node, asked ? "asked" : "not asked",
			      k->order, k->highest_zoneidx);
	}
	ck_assert_msg(vr.n == 0, "%s", vr.first);
	mm_sim_destroy(sim);
}
END_TEST

static Suite *kswapd_wake_nodes_suite(void)
{
	Suite *s = suite_create("kswapd_wake_nodes");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_wake_asks_nodes_with_usable_zones, 0, ARRAY_SIZE(rows));
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(kswapd_wake_nodes_suite());
}
