/* SPDX-License-Identifier: MIT */
/*
 * test_unmovable_machine.h - a buddy-only machine whose pageblocks are all
 * UNMOVABLE: one node, one CPU, one Normal zone [0, pages), no pcp, serial,
 * every boot block moved to the UNMOVABLE lists. Tests of the rules that
 * retype or steal pageblocks build their free lists on it.
 */
#ifndef TEST_UNMOVABLE_MACHINE_H
#define TEST_UNMOVABLE_MACHINE_H

#include "common.h"
#include "internal.h"

static inline struct mm_sim *unmovable_buddy_machine(unsigned int max_order,
						     unsigned int pageblock_order, uint64_t pages)
{
	struct mm_config cfg;
	struct mm_sim *sim;
	struct zone *z;

	cfg_tiny(&cfg, 1, max_order, pageblock_order);
	cfg_zone(&cfg, 0, ZONE_NORMAL, 0, pages, pages);
	sim = sim_new_buddy_only(&cfg);
	sim->serial = true;
	z = &sim->node_data[0]->node_zones[ZONE_NORMAL];
	zone_lock(z);
	for (uint64_t pfn = 0; pfn < pages; pfn += UINT64_C(1) << pageblock_order) {
		__move_freepages_block(z, pfn, MIGRATE_MOVABLE, MIGRATE_UNMOVABLE);
		set_pageblock_migratetype(sim, pfn, MIGRATE_UNMOVABLE);
	}
	zone_unlock(z);
	return sim;
}

/*
 * __rmqueue_smallest() of a block, marked allocated as prep_new_page()
 * leaves it (a head of order `order`, its tails), so that the pageblock
 * scans of the rules under test see it taken. Under zone->lock. Its pfn.
 */
static inline uint64_t take_block(struct zone *z, unsigned int order, int mt)
{
	struct page *page = __rmqueue_smallest(z, order, mt);

	ck_assert_ptr_nonnull(page);
	for (uint64_t i = 0; i < UINT64_C(1) << order; i++) {
		page[i].order = i ? 0 : (uint8_t)order;
		page[i].state = i ? PG_ALLOC_TAIL : PG_ALLOC;
	}
	return page_to_pfn(z->sim, page);
}

/* A taken block's [pfn, pfn + 2^order) back to the buddy as the free path leaves it. */
static inline void free_block(struct zone *z, uint64_t pfn, unsigned int order, int mt)
{
	struct page *page = pfn_to_page(z->sim, pfn);

	for (uint64_t i = 0; i < UINT64_C(1) << order; i++) {
		page[i].order = 0;
		page[i].state = PG_FREE_TAIL;
	}
	__free_one_page(z, pfn, order, mt, FPI_NONE);
}

#endif
