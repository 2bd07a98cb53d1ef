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

/* Twelve nodes of one CPU and one 64-page Normal zone each. */
static struct mm_sim *long_zonelist_machine(void)
{
	struct mm_config cfg;
	struct mm_sim *sim;

	cfg_tiny(&cfg, 1, 3, 2);
	cfg.nr_nodes = NR_NODES;
	for (unsigned int n = 0; n < NR_NODES; n++) {
		cfg.cpus_per_node[n] = 1;
		cfg_zone(&cfg, n, ZONE_NORMAL, 64 * n, 64, 64);
	}
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

static Suite *zone_past_last_suite(void)
{
	Suite *s = suite_create("zone_past_last");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_public_calls_refuse_zone_past_last);
	tcase_add_test(tc, test_ops_skip_zone_past_last);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(zone_past_last_suite());
}
