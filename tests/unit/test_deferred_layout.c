/* SPDX-License-Identifier: MIT */
/*
 * test_deferred_layout.c - which pages deferred struct page init leaves
 * for later, over the grid of what a node keeps at boot against what its
 * highest zone manages. defer_init() (mm/mm_init.c) defers only when
 * there is memory past what boot initialises: the model keeps
 * deferred_init_pages rounded up to a pageblock, so with
 *
 *   k = roundup(deferred_init_pages, pageblock_nr_pages)
 *
 * the highest populated zone of each node is deferred iff
 * deferred_init_pages != 0 and k < its managed pages M; it then boots
 * with k managed and the pgdatinit steps bring in the other M - k, the
 * lower zones boot whole. A keep that covers the zone defers nothing:
 * no deferred init is pending and completing it initialises no page.
 * Once nothing is left, a step finds no zone to work on and takes no
 * zone->lock (the lock's acquisitions are a figure the seeds judge).
 */
#include "common.h"
#include "internal.h"

#define PB 512 /* pageblock_order 9 */

/* One node, 2 CPUs: DMA32 of 1024 pages, then Normal of managed pages. */
static struct mm_sim *layout_sim(uint64_t managed, uint64_t keep)
{
	struct mm_config cfg;

	cfg_tiny(&cfg, 2, 10, 9);
	cfg_zone(&cfg, 0, ZONE_DMA32, 0, 1024, 1024);
	cfg_zone(&cfg, 0, ZONE_NORMAL, 1024, managed, managed);
	cfg.deferred_init_pages = keep;
	return sim_new(&cfg);
}

START_TEST(test_deferred_layout_grid)
{
	static const uint64_t zones[] = {PB, 2 * PB, 3 * PB};

	for (size_t z = 0; z < ARRAY_SIZE(zones); z++) {
		uint64_t m = zones[z];
		const uint64_t keeps[] = {0, 1,	    m - PB, m - PB + 1, m - 1,
					  m, m + 1, m + PB, m + PB + 1};

		for (size_t i = 0; i < ARRAY_SIZE(keeps); i++) {
			uint64_t keep = keeps[i], k = (keep + PB - 1) / PB * PB;
			bool deferred = keep && k < m;
			uint64_t boot = deferred ? k : m, later = m - boot;
			uint64_t first = later < PB ? later : PB;
			struct mm_sim *sim = layout_sim(m, keep);
			unsigned long long locks;

			ck_assert_msg(mm_deferred_init_pending(sim) == deferred,
				      "Normal %llu, keep %llu: pending %d, want %d",
				      (unsigned long long)m, (unsigned long long)keep,
				      mm_deferred_init_pending(sim), deferred);
			ck_assert_msg(zinfo(sim, 0, ZONE_NORMAL).managed == boot,
				      "Normal %llu, keep %llu: boots with %llu managed, want %llu",
				      (unsigned long long)m, (unsigned long long)keep,
				      (unsigned long long)zinfo(sim, 0, ZONE_NORMAL).managed,
				      (unsigned long long)boot);
			ck_assert_uint_eq(zinfo(sim, 0, ZONE_DMA32).managed, 1024);
			/* one pgdatinit step of a pageblock, then the rest at init_late */
			ck_assert_uint_eq(mm_deferred_init_step(sim, 0, 1), first);
			ck_assert_uint_eq(mm_deferred_init_complete(sim),
					  deferred ? later - first : 0);
			ck_assert(!mm_deferred_init_pending(sim));
			ck_assert_uint_eq(zinfo(sim, 0, ZONE_NORMAL).managed, m);
			/* a step with nothing left does nothing, not even take zone->lock */
			locks = sim_stats(sim).zone_lock_acquisitions;
			ck_assert_uint_eq(mm_deferred_init_step(sim, 0, 1), 0);
			ck_assert_uint_eq(sim_stats(sim).zone_lock_acquisitions, locks);
			ck_assert_uint_eq(mm_check_full(sim), 0);
			mm_sim_destroy(sim);
		}
	}
}
END_TEST

