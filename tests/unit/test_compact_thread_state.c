/* SPDX-License-Identifier: MIT */
/*
 * test_compact_thread_state.c - a compacting thread's own state (its
 * lists, and the checker's per-pageblock visit and scanner marks) covers
 * every pageblock of the machine, the partial last one included. Under
 * threads each thread's state is made at its first pass
 * (compact_state_thread()); the serial state is sized apart, so only a
 * threaded pass on a machine whose last pageblock is partial reaches the
 * last index: the free scanner starts in that block, and the pass's
 * start clears the marks of every block of the zone. And what a threaded
 * pass checks that the serial one checks otherwise: a migrated page's
 * stamp against the LRU's record rather than the handle, and a fast-found
 * block left unscanned, excused only by other passes' skip bits set since
 * the find.
 */
#include "test_taken_zone.h"

/*
 * 1 node, 2 CPUs, pageblocks of 32 and Normal zones of 1,025 and 1,055
 * pages (the last block one page and 31 pages; 1,024 for contrast), not
 * serial; every other page free (and the few the watermark kept). A
 * whole-zone pass of order 5 from this thread must scan the zone, report
 * nothing and complete.
 */
static const uint64_t zone_pages[] = {1025, 1055, 1024};

START_TEST(test_thread_state_covers_partial_last_block)
{
	uint64_t pages = zone_pages[_i];
	struct vrec vr;
	struct taken_zone t = taken_zone(2, pages, 2, false, &vr);

	mm_set_migrate_src(t.sim, &lru_refusing);
	int rc = mm_compact_zone(t.sim, 0, ZONE_NORMAL, 5, MM_COMPACT_PRIO_SYNC_FULL,
				 MM_MIGRATE_SYNC, MIGRATE_MOVABLE);
	ck_assert_msg(rc == MM_COMPACT_COMPLETE, "%llu pages: %s", (unsigned long long)pages,
		      mm_compact_result_name(rc));
	ck_assert_msg(vr.n == 0, "%s", vr.first);
	taken_zone_destroy(&t);
}
END_TEST

/*
 * mm_set_migrate_src(NULL) unsets the run's LRU: a thread then does not
 * compact (mmcore.h), as before any was set. The same zone that a pass
 * completes with the source set is passed over once it is unset: no pass
 * runs and no stat moves.
 */
START_TEST(test_unset_source_stops_threaded_compaction)
{
	struct vrec vr;
	struct taken_zone t = taken_zone(2, 1024, 2, false, &vr);
	struct mm_compact_stats before, after;

	mm_set_migrate_src(t.sim, &lru_refusing);
	mm_set_migrate_src(t.sim, NULL);
	mm_sim_compact_stats(t.sim, &before);
	int rc = mm_compact_zone(t.sim, 0, ZONE_NORMAL, 5, MM_COMPACT_PRIO_SYNC_FULL,
				 MM_MIGRATE_SYNC, MIGRATE_MOVABLE);
	mm_sim_compact_stats(t.sim, &after);
	ck_assert_msg(rc != MM_COMPACT_COMPLETE, "%s", mm_compact_result_name(rc));
	ck_assert_uint_eq(after.compact_passes, before.compact_passes);
	ck_assert_msg(vr.n == 0, "%s", vr.first);
	taken_zone_destroy(&t);
}
END_TEST

/*
 * With an LRU lent, a thread compacts, but the fill pool stays the
 * executor's: under threads the fill and free_pattern ops are skips even
 * where compaction is possible (the workers allocate), and nothing is
 * filled.
 */
START_TEST(test_fill_ops_skip_under_threads_with_a_source)
{
	const struct mm_op ops[] = {
		{.kind = MM_OP_FILL, .fill = {.node = -1, .zone = ZONE_NORMAL, .pages = 4}},
		{.kind = MM_OP_FREE_PATTERN, .pattern = {.every = 1}},
	};
	struct vrec vr;
	struct taken_zone t = taken_zone(2, 1024, 2, false, &vr);

	mm_set_migrate_src(t.sim, &lru_refusing);
	ck_assert(compaction_possible(t.sim));
	for (size_t i = 0; i < ARRAY_SIZE(ops); i++)
		ck_assert_int_eq(mm_apply_op(t.sim, &ops[i], NULL, 0, 0), 1);
	ck_assert_uint_eq(mm_fill_live(t.sim), 0);
	ck_assert_msg(vr.n == 0, "%s", vr.first);
	taken_zone_destroy(&t);
}
END_TEST

