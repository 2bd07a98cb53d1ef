/* SPDX-License-Identifier: MIT */
/*
 * test_compact_defer_table.c - which compaction results defer the zone,
 * direct compaction's first and kcompactd's below. try_to_compact_pages()
 * (6.10) calls defer_compaction() after a zone's pass that is not async
 * and ended COMPACT_COMPLETE or COMPACT_PARTIAL_SKIPPED (the scanners
 * met, no page came free), and
 * for no other result: not for a zone too short of free pages to try
 * (SKIPPED), not for a success, never at the async priority.
 * defer_compaction() restarts the considered count and raises the defer
 * shift by one. A success instead resets the deferral for its order
 * (compaction_defer_reset(zone, order, false)): compact_order_failed
 * becomes order + 1 if it was at or below the order. The grid crosses
 * the three priorities with the four results a pass can end in here,
 * each result built by its zone's shape and the cached migration pfn,
 * and checked as the premise of its row.
 */
#include "test_taken_zone.h"

enum shape {
	FRAGMENTED, /* every other page free: suitable, no order-3 block */
	SHORT,	    /* 8 free pages: below compact_gap(3) = 16, not suitable */
	FREE_BLOCK, /* as FRAGMENTED, and one free order-3 block */
};

static const struct {
	int prio;
	enum shape shape;
	bool partial; /* the cached migration pfn mid-zone: not a whole-zone pass */
	int result;
} defer_rows[] = {
	{MM_COMPACT_PRIO_ASYNC, FRAGMENTED, false, MM_COMPACT_COMPLETE},
	{MM_COMPACT_PRIO_ASYNC, FRAGMENTED, true, MM_COMPACT_PARTIAL_SKIPPED},
	{MM_COMPACT_PRIO_ASYNC, SHORT, false, MM_COMPACT_SKIPPED},
	{MM_COMPACT_PRIO_ASYNC, FREE_BLOCK, false, MM_COMPACT_SUCCESS},
	{MM_COMPACT_PRIO_SYNC_LIGHT, FRAGMENTED, false, MM_COMPACT_COMPLETE},
	{MM_COMPACT_PRIO_SYNC_LIGHT, FRAGMENTED, true, MM_COMPACT_PARTIAL_SKIPPED},
	{MM_COMPACT_PRIO_SYNC_LIGHT, SHORT, false, MM_COMPACT_SKIPPED},
	{MM_COMPACT_PRIO_SYNC_LIGHT, FREE_BLOCK, false, MM_COMPACT_SUCCESS},
	{MM_COMPACT_PRIO_SYNC_FULL, FRAGMENTED, false, MM_COMPACT_COMPLETE},
	{MM_COMPACT_PRIO_SYNC_FULL, SHORT, false, MM_COMPACT_SKIPPED},
	{MM_COMPACT_PRIO_SYNC_FULL, FREE_BLOCK, false, MM_COMPACT_SUCCESS},
};

/* The kernel's rule, as try_to_compact_pages() reads. */
static bool kernel_defers(int prio, int result)
{
	return prio != MM_COMPACT_PRIO_ASYNC &&
	       (result == MM_COMPACT_COMPLETE || result == MM_COMPACT_PARTIAL_SKIPPED);
}

/*
 * 1 node, 1 CPU, a Normal zone of 256 pages in pageblocks of 32, serial,
 * every page taken by an order-0 movable allocation, then the shape's
 * pages freed. Serial compaction migrates through the executor's handles,
 * and there are none here: every isolated page fails to migrate, so a
 * pass that starts ends when the scanners meet.
 */
