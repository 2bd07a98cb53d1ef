/* SPDX-License-Identifier: MIT */
/*
 * test_compact_thread_state.c - a compacting thread's own state (its
 * lists, and the checker's per-pageblock visit and scanner marks) covers
 * every pageblock of the machine, the partial last one included. Under
 * threads each thread's state is made at its first pass
 * (compact_state_thread()); the serial state is sized apart, so only a
 * threaded pass on a machine whose last pageblock is partial reaches the
 * last index: the free scanner starts in that block, and the pass's
 * start clears the marks of every block of the zone.
 */
#include "common.h"
#include "internal.h"

/* The LRU gives no page up: the pass isolates nothing and the scanners meet. */
static bool lru_refuses(void *arg, uint64_t pfn, uint32_t *owner, uint32_t *gen)
{
	(void)arg;
	(void)pfn;
	(void)owner;
	(void)gen;
	return false;
}

static void lru_putback(void *arg, uint64_t old_pfn, uint64_t new_pfn)
{
	(void)arg;
	(void)old_pfn;
	(void)new_pfn;
}

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
	struct mm_migrate_src src = {.isolate = lru_refuses, .putback = lru_putback};
	uint64_t pages = zone_pages[_i];
	struct mm_config cfg;
	struct mm_sim *sim;
	struct vrec vr;
	uint32_t *gens = calloc(pages, sizeof(*gens)), gen;
	bool *taken = calloc(pages, sizeof(*taken));
	long long pfn;

	ck_assert_ptr_nonnull(gens);
	ck_assert_ptr_nonnull(taken);
	cfg_tiny(&cfg, 2, 6, 5);
	cfg_zone(&cfg, 0, ZONE_NORMAL, 0, pages, pages);
	sim = sim_new(&cfg);
	sim->serial = false;
	sim_record(sim, &vr);
	mm_set_current_cpu(0);
	while ((pfn = mm_alloc_pages(sim, 0, MM_GFP_HIGHUSER_MOVABLE, 0, 7, &gen)) >= 0)
		gens[pfn] = gen, taken[pfn] = true;
	for (uint64_t p = 0; p < pages; p += 2)
		if (taken[p])
			mm_free_pages(sim, p, 0, 7, gens[p]);
	mm_set_migrate_src(sim, &src);
	int rc = mm_compact_zone(sim, 0, ZONE_NORMAL, 5, MM_COMPACT_PRIO_SYNC_FULL, MM_MIGRATE_SYNC,
				 MIGRATE_MOVABLE);
	ck_assert_msg(rc == MM_COMPACT_COMPLETE, "%llu pages: %s", (unsigned long long)pages,
		      mm_compact_result_name(rc));
	ck_assert_msg(vr.n == 0, "%s", vr.first);
	free(gens);
	free(taken);
	mm_sim_destroy(sim);
}
END_TEST

static Suite *compact_thread_state_suite(void)
{
	Suite *s = suite_create("compact_thread_state");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_thread_state_covers_partial_last_block, 0,
			    (int)ARRAY_SIZE(zone_pages));
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(compact_thread_state_suite());
}
