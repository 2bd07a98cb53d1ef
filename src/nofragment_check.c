/* SPDX-License-Identifier: MIT */
/*
 * nofragment_check.c - INV-NOFRAG-RETRY: get_page_from_freelist()'s first
 * pass under ALLOC_NOFRAGMENT (6.10) is retried without it only when that
 * pass could not have succeeded. The checker restates from the free lists
 * what the no-fallback pass may take, instead of trusting the pass's own
 * answer: a block of the request's type on this CPU's pcp list (for pcp
 * orders) or on the buddy lists at the order or above, or a block of a
 * fallback type of at least a pageblock (order >= pageblock_order: any
 * order from the request's up). A zone the pass refused at its watermark
 * (the refusals INV-WMARK-REFUSED checks) could serve nothing.
 */
#include "internal.h"

/* __rmqueue_fallback()'s fallback order, restated: the types a request may steal from */
static const int nofrag_fallbacks[MIGRATE_PCPTYPES][MIGRATE_PCPTYPES - 1] = {
	[MIGRATE_UNMOVABLE] = {MIGRATE_RECLAIMABLE, MIGRATE_MOVABLE},
	[MIGRATE_MOVABLE] = {MIGRATE_RECLAIMABLE, MIGRATE_UNMOVABLE},
	[MIGRATE_RECLAIMABLE] = {MIGRATE_UNMOVABLE, MIGRATE_MOVABLE},
};

/* What the no-fallback pass could take from zone, or PFN_NIL. O(orders). */
static uint32_t nofrag_takable(struct zone *zone, unsigned int order, int mt)
{
	struct mm_sim *sim = zone->sim;
	unsigned int cpu = (unsigned int)smp_processor_id();
	unsigned int min_steal = order > sim->pageblock_order ? order : sim->pageblock_order;

	if (pcp_allowed_order(sim, order) && zone->per_cpu_pageset && cpu < sim->nr_cpus) {
		uint32_t p = zone->per_cpu_pageset[cpu].head[order * MIGRATE_PCPTYPES + mt];
		if (p != PFN_NIL)
			return p;
	}
	for (unsigned int o = order; o <= sim->max_order; o++) {
		const struct free_area *area = &zone->free_area[o];
		if (area->head[mt] != PFN_NIL)
			return area->head[mt];
		if (o < min_steal)
			continue;
		for (int i = 0; i < MIGRATE_PCPTYPES - 1; i++)
			if (area->head[nofrag_fallbacks[mt][i]] != PFN_NIL)
				return area->head[nofrag_fallbacks[mt][i]];
	}
	return PFN_NIL;
}

unsigned long _mm_check_nofrag_retry(struct mm_sim *sim, struct zone *const *zonelist,
				     int highest_zoneidx, int local_nid, unsigned int order,
				     int migratetype, const uint32_t *refused_mask)
{
	unsigned long bad = 0;

	if (migratetype < 0 || migratetype >= MIGRATE_PCPTYPES)
		return 0;
	for (struct zone *const *zp = zonelist; *zp; zp++) {
		struct zone *zone = *zp;
		if ((int)zone->type > highest_zoneidx)
			continue;
		if (zone->node != local_nid)
			break; /* the pass stops at the first remote zone */
		if (refused_mask[zone->zone_id / 32] & (1u << (zone->zone_id % 32)))
			continue;
		uint32_t pfn = nofrag_takable(zone, order, migratetype);
		if (pfn == PFN_NIL)
			continue;
		zone_report(zone, "INV-NOFRAG-RETRY", pfn, 0, 1,
			    "retry without ALLOC_NOFRAGMENT while the zone held an order >= %u "
			    "%s block the no-fallback pass could take",
			    order, mm_migratetype_name(get_pfnblock_migratetype(sim, pfn)));
		bad++;
	}
	return bad;
}