START_TEST(test_defer_after_result)
{
	int prio = defer_rows[_i].prio;
	enum shape shape = defer_rows[_i].shape;
	struct vrec vr;
	struct taken_zone t = taken_zone(1, 256, shape == SHORT ? 32 : 2, true, &vr);
	struct mm_sim *sim = t.sim;
	struct zone *z = t.zone;

	if (shape == FREE_BLOCK)
		for (uint64_t p = 129; p < 136; p += 2)
			taken_free(&t, p);
	mm_drain_all_pages(sim);
	if (defer_rows[_i].partial) {
		z->compact_cached_migrate_pfn[0] = z->compact_cached_migrate_pfn[1] = 128;
		z->compact_init_migrate_pfn = 0;
	}
	z->compact_defer_shift = 0;
	z->compact_considered = 0;
	z->compact_order_failed = 0;

	int rc = mm_compact_zone(sim, 0, ZONE_NORMAL, 3, prio,
				 prio == MM_COMPACT_PRIO_ASYNC ? MM_MIGRATE_ASYNC
							       : MM_MIGRATE_SYNC_LIGHT,
				 MIGRATE_MOVABLE);
	ck_assert_msg(rc == defer_rows[_i].result, "row %d: %s, want %s", _i,
		      mm_compact_result_name(rc), mm_compact_result_name(defer_rows[_i].result));
	bool defers = kernel_defers(prio, rc);
	ck_assert_msg(z->compact_defer_shift == (defers ? 1u : 0u),
		      "priority %d, %s: defer shift %u", prio, mm_compact_result_name(rc),
		      z->compact_defer_shift);
	if (defers) {
		ck_assert_uint_eq(z->compact_considered, 0);
		ck_assert_int_eq(z->compact_order_failed, 0); /* already below order 3 */
	}
	/* a success resets the deferral for its order: compact_order_failed 3 + 1 */
	ck_assert_msg(z->compact_order_failed == (rc == MM_COMPACT_SUCCESS ? 4 : 0),
		      "priority %d, %s: compact_order_failed %d", prio, mm_compact_result_name(rc),
		      z->compact_order_failed);
	ck_assert_msg(vr.n == 0, "%s", vr.first);
	taken_zone_destroy(&t);
}
END_TEST

/*
 * kcompactd_do_work() (6.10) compacts a zone that fails the order's min
 * mark and is suitable, always in sync-light mode; after a pass that ended
 * COMPACT_COMPLETE or COMPACT_PARTIAL_SKIPPED it drains the pcp lists and
 * defers the zone, after a success it resets the deferral. A zone it
 * passes over keeps both. The zone as above (the whole-zone and the
 * mid-zone FRAGMENTED rows end COMPLETE and PARTIAL_SKIPPED, as the direct
 * rows show), and one page freed onto CPU 0's pcp list after the drain.
 */
static const struct {
	enum shape shape;
	bool partial;
	bool compacts; /* the zone fails the min mark at order 3 and is suitable */
} kcompactd_rows[] = {
	{FRAGMENTED, false, true},
	{FRAGMENTED, true, true},
	{SHORT, false, false},
	{FREE_BLOCK, false, false},
};

START_TEST(test_kcompactd_defer_after_result)
{
	enum shape shape = kcompactd_rows[_i].shape;
	struct vrec vr;
	struct taken_zone t = taken_zone(1, 256, shape == SHORT ? 32 : 2, true, &vr);
	struct mm_sim *sim = t.sim;
	struct zone *z = t.zone;
	struct mm_compact_stats before, after;

	if (shape == FREE_BLOCK)
		for (uint64_t p = 129; p < 136; p += 2)
			taken_free(&t, p);
	mm_drain_all_pages(sim);
	taken_free(&t, 255);
	ck_assert_int_eq(pcpinfo(sim, 0, ZONE_NORMAL, 0).count, 1);
	if (kcompactd_rows[_i].partial) {
		z->compact_cached_migrate_pfn[0] = z->compact_cached_migrate_pfn[1] = 128;
		z->compact_init_migrate_pfn = 0;
	}
	z->compact_defer_shift = 0;
	z->compact_considered = 0;
	z->compact_order_failed = 0;
	mm_sim_compact_stats(sim, &before);

	ck_assert_int_eq(mm_kcompactd_step(sim, 0, 3), 0);
	mm_sim_compact_stats(sim, &after);
	bool compacts = kcompactd_rows[_i].compacts;
	ck_assert_msg(after.compact_passes - before.compact_passes == (compacts ? 1u : 0u),
		      "row %d: %llu passes", _i, after.compact_passes - before.compact_passes);
	ck_assert_msg(z->compact_defer_shift == (compacts ? 1u : 0u) &&
			      pcpinfo(sim, 0, ZONE_NORMAL, 0).count == (compacts ? 0 : 1),
		      "row %d: defer shift %u, pcp count %d", _i, z->compact_defer_shift,
		      pcpinfo(sim, 0, ZONE_NORMAL, 0).count);
	ck_assert_msg(vr.n == 0, "%s", vr.first);
	taken_zone_destroy(&t);
}
END_TEST

static Suite *compact_defer_table_suite(void)
{
	Suite *s = suite_create("compact_defer_table");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_defer_after_result, 0, (int)ARRAY_SIZE(defer_rows));
	tcase_add_loop_test(tc, test_kcompactd_defer_after_result, 0,
			    (int)ARRAY_SIZE(kcompactd_rows));
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(compact_defer_table_suite());
}