/*
 * An LRU that gives up every page the test holds, telling the owner and
 * generation it recorded at allocation: the ground truth a threaded
 * migration checks its target against (compact_check_migrated()).
 */
static bool lru_gives_held(void *arg, uint64_t pfn, uint32_t *owner, uint32_t *gen)
{
	struct taken_zone *t = arg;

	if (!t->held[pfn])
		return false;
	*owner = 7;
	*gen = t->gen[pfn];
	return true;
}

static void lru_moves_held(void *arg, uint64_t old_pfn, uint64_t new_pfn)
{
	struct taken_zone *t = arg;

	if (old_pfn == new_pfn)
		return;
	t->held[new_pfn] = true, t->gen[new_pfn] = t->gen[old_pfn];
	t->held[old_pfn] = false;
}

/*
 * A threaded pass migrates pages the LRU lends, and each target must hold
 * the stamp the LRU recorded: clean with the contents copied, and
 * INV-COMPACT-MIGRATE-STAMP with the variant that drops them. The serial
 * path checks against the handle; this is the only check threads have.
 */
START_TEST(test_threaded_migration_checks_the_stamp)
{
	bool drops = _i;
	struct vrec vr;
	struct taken_zone t = taken_zone(2, 1024, 2, false, &vr);
	struct mm_compact_stats st;

	if (drops)
		_mm_policy_apply_variant(&t.sim->policy,
					 mm_variant_lookup("compaction-migrate-drops-contents"));
	mm_set_migrate_src(t.sim, &(struct mm_migrate_src){.isolate = lru_gives_held,
							   .putback = lru_moves_held,
							   .arg = &t});
	mm_compact_zone(t.sim, 0, ZONE_NORMAL, 5, MM_COMPACT_PRIO_SYNC_FULL, MM_MIGRATE_SYNC,
			MIGRATE_MOVABLE);
	mm_sim_compact_stats(t.sim, &st);
	ck_assert_uint_gt(st.pgmigrate_success, 0);
	if (drops)
		ck_assert_msg(vrec_has(&vr, "INV-COMPACT-MIGRATE-STAMP"), "%u reports: %s", vr.n,
			      vr.first);
	else
		ck_assert_msg(vr.n == 0, "%s", vr.first);
	taken_zone_destroy(&t);
}
END_TEST

/*
 * The same LRU, but the zone's first block gives nothing: the pass's first
 * round (which finishes that block, as last_migrated_pfn 0 lies in it)
 * isolates nothing there, and the next round starts at the fast search.
 */
static bool lru_gives_held_past_first_block(void *arg, uint64_t pfn, uint32_t *owner, uint32_t *gen)
{
	return pfn >= 32 && lru_gives_held(arg, pfn, owner, gen);
}

static void *set_skip_elsewhere(void *arg)
{
	struct taken_zone *t = arg;

	set_pageblock_skip(t->sim, t->pages - 32); /* the zone's last block */
	return NULL;
}

/*
 * Under threads, INV-COMPACT-FASTFIND-UNSCANNED is excused when another
 * pass set a skip bit after fast_find_migrateblock() returned its block,
 * and the count of other passes' sets starts where fast_find read it. A
 * free order-3 block in the lower half of the zone gives an order-5 pass
 * its fast-found block, which the variant compaction-fast-find-marks-skip
 * marks: the pass must report, also when another thread set a bit before
 * the pass began (_i 2), which tells nothing of the block. Without the
 * variant the pass runs clean.
 */
