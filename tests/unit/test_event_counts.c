/* SPDX-License-Identifier: MIT */
/*
 * test_event_counts.c - the event counters of mm_sim_stats() (the model's
 * vmstat events: PGALLOC and allocation failures, frees, buddy splits and
 * merges, snapshot reads) equal what they count, on a sequence small
 * enough to count by hand. The bench and `mmfuzz compare` report these
 * figures; nothing else reads them, so a counter that stops counting
 * changes no check's verdict.
 *
 * The zone: pfns [0, 16), one order-4 block (max_order 4, pageblock_order
 * 4), no pcp lists, cfg_tiny's zero watermarks: an order-n request is
 * granted while the free pages exceed 2^n - 1.
 */
#include "common.h"
#include "internal.h"

#define GFP_MOV (MM_GFP_KERNEL | MM_GFP_MOVABLE)

static struct mm_sim *sixteen_pages(void)
{
	struct mm_config cfg;
	struct mm_sim *sim;

	cfg_tiny(&cfg, 1, 4, 4);
	cfg_zone(&cfg, 0, ZONE_NORMAL, 0, 16, 16);
	sim = sim_new_buddy_only(&cfg);
	mm_set_current_cpu(0);
	return sim;
}

START_TEST(test_alloc_free_split_merge_counts)
{
	struct mm_sim *sim = sixteen_pages();
	struct mm_stats before = sim_stats(sim), after;
	uint32_t gen0, gen3, gen_fail;
	long long pfn0, pfn3, failed;
	unsigned long long nr_failed = 0;

	/* order 0 from the order-4 block: 16 -> 8 + 4 + 2 + 1 + the page, 4 splits */
	pfn0 = mm_alloc_pages(sim, 0, GFP_MOV, -1, 1, &gen0);
	ck_assert_int_eq(pfn0, 0);
	/* order 3: the free order-3 half at 8, no split */
	pfn3 = mm_alloc_pages(sim, 3, GFP_MOV, -1, 2, &gen3);
	ck_assert_int_eq(pfn3, 8);
	/* order 3 again: 7 free pages, 7 <= 2^3 - 1: refused, a failure */
	failed = mm_alloc_pages(sim, 3, GFP_MOV, -1, 3, &gen_fail);
	ck_assert_int_eq(failed, -1);
	nr_failed += failed < 0;
	/* free the order-3 block: its buddy [0, 8) is not free whole, no merge */
	mm_free_pages(sim, 8, 3, 2, gen3);
	/* free page 0: merges with 1, 2-3, 4-7 and 8-15, 4 merges back to order 4 */
	mm_free_pages(sim, 0, 0, 1, gen0);

	after = sim_stats(sim);
	ck_assert_uint_eq(after.alloc_success - before.alloc_success, 2);
	ck_assert_uint_eq(after.alloc_fail - before.alloc_fail, nr_failed);
	ck_assert_uint_eq(after.frees - before.frees, 2);
	ck_assert_uint_eq(after.splits - before.splits, 4);
	ck_assert_uint_eq(after.merges - before.merges, 4);
	ck_assert_int_eq(zinfo(sim, 0, ZONE_NORMAL).nr_free[4], 1);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * The vmstat read op reads what its `how` names: only the snapshot read
 * (zone_page_state_snapshot()) counts a snapshot read, and the safe check
 * at the high mark when the estimate is below the drift mark (one CPU:
 * the high mark 0 plus a threshold of 2). With the 16 pages free it
 * reads the estimate; with every page taken and the diffs folded (an
 * estimate of 0) it pays for the snapshot.
 */
START_TEST(test_vmstat_read_counts)
{
	static const struct {
		uint8_t how;
		unsigned long long snapshots[2]; /* all free, all taken */
	} rows[] = {
		{MM_VMSTAT_READ_ESTIMATE, {0, 0}},
		{MM_VMSTAT_READ_SNAPSHOT, {1, 1}},
		{MM_VMSTAT_READ_SAFE, {0, 1}},
	};
	const unsigned int taken = (unsigned int)_i;
	struct mm_sim *sim = sixteen_pages();
	uint32_t gen;

	ck_assert_uint_eq(sim->node_data[0]->node_zones[ZONE_NORMAL].percpu_drift_mark, 2);
	if (taken) {
		struct mm_op fold = {.kind = MM_OP_VMSTAT_FOLD};

		for (int i = 0; i < 16; i++)
			ck_assert_int_ge(mm_alloc_pages(sim, 0, GFP_MOV, -1, 1, &gen), 0);
		ck_assert_int_eq(mm_apply_op(sim, &fold, NULL, 0, 0), 0);
		ck_assert_int_eq(zinfo(sim, 0, ZONE_NORMAL).nr_free_pages, 0);
	}
	for (unsigned int i = 0; i < ARRAY_SIZE(rows); i++) {
		struct mm_op op = {.kind = MM_OP_VMSTAT_READ};
		struct mm_stats before = sim_stats(sim), after;

		op.vmstat.node = 0;
		op.vmstat.zone = ZONE_NORMAL;
		op.vmstat.how = rows[i].how;
		ck_assert_int_eq(mm_apply_op(sim, &op, NULL, 0, 0), 0);
		after = sim_stats(sim);
		ck_assert_msg(after.snapshot_reads - before.snapshot_reads ==
				      rows[i].snapshots[taken],
			      "read how %u, pages taken %u: %llu snapshot reads, want %llu",
			      rows[i].how, taken, after.snapshot_reads - before.snapshot_reads,
			      rows[i].snapshots[taken]);
	}
	mm_sim_destroy(sim);
}
END_TEST

static Suite *event_counts_suite(void)
{
	Suite *s = suite_create("event_counts");
	TCase *tc = tcase_create("counts");

	tcase_add_test(tc, test_alloc_free_split_merge_counts);
	tcase_add_loop_test(tc, test_vmstat_read_counts, 0, 2);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(event_counts_suite());
}