/*
 * Two nodes, the second with a ZONE_DMA of its own: each node defers its
 * own highest zone. The walk down from a node's last zone must not begin
 * past its zones, where the next node's first row lies.
 */
START_TEST(test_deferred_layout_second_node_dma)
{
	struct mm_config cfg;
	struct mm_sim *sim;

	cfg_tiny(&cfg, 1, 10, 9);
	cfg.nr_nodes = 2;
	cfg.cpus_per_node[1] = 1;
	cfg_zone(&cfg, 0, ZONE_DMA32, 0, 1024, 1024);
	cfg_zone(&cfg, 0, ZONE_NORMAL, 1024, 3 * PB, 3 * PB);
	cfg_zone(&cfg, 1, ZONE_DMA, 1024 + 3 * PB, PB, PB);
	cfg_zone(&cfg, 1, ZONE_NORMAL, 1024 + 4 * PB, 3 * PB, 3 * PB);
	cfg.deferred_init_pages = PB;
	sim = sim_new(&cfg);

	ck_assert(mm_deferred_init_pending(sim));
	ck_assert_uint_eq(zinfo(sim, 0, ZONE_DMA32).managed, 1024);
	ck_assert_uint_eq(zinfo(sim, 0, ZONE_NORMAL).managed, PB);
	ck_assert_uint_eq(zinfo(sim, 1, ZONE_DMA).managed, PB);
	ck_assert_uint_eq(zinfo(sim, 1, ZONE_NORMAL).managed, PB);
	ck_assert_uint_eq(mm_deferred_init_step(sim, 0, 1), PB);
	ck_assert_uint_eq(mm_deferred_init_step(sim, 1, 1), PB);
	ck_assert_uint_eq(mm_deferred_init_complete(sim), 2 * PB);
	ck_assert_uint_eq(zinfo(sim, 0, ZONE_NORMAL).managed, 3 * PB);
	ck_assert_uint_eq(zinfo(sim, 1, ZONE_NORMAL).managed, 3 * PB);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * The highest populated zone of a node is the one deferred, whichever type
 * it is; a zone below it boots whole. The walks down reach both ends of
 * the types: ZONE_MOVABLE above Normal (movablecore=), the last type there
 * is, and ZONE_DMA alone, the first.
 */
START_TEST(test_deferred_layout_highest_type)
{
	static const struct {
		int below; /* a whole zone of 2 pageblocks under the top one; -1: none */
		enum zone_type top;
	} rows[] = {{ZONE_NORMAL, ZONE_MOVABLE}, {-1, ZONE_DMA}};
	enum zone_type top = rows[_i].top;
	struct mm_config cfg;
	struct mm_sim *sim;
	uint64_t start = 0;

	cfg_tiny(&cfg, 1, 10, 9);
	if (rows[_i].below >= 0) {
		cfg_zone(&cfg, 0, (enum zone_type)rows[_i].below, 0, 2 * PB, 2 * PB);
		start = 2 * PB;
	}
	cfg_zone(&cfg, 0, top, start, 3 * PB, 3 * PB);
	cfg.deferred_init_pages = PB;
	sim = sim_new(&cfg);

	ck_assert(mm_deferred_init_pending(sim));
	if (rows[_i].below >= 0)
		ck_assert_uint_eq(zinfo(sim, 0, (enum zone_type)rows[_i].below).managed, 2 * PB);
	ck_assert_uint_eq(zinfo(sim, 0, top).managed, PB);
	ck_assert_uint_eq(mm_deferred_init_step(sim, 0, 1), PB);
	ck_assert_uint_eq(zinfo(sim, 0, top).managed, 2 * PB);
	ck_assert_uint_eq(mm_deferred_init_complete(sim), PB);
	ck_assert_uint_eq(zinfo(sim, 0, top).managed, 3 * PB);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

static Suite *deferred_layout_suite(void)
{
	Suite *s = suite_create("deferred_layout");
	TCase *tc = tcase_create("layout");

	tcase_add_test(tc, test_deferred_layout_grid);
	tcase_add_test(tc, test_deferred_layout_second_node_dma);
	tcase_add_loop_test(tc, test_deferred_layout_highest_type, 0, 2);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(deferred_layout_suite());
}