START_TEST(test_threaded_fast_find_counts_sets_from_its_find)
{
	struct vrec vr;
	struct taken_zone t = taken_zone(2, 1024, 2, false, &vr);
	pthread_t tid;

	for (uint64_t p = 64; p < 72; p++)
		taken_free(&t, p);
	mm_drain_all_pages(t.sim);
	if (_i)
		_mm_policy_apply_variant(&t.sim->policy,
					 mm_variant_lookup("compaction-fast-find-marks-skip"));
	if (_i == 2) {
		ck_assert_int_eq(pthread_create(&tid, NULL, set_skip_elsewhere, &t), 0);
		pthread_join(tid, NULL);
	}
	mm_set_migrate_src(t.sim,
			   &(struct mm_migrate_src){.isolate = lru_gives_held_past_first_block,
						    .putback = lru_moves_held,
						    .arg = &t});
	mm_compact_zone(t.sim, 0, ZONE_NORMAL, 5, MM_COMPACT_PRIO_SYNC_LIGHT, MM_MIGRATE_SYNC_LIGHT,
			MIGRATE_MOVABLE);
	if (_i)
		ck_assert_msg(vrec_has(&vr, "INV-COMPACT-FASTFIND-UNSCANNED"), "%u reports: %s",
			      vr.n, vr.first);
	else
		ck_assert_msg(vr.n == 0, "%s", vr.first);
	taken_zone_destroy(&t);
}
END_TEST

/*
 * Another CPU retypes the block fast_find_migrateblock() returned, right
 * after the search lets zone->lock go (the jitter point of its unlock: the
 * order-3 list's head moved, as the search rotates the list past what it
 * looked at). The block is the one at the migration pfn, so
 * isolate_migratepages() tests it as any other, and async direct
 * compaction's suitable_migration_source() refuses it unscanned: a race,
 * not the pass's fault, which the checker cannot judge. Two free order-3
 * blocks in pageblock 32 give the search its find; the first round marks
 * block 0 and stops at 32.
 */
struct retype_after_find {
	struct mm_sim *sim;
	uint32_t head;
	bool done;
};

static void retype_when_the_head_moves(void *arg)
{
	struct retype_after_find *r = arg;
	const struct free_area *area = &r->sim->node_data[0]->node_zones[ZONE_NORMAL].free_area[3];

	if (r->done || READ_ONCE(area->head[MIGRATE_MOVABLE]) == r->head)
		return;
	set_pageblock_migratetype(r->sim, 32, MIGRATE_UNMOVABLE);
	r->done = true;
}

START_TEST(test_threaded_fast_find_at_the_migrate_pfn_retyped)
{
	struct vrec vr;
	struct taken_zone t = taken_zone(2, 1024, 2, false, &vr);
	struct retype_after_find r = {.sim = t.sim};

	for (uint64_t p = 32; p < 56; p++)
		if (p < 40 || p >= 48)
			taken_free(&t, p);
	mm_drain_all_pages(t.sim);
	ck_assert_uint_eq(t.zone->free_area[3].nr_free, 2);
	r.head = t.zone->free_area[3].head[MIGRATE_MOVABLE];
	mm_set_migrate_src(t.sim, &lru_refusing);
	mm_set_jitter(t.sim, retype_when_the_head_moves, &r);
	mm_compact_zone(t.sim, 0, ZONE_NORMAL, 5, MM_COMPACT_PRIO_ASYNC, MM_MIGRATE_ASYNC,
			MIGRATE_MOVABLE);
	mm_set_jitter(t.sim, NULL, NULL);
	ck_assert(r.done);
	set_pageblock_migratetype(t.sim, 32, MIGRATE_MOVABLE);
	ck_assert_msg(vr.n == 0, "%s", vr.first);
	taken_zone_destroy(&t);
}
END_TEST

static Suite *compact_thread_state_suite(void)
{
	Suite *s = suite_create("compact_thread_state");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_thread_state_covers_partial_last_block, 0,
			    (int)ARRAY_SIZE(zone_pages));
	tcase_add_test(tc, test_unset_source_stops_threaded_compaction);
	tcase_add_test(tc, test_fill_ops_skip_under_threads_with_a_source);
	tcase_add_loop_test(tc, test_threaded_migration_checks_the_stamp, 0, 2);
	tcase_add_loop_test(tc, test_threaded_fast_find_counts_sets_from_its_find, 0, 3);
	tcase_add_test(tc, test_threaded_fast_find_at_the_migrate_pfn_retyped);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(compact_thread_state_suite());
}
