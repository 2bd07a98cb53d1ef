/* SPDX-License-Identifier: MIT */
/*
 * test_rmqueue_fallback.c - which free block __rmqueue_fallback() takes
 * when the request's own lists are empty. The kernel's rule (6.10):
 *   min   = pageblock_order if ALLOC_NOFRAGMENT and order < pageblock_order,
 *           else order; nothing at or above min: no page
 *   o     = the largest order >= min with a block of a fallback type
 *   a MOVABLE request that cannot steal at o (o < pageblock_order / 2)
 *   and o > order takes the smallest order >= order with such a block;
 *   every other request takes o.
 * test_decisions holds find_suitable_fallback() (the type and can_steal at
 * one order); this is the order walk around it.
 *
 * The machine: 128 pages, 16-page pageblocks (max_order 5), all
 * UNMOVABLE and all taken, then one UNMOVABLE block of each order up to
 * the row's largest, L, freed, each in a pageblock of its own (order 0 at
 * 16, 1 at 32, 2 at 48, 3 at 64, 4 at 80, 5 at 96), each beside a taken
 * buddy. A MOVABLE or RECLAIMABLE request (their lists are empty) then
 * takes its page from the block the rule picks: split, claimed with its
 * pageblock (the claim's __rmqueue_smallest() finds that pageblock's pages
 * only) or stolen whole.
 */
#include "test_unmovable_machine.h"

#define PB_ORDER  4
#define MAX_ORDER 5

/* The free block of each order. */
static const uint64_t block_at[MAX_ORDER + 1] = {16, 32, 48, 64, 80, 96};

/* The rule above; -1: no page. */
static int kernel_fallback_order(unsigned int largest, unsigned int order, int mt, bool nofrag)
{
	unsigned int min = nofrag && order < PB_ORDER ? PB_ORDER : order;
	/* can_steal_fallback(), as test_decisions writes it */
	bool can_steal = largest >= PB_ORDER || largest >= PB_ORDER / 2 ||
			 mt == MIGRATE_RECLAIMABLE || mt == MIGRATE_UNMOVABLE;

	if (largest < min)
		return -1;
	if (!can_steal && mt == MIGRATE_MOVABLE && largest > order)
		return (int)order; /* every order up to largest holds a block */
	return (int)largest;
}

static struct mm_sim *split_machine(unsigned int largest)
{
	struct mm_sim *sim = unmovable_buddy_machine(MAX_ORDER, PB_ORDER, 128);
	struct zone *z = &sim->node_data[0]->node_zones[ZONE_NORMAL];

	zone_lock(z);
	for (int i = 0; i < 4; i++)
		take_block(z, MAX_ORDER, MIGRATE_UNMOVABLE);
	for (unsigned int o = 0; o <= largest; o++) {
		free_block(z, block_at[o], o, MIGRATE_UNMOVABLE);
		ck_assert_uint_eq(z->free_area[o].head[MIGRATE_UNMOVABLE], block_at[o]);
	}
	zone_unlock(z);
	return sim;
}

START_TEST(test_rmqueue_fallback_order_table)
{
	static const int mts[] = {MIGRATE_MOVABLE, MIGRATE_RECLAIMABLE};
	unsigned int rows = 0;

	for (unsigned int largest = 0; largest <= MAX_ORDER; largest++)
		for (unsigned int order = 0; order <= largest; order++)
			for (size_t m = 0; m < ARRAY_SIZE(mts); m++)
				for (int nofrag = 0; nofrag < 2; nofrag++) {
					struct mm_sim *sim = split_machine(largest);
					struct zone *z =
						&sim->node_data[0]->node_zones[ZONE_NORMAL];
					int want = kernel_fallback_order(largest, order, mts[m],
									 nofrag);
					struct page *page;

					zone_lock(z);
					page = __rmqueue(z, order, mts[m],
							 nofrag ? ALLOC_NOFRAGMENT : 0);
					zone_unlock(z);
					if (want < 0) {
						ck_assert_msg(!page,
							      "L %u order %u %s nofrag %d: a "
							      "page, want none",
							      largest, order,
							      mm_migratetype_name(mts[m]), nofrag);
					} else {
						uint64_t lo = block_at[want];
						uint64_t pfn = page ? page_to_pfn(sim, page) : 0;
						ck_assert_msg(
							page && pfn >= lo &&
								pfn < lo + (UINT64_C(1) << want),
							"L %u order %u %s nofrag %d: pfn "
							"%llu, want the order-%d block "
							"at %llu",
							largest, order, mm_migratetype_name(mts[m]),
							nofrag, (unsigned long long)pfn, want,
							(unsigned long long)lo);
					}
					mm_sim_destroy(sim);
					rows++;
				}
	ck_assert_uint_eq(rows, 21 * 2 * 2);
}
END_TEST

static Suite *rmqueue_fallback_suite(void)
{
	Suite *s = suite_create("rmqueue_fallback");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_rmqueue_fallback_order_table);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(rmqueue_fallback_suite());
}
