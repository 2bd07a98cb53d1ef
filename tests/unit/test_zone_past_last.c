/* SPDX-License-Identifier: MIT */
/*
 * test_zone_past_last.c - a zone index one past the last (MAX_NR_ZONES)
 * on a machine whose zonelist is long. node_zones[MAX_NR_ZONES] is no
 * zone: past the array it lies over the node's kswapd state and its
 * zonelists, still inside the node's allocation, so ASan does not see a
 * read of it. With one zone on each of twelve nodes the zonelist's
 * pointers fill what would be that zone's managed pages and bounds, and
 * a call whose bound let the index through would take a pointer for a
 * page count and compact, report or resize garbage. On a one-node machine
 * the same bytes are NULL and a missed bound looks like an empty zone.
 * Each call and op must answer its "no" and report nothing.
 */
#include "common.h"
#include "internal.h"

#define NR_NODES 12

/* nr_nodes nodes of one CPU and one 64-page Normal zone each. */
static void nodes_config(struct mm_config *cfg, unsigned int nr_nodes)
{
	cfg_tiny(cfg, 1, 3, 2);
	cfg->nr_nodes = nr_nodes;
	for (unsigned int n = 0; n < nr_nodes; n++) {
		cfg->cpus_per_node[n] = 1;
		cfg_zone(cfg, n, ZONE_NORMAL, 64 * n, 64, 64);
	}
}

static struct mm_sim *long_zonelist_machine(void)
{
	struct mm_config cfg;
	struct mm_sim *sim;

	nodes_config(&cfg, NR_NODES);
	sim = sim_new(&cfg);
	sim->serial = true; /* compaction runs on one thread only */
	mm_set_current_cpu(0);
	return sim;
}

START_TEST(test_public_calls_refuse_zone_past_last)
{
	struct mm_sim *sim = long_zonelist_machine();
	enum zone_type past = (enum zone_type)MAX_NR_ZONES;
	struct mm_pcp_info pi;
	struct vrec vr;
	unsigned int listed = 0;

	sim_record(sim, &vr);
	while (sim->node_data[0]->zonelist[listed])
		listed++;
	ck_assert_uint_eq(listed, NR_NODES); /* the premise: every node's zone listed */
	for (int order = 0; order <= 3; order++)
		ck_assert_int_eq(mm_compact_zone(sim, 0, past, (unsigned int)order,
						 MM_COMPACT_PRIO_SYNC_FULL, MM_MIGRATE_SYNC,
						 MIGRATE_MOVABLE),
				 -1);
	ck_assert_int_eq(mm_pcp_info(sim, 0, past, 0, &pi), -1);
	ck_assert_uint_eq(mm_zone_drift_mark(sim, 0, past), 0);
	ck_assert_int_eq(mm_zone_free_diff(sim, 0, past, 0), 0);
	ck_assert_msg(vr.n == 0, "%s", vr.first);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

/* The ops that name a zone: each skips (returns 1) and changes nothing. */
START_TEST(test_ops_skip_zone_past_last)
{
	struct mm_sim *sim = long_zonelist_machine();
	struct mm_op compact = {.kind = MM_OP_COMPACT,
				.cpu = 0,
				.compact = {.node = 0,
					    .zone = MAX_NR_ZONES,
					    .order = 3,
					    .prio = MM_COMPACT_PRIO_SYNC_FULL,
					    .mode = MM_MIGRATE_SYNC,
					    .mt = MIGRATE_MOVABLE}};
	struct mm_op wake = {
		.kind = MM_OP_KSWAPD_WAKE, .cpu = 0, .vmstat = {.node = 0, .zone = MAX_NR_ZONES}};

	/* the range ops and a vmstat read name a zone too */
	struct mm_op more[] = {
		{.kind = MM_OP_OFFLINE_PAGES,
		 .range = {.start = 0, .pages = 4, .zone = MAX_NR_ZONES}},
		{.kind = MM_OP_ONLINE_PAGES,
		 .range = {.start = 0, .pages = 4, .zone = MAX_NR_ZONES}},
		{.kind = MM_OP_ALLOC_CONTIG,
		 .range = {.start = 0, .pages = 4, .zone = MAX_NR_ZONES}},
		{.kind = MM_OP_FREE_CONTIG,
		 .range = {.start = 0, .pages = 4, .zone = MAX_NR_ZONES}},
		{.kind = MM_OP_VMSTAT_READ, .vmstat = {.node = 0, .zone = MAX_NR_ZONES}},
	};
	struct vrec vr;

	sim_record(sim, &vr);
	ck_assert_int_eq(mm_apply_op(sim, &compact, NULL, 0, 0), 1);
	ck_assert_int_eq(mm_apply_op(sim, &wake, NULL, 0, 0), 1);
	for (size_t i = 0; i < ARRAY_SIZE(more); i++)
		ck_assert_msg(mm_apply_op(sim, &more[i], NULL, 0, 0) == 1, "%s ran",
			      mm_op_name(more[i].kind));
	ck_assert(!mm_kswapd_awake(sim, 0, NULL));
	ck_assert_msg(vr.n == 0, "%s", vr.first);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * A machine booted again in the same sim (as a fuzzer's next input is)
 * keeps its node buffers: the zonelist words past the new list's NULL are
 * the last boot's pointers. Booted with as many nodes as the zonelist
 * index that node_zones[MAX_NR_ZONES].zone_start_pfn overlays, that zone
 * reads start 0 and a stale pointer as its span: a range below every
 * pointer fits in it, so only the index's own bound refuses it.
 */
START_TEST(test_range_ops_skip_zone_past_last_after_reboot)
{
	size_t past = offsetof(struct pglist_data, node_zones) +
		      MAX_NR_ZONES * sizeof(struct zone) + offsetof(struct zone, zone_start_pfn);
	size_t list = offsetof(struct pglist_data, zonelist);
	struct mm_sim *sim = long_zonelist_machine();
	struct mm_config cfg;
	struct vrec vr;
	unsigned int idx;

	/* the premise: that word lies in the zonelist, with a later one to be stale */
	ck_assert_uint_ge(past, list);
	ck_assert_uint_eq((past - list) % sizeof(struct zone *), 0);
	idx = (unsigned int)((past - list) / sizeof(struct zone *));
	ck_assert_uint_ge(idx, 1);
	ck_assert_uint_lt(idx + 1, NR_NODES);

	nodes_config(&cfg, idx);
	ck_assert_int_eq(mm_sim_init(sim, &cfg, -1), 0);
	sim->serial = true;
	ck_assert_ptr_null(sim->node_data[0]->zonelist[idx]);
	ck_assert_ptr_nonnull(sim->node_data[0]->zonelist[idx + 1]);

	sim_record(sim, &vr);
	for (int kind = MM_OP_OFFLINE_PAGES; kind <= MM_OP_FREE_CONTIG; kind++) {
		struct mm_op op = {
			.kind = (enum mm_op_kind)kind,
			.range = {.node = 0, .start = 0, .pages = 4, .zone = MAX_NR_ZONES}};
		ck_assert_msg(mm_apply_op(sim, &op, NULL, 0, 0) == 1, "%s ran",
			      mm_op_name(op.kind));
	}
	ck_assert_msg(vr.n == 0, "%s", vr.first);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

static Suite *zone_past_last_suite(void)
{
	Suite *s = suite_create("zone_past_last");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_public_calls_refuse_zone_past_last);
	tcase_add_test(tc, test_ops_skip_zone_past_last);
	tcase_add_test(tc, test_range_ops_skip_zone_past_last_after_reboot);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(zone_past_last_suite());
}
