/* SPDX-License-Identifier: MIT */
/*
 * deferred_init.c - deferred struct page init: a node boots with only the
 * first pageblocks of its highest zone initialised; the rest come online
 * in steps (the pgdatinit threads) while allocations already run, and
 * page_alloc_init_late() finishes the job. Seed 000: the pcp batch and
 * high computed while managed_pages was partial must be recomputed then.
 */
#include "internal.h"

/* Returns the zone of node whose memmap init is deferred, or NULL. */
static struct zone *deferred_zone(struct mm_sim *sim, unsigned int node)
{
	for (int zt = MAX_NR_ZONES - 1; zt >= 0; zt--) {
		struct zone *z = &sim->node_data[node]->node_zones[zt];
		if (z->present_pages)
			return z->first_deferred_pfn <
					       z->zone_start_pfn + sim->cfg.zones[node][zt].managed
				       ? z
				       : NULL;
	}
	return NULL;
}

/*
 * models defer_init(): only the highest populated zone of each node is
 * deferred; the low zones stay whole for address-limited allocations.
 * Sets first_deferred_pfn before the memmap is laid out.
 */
void _mm_deferred_init_layout(struct mm_sim *sim)
{
	uint64_t keep = sim->cfg.deferred_init_pages;

	sim->deferred_pending = false;
	if (!keep)
		return;
	keep = (keep + (UINT64_C(1) << sim->pageblock_order) - 1) &
	       ~((UINT64_C(1) << sim->pageblock_order) - 1);
	for (unsigned int n = 0; n < sim->nr_nodes; n++) {
		for (int zt = MAX_NR_ZONES - 1; zt >= 0; zt--) {
			struct zone *z = &sim->node_data[n]->node_zones[zt];
			const struct mm_zone_config *zc = &sim->cfg.zones[n][zt];
			if (!zc->present)
				continue;
			if (keep < zc->managed) {
				z->first_deferred_pfn = zc->start_pfn + keep;
				sim->deferred_pending = true;
			}
			break;
		}
	}
}

bool mm_deferred_init_pending(const struct mm_sim *sim)
{
	return sim->deferred_pending;
}

/* models deferred_init_memmap_chunk(): the next pageblocks of one node */
unsigned long mm_deferred_init_step(struct mm_sim *sim, int node, unsigned int nr_pageblocks)
{
	struct zone *z;
	uint64_t start, end, managed_end;

	if (node < 0 || (unsigned int)node >= sim->nr_nodes)
		return 0;
	z = deferred_zone(sim, (unsigned int)node);
	if (!z)
		return 0;
	managed_end = z->zone_start_pfn + sim->cfg.zones[node][z->type].managed;
	zone_lock(z);
	start = z->first_deferred_pfn;
	end = start + ((uint64_t)nr_pageblocks << sim->pageblock_order);
	if (end > managed_end || !nr_pageblocks)
		end = managed_end;
	for (uint64_t pfn = start; pfn < end; pfn++)
		WRITE_ONCE(pfn_to_page(sim, pfn)->state, PG_FREE_TAIL);
	_mm_free_pfn_range(z, start, end);
	z->first_deferred_pfn = end;
	zone_unlock(z);
	return (unsigned long)(end - start);
}

/*
 * models page_alloc_init_late() and the watermark initcall that follows it:
 * every node fully initialised, then min_free_kbytes, the watermarks,
 * lowmem reserves and (the fix of 3e8fc0075e24) the pcp sizing recomputed
 * from the final managed pages.
 */
void page_alloc_init_late(struct mm_sim *sim)
{
	mutex_lock(&sim->hotplug_lock);
	sim->deferred_pending = false;
	if (!sim->user_min_free_kbytes)
		sim->min_free_kbytes = calculate_min_free_kbytes(sim);
	__setup_per_zone_wmarks(sim);
	refresh_zone_stat_thresholds(sim);
	setup_per_zone_lowmem_reserve(sim);
	if (!sim->policy.pcp_no_recalc_after_deferred_init)
		for_each_zone(sim, z)
			if (populated_zone(z))
				zone_pcp_update(z, 0);
	mutex_unlock(&sim->hotplug_lock);
}

unsigned long mm_deferred_init_complete(struct mm_sim *sim)
{
	unsigned long pages = 0;

	if (!sim->deferred_pending)
		return 0;
	for (unsigned int n = 0; n < sim->nr_nodes; n++)
		pages += mm_deferred_init_step(sim, (int)n, 0);
	page_alloc_init_late(sim);
	return pages;
}

int _mm_op_deferred_step(struct mm_op_ctx *ctx, const struct mm_op *op)
{
	return mm_deferred_init_step(ctx->sim, op->pcp.node, op->pcp.pageblocks) ? 0 : 1;
}

int _mm_op_deferred_complete(struct mm_op_ctx *ctx, const struct mm_op *op)
{
	(void)op;
	if (!mm_deferred_init_pending(ctx->sim))
		return 1;
	mm_deferred_init_complete(ctx->sim);
	_mm_check_sizing(ctx->sim);
	return 0;
}
