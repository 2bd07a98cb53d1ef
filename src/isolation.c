/* SPDX-License-Identifier: MIT */
/*
 * isolation.c - page isolation and memory offlining, modelled on Linux
 * 6.10: mm/page_isolation.c (start_isolate_page_range(),
 * set_migratetype_isolate(), has_unmovable_pages(),
 * undo_isolate_page_range(), unset_migratetype_isolate(),
 * test_pages_isolated()) and mm/memory_hotplug.c (offline_pages(),
 * online_pages(), do_migrate_range()), with __offline_isolated_pages(),
 * alloc_contig_range() and free_contig_range() of mm/page_alloc.c. A range
 * is whole pageblocks of one zone: the model's memory block (and a
 * contiguous allocation of whole pageblocks, as CMA makes).
 *
 * Left out: the zone span does not shrink (remove_pfn_range_from_zone()),
 * a zone is not offlined whole (zone_pcp_reset()), totalram_pages and
 * what follows it (vm_committed_as's batch) stay, and HIGHATOMIC blocks
 * count as unmovable, so nr_reserved_highatomic never covers an isolated
 * block.
 *
 * The checks that follow each op are at the end: their expectations come
 * from the checker's own walk of the memmap before the op.
 */
#include "internal.h"

#define EBUSY  16
#define ENOMEM 12
#define EINVAL 22

/* The checker's: the range before isolation, after the drain. */
struct isolate_snapshot {
	long nr_free_exact; /* the zone's exact NR_FREE_PAGES */
	long range_free;    /* pages of the range in free buddy blocks */
	long pcp_outside;   /* pages on pcp lists outside the range, counted free once drained */
	long pcp_inside;    /* pages on pcp lists in the range: isolated once drained */
};

/* An allocated page of alloc_contig_range(): no handle reaches it. */
#define OWNER_CONTIG 0x7ffffffeu

static uint64_t pb_pages(const struct mm_sim *sim)
{
	return UINT64_C(1) << sim->pageblock_order;
}

/* ------------------------------------------------------------------------
 * Isolation (mm/page_isolation.c)
 * ---------------------------------------------------------------------- */

/* models has_unmovable_pages() with MEMORY_OFFLINE: the first page that cannot move */
static bool has_unmovable_pages(struct zone *zone, uint64_t start, uint64_t end)
{
	struct mm_sim *sim = zone->sim;

	for (uint64_t pfn = start; pfn < end; pfn++) {
		const struct page *page = pfn_to_page(sim, pfn);
		int state = READ_ONCE(page->state);

		if (state == PG_RESERVED || state == PG_UNINIT || state == PG_NOZONE)
			return true;
		if (zone->type == ZONE_MOVABLE)
			continue;
		if (state == PG_ALLOC && READ_ONCE(page->alloc_mt) != MIGRATE_MOVABLE)
			return true;
	}
	return false;
}

/* models set_migratetype_isolate() */
static int set_migratetype_isolate(struct zone *zone, uint64_t pfn)
{
	struct mm_sim *sim = zone->sim;
	int mt, ret = -EBUSY;

	zone_lock(zone);
	mt = get_pfnblock_migratetype(sim, pfn);
	/* The model's simplification: a HIGHATOMIC block stays reserved (file header). */
	if (mt != MIGRATE_ISOLATE && mt != MIGRATE_HIGHATOMIC &&
	    !has_unmovable_pages(zone, pfn, pfn + pb_pages(sim))) {
		move_freepages_block_isolate(zone, pfn, MIGRATE_ISOLATE);
		ret = 0;
	}
	zone_unlock(zone);
	return ret;
}

/* models unset_migratetype_isolate() */
static void unset_migratetype_isolate(struct zone *zone, uint64_t pfn, int mt)
{
	zone_lock(zone);
	if (get_pfnblock_migratetype(zone->sim, pfn) == MIGRATE_ISOLATE) {
		move_freepages_block_isolate(zone, pfn, mt);
		putback_pageblock_buddy(zone, pfn);
	}
	zone_unlock(zone);
}

/* models undo_isolate_page_range() */
static void undo_isolate_page_range(struct zone *zone, uint64_t start, uint64_t end, int mt)
{
	for (uint64_t pfn = start; pfn < end; pfn += pb_pages(zone->sim))
		unset_migratetype_isolate(zone, pfn, mt);
}

/* models start_isolate_page_range(): all or nothing; *failed: where it stopped */
static int start_isolate_page_range(struct zone *zone, uint64_t start, uint64_t end,
				    uint64_t *failed)
{
	for (uint64_t pfn = start; pfn < end; pfn += pb_pages(zone->sim)) {
		if (set_migratetype_isolate(zone, pfn)) {
			undo_isolate_page_range(zone, start, pfn, MIGRATE_MOVABLE);
			*failed = pfn;
			return -EBUSY;
		}
	}
	return 0;
}

/* models test_pages_isolated(): every page of the range free in an isolated block */
int test_pages_isolated(struct zone *zone, uint64_t start, uint64_t end)
{
	struct mm_sim *sim = zone->sim;
	int ret = 0;

	zone_lock(zone);
	for (uint64_t pfn = start; pfn < end && !ret;) {
		const struct page *page = pfn_to_page(sim, pfn);
		/* pcp pages change state under their CPU's lock, not this one */
		unsigned int order = READ_ONCE(page->order);

		if (READ_ONCE(page->state) != PG_BUDDY || pfn + (UINT64_C(1) << order) > end ||
		    get_pfnblock_migratetype(sim, pfn) != MIGRATE_ISOLATE)
			ret = -EBUSY;
		else
			pfn += UINT64_C(1) << order;
	}
	zone_unlock(zone);
	return ret;
}

/* ------------------------------------------------------------------------
 * Offlining and onlining (mm/memory_hotplug.c)
 * ---------------------------------------------------------------------- */

/*
 * models do_migrate_range() with alloc_migration_target(): each movable
 * block of the range moves to a block the buddy hands out, which cannot be
 * in the range (its blocks are isolated). A block nothing reaches, or one
 * with an extra reference (PAGE_MIGRATE_BUSY), fails: the model's stand-in
 * for the kernel retrying until a signal. *moved: pages moved.
 */
static int do_migrate_range(struct zone *zone, uint64_t start, uint64_t end, long *moved)
{
	struct mm_sim *sim = zone->sim;

	for (uint64_t pfn = start; pfn < end;) {
		struct page *src = pfn_to_page(sim, pfn), *dst;
		struct mm_handle *h;
		/* other CPUs free and allocate around the isolated range meanwhile */
		unsigned int order = READ_ONCE(src->order);
		uint64_t nr = UINT64_C(1) << order;
		int state = READ_ONCE(src->state);

		if (state != PG_ALLOC) {
			pfn += state == PG_BUDDY ? nr : 1;
			continue;
		}
		/* Threaded runs lend no handles: a stress worker's page cannot move. */
		h = sim->serial ? handle_of_block(sim, pfn) : NULL;
		/* A block reaching past the range (the model's ranges may be one pageblock). */
		if (!h || (src->spare & PAGE_MIGRATE_BUSY) || pfn + nr > end)
			return -EBUSY;
		zone_lock(zone);
		dst = zone_watermark_ok(zone, order, wmark_pages(zone, WMARK_MIN), 0, 0)
			      ? __rmqueue(zone, order, MIGRATE_MOVABLE, 0)
			      : NULL;
		zone_unlock(zone);
		if (!dst)
			return -ENOMEM;
		/* The contents, stamps and all, go along; the handle follows. */
		for (uint64_t i = 0; i < nr; i++) {
			dst[i].order = src[i].order;
			dst[i].alloc_mt = src[i].alloc_mt;
			dst[i].spare = 0;
			dst[i].stamp = src[i].stamp;
			WRITE_ONCE(dst[i].state, src[i].state);
		}
		zone_account_allocated(zone, (long)nr);
		h->pfn = (long long)page_to_pfn(sim, dst);
		free_one_page(zone, pfn, order);
		*moved += (long)nr;
		pfn += nr;
	}
	return 0;
}

/* models __offline_isolated_pages(): the range's free blocks leave the buddy */
static void offline_isolated_pages(struct zone *zone, uint64_t start, uint64_t end)
{
	struct mm_sim *sim = zone->sim;

	zone_lock(zone);
	for (uint64_t pfn = start; pfn < end;) {
		struct page *page = pfn_to_page(sim, pfn);
		uint64_t nr = UINT64_C(1) << page->order;

		remove_isolated_free_block(zone, pfn);
		for (uint64_t i = 0; i < nr; i++) {
			WRITE_ONCE(page[i].order, 0);
			WRITE_ONCE(page[i].state, PG_RESERVED);
		}
		pfn += nr;
	}
	zone_unlock(zone);
}

MM_NO_COVERAGE static void snapshot_range(struct zone *zone, uint64_t start, uint64_t end,
					  struct isolate_snapshot *s);
MM_NO_COVERAGE static void check_isolated_range(struct zone *zone, uint64_t start, uint64_t end,
						const struct isolate_snapshot *s, long moved);

/*
 * The middle of offline_pages() and alloc_contig_range(): migrate, check
 * the isolation, test_pages_isolated(); on a failure undo the isolation.
 * Each page moved took a free page and freed one, and the drained pcp
 * pages, in the range or not, are counted free once undone:
 * NR_FREE_PAGES is the snapshot's plus those. *moved: the pages moved.
 */
static int migrate_and_test(struct zone *zone, uint64_t start, uint64_t end,
			    const struct isolate_snapshot *snap, long *moved)
{
	int ret = do_migrate_range(zone, start, end, moved);

	check_isolated_range(zone, start, end, snap, *moved);
	if (!ret)
		ret = test_pages_isolated(zone, start, end);
	if (ret) {
		undo_isolate_page_range(zone, start, end, MIGRATE_MOVABLE);
		_mm_check_undone_range(zone, start, end,
				       snap->nr_free_exact + snap->pcp_outside + snap->pcp_inside);
	}
	return ret;
}

/* The zone a range op names, if [start, start + pages) is whole pageblocks inside it. */
static struct zone *range_zone(struct mm_sim *sim, const struct mm_op *op)
{
	struct zone *zone;
	uint64_t start = op->range.start, end = start + op->range.pages;

	if (op->range.node < 0 || (unsigned int)op->range.node >= sim->nr_nodes ||
	    op->range.zone >= MAX_NR_ZONES || !op->range.pages)
		return NULL;
	zone = &sim->node_data[op->range.node]->node_zones[op->range.zone];
	if ((start | end) & (pb_pages(sim) - 1) || !zone->spanned_pages ||
	    start < zone->zone_start_pfn || end > zone_end_pfn(zone))
		return NULL;
	return zone;
}

/*
 * models offline_pages(): pcp lists off and drained, the range isolated,
 * its pages migrated, then its free blocks taken out of the buddy and the
 * zone's managed and present pages lowered, with everything computed from
 * them (watermarks, lowmem reserves, vmstat thresholds, pcp sizing). On a
 * failure the isolation is undone. 0, or a negative errno.
 */
static int offline_pages(struct mm_sim *sim, struct zone *zone, uint64_t start, uint64_t end)
{
	struct isolate_snapshot snap;
	bool was_disabled = zone->pcp_disabled;
	uint64_t failed;
	long moved = 0;
	int ret;

	/* A hole (walk_system_ram_range()) or uninitialised memmap: -EINVAL. */
	for (uint64_t pfn = start; pfn < end; pfn++) {
		int state = READ_ONCE(pfn_to_page(sim, pfn)->state);
		if (state == PG_NOZONE || state == PG_UNINIT)
			return -EINVAL;
	}
	/* The model keeps every zone populated (file header). */
	if (zone->present_pages <= end - start)
		return -EINVAL;

	/* models zone_pcp_disable(): the lists stay empty until the enable */
	mm_zone_pcp_disable(sim, zone->node, zone->type);
	if (was_disabled)
		for (unsigned int cpu = 0; cpu < sim->nr_cpus; cpu++)
			drain_pages_zone(cpu, zone);
	snapshot_range(zone, start, end, &snap);
	ret = start_isolate_page_range(zone, start, end, &failed);
	if (ret) {
		_mm_check_undone_range(zone, start, failed, snap.nr_free_exact);
		goto out;
	}
	ret = migrate_and_test(zone, start, end, &snap, &moved);
	if (ret)
		goto out;
	offline_isolated_pages(zone, start, end);
	/* models adjust_managed_page_count() and adjust_present_page_count() */
	atomic_long_add(-(long)(end - start), &zone->managed_pages);
	zone->present_pages -= end - start;
	zone->offlined_pages += (long)(end - start);
	init_per_zone_wmark_min(sim);
out:
	/*
	 * The new pcp limits came with init_per_zone_wmark_min() on success;
	 * a failure leaves the sizing the enable restores, as the kernel's.
	 */
	if (!was_disabled)
		mm_zone_pcp_enable(sim, zone->node, zone->type);
	return ret;
}

/*
 * models online_pages() of one pageblock (the model's memory block): it
 * comes back as an isolated free block (move_pfn_range_to_zone() with
 * MIGRATE_ISOLATE, online_pages_range()), the counts go up, the isolation
 * is undone to MOVABLE and the derived values are recomputed.
 */
static void online_pageblock(struct mm_sim *sim, struct zone *zone, uint64_t start)
{
	uint64_t end = start + pb_pages(sim);
	long before;

	zone_lock(zone);
	before = zone->vm_stat_exact[NR_FREE_PAGES];
	for (uint64_t pfn = start; pfn < end; pfn++)
		WRITE_ONCE(pfn_to_page(sim, pfn)->state, PG_FREE_TAIL);
	zone->present_pages += end - start;
	zone->offlined_pages -= (long)(end - start);
	_mm_free_pfn_range(zone, start, end);
	zone_unlock(zone);
	undo_isolate_page_range(zone, start, end, MIGRATE_MOVABLE);
	_mm_check_undone_range(zone, start, end, before + (long)(end - start));
}

/* Onlines every offline pageblock of the range: -EINVAL if none is. */
static int online_pages(struct mm_sim *sim, struct zone *zone, uint64_t start, uint64_t end)
{
	int ret = -EINVAL;

	for (uint64_t pb = start; pb < end; pb += pb_pages(sim)) {
		uint64_t pfn = pb;

		while (pfn < pb + pb_pages(sim) &&
		       READ_ONCE(pfn_to_page(sim, pfn)->state) == PG_RESERVED)
			pfn++;
		if (pfn < pb + pb_pages(sim) ||
		    get_pfnblock_migratetype(sim, pb) != MIGRATE_ISOLATE)
			continue;
		online_pageblock(sim, zone, pb);
		ret = 0;
	}
	if (ret)
		return ret;
	init_per_zone_wmark_min(sim); /* the watermarks, then every zone's pcp limits */
	return 0;
}

/*
 * models alloc_contig_range(MIGRATE_MOVABLE) of whole pageblocks: the
 * range isolated, every CPU's pcp lists of the zone drained (the pcp lists
 * stay on, unlike offlining), movable blocks migrated, test_pages_isolated(),
 * then the free blocks taken as allocated order-0 pages
 * (isolate_freepages_range()) and the isolation undone. 0, or a negative
 * errno with the range as before, less what migrated.
 */
static int alloc_contig_range(struct mm_sim *sim, struct zone *zone, uint64_t start, uint64_t end)
{
	struct isolate_snapshot snap;
	uint64_t failed;
	long moved = 0;
	int ret;

	snapshot_range(zone, start, end, &snap);
	ret = start_isolate_page_range(zone, start, end, &failed);
	if (ret) {
		_mm_check_undone_range(zone, start, failed, snap.nr_free_exact);
		return ret;
	}
	/* models drain_all_pages(zone) */
	for (unsigned int cpu = 0; cpu < sim->nr_cpus; cpu++)
		drain_pages_zone(cpu, zone);
	ret = migrate_and_test(zone, start, end, &snap, &moved);
	if (ret)
		return ret;
	/* models isolate_freepages_range(): the free blocks become the caller's pages */
	zone_lock(zone);
	for (uint64_t pfn = start; pfn < end;) {
		uint64_t nr = UINT64_C(1) << pfn_to_page(sim, pfn)->order;

		remove_isolated_free_block(zone, pfn);
		for (uint64_t i = 0; i < nr; i++) {
			struct page *page = pfn_to_page(sim, pfn + i);
			WRITE_ONCE(page->order, 0);
			page->alloc_mt = MIGRATE_UNMOVABLE; /* no LRU page: nothing migrates it */
			page->spare = 0;
			page->stamp.owner = OWNER_CONTIG;
			page->stamp.gen = 0;
			WRITE_ONCE(page->state, PG_ALLOC);
		}
		pfn += nr;
	}
	zone_account_allocated(zone, (long)(end - start));
	zone_unlock(zone);
	undo_isolate_page_range(zone, start, end, MIGRATE_MOVABLE);
	_mm_check_undone_range(zone, start, end,
			       snap.nr_free_exact - snap.range_free + snap.pcp_outside - moved);
	return 0;
}

/*
 * models free_contig_range(): every page of the range alloc_contig_range()
 * handed out goes back one at a time (__free_page(), through this CPU's
 * pcp list). -EINVAL when the range holds none.
 */
static int free_contig_range(struct mm_sim *sim, uint64_t start, uint64_t end)
{
	int ret = -EINVAL;

	for (uint64_t pfn = start; pfn < end; pfn++) {
		const struct page *page = pfn_to_page(sim, pfn);

		/* a page of the range another CPU allocated or frees meanwhile is not ours */
		if (READ_ONCE(page->state) != PG_ALLOC || READ_ONCE(page->order) ||
		    page->stamp.owner != OWNER_CONTIG)
			continue;
		free_unref_page(sim, pfn, 0);
		ret = 0;
	}
	return ret;
}

/* The range ops: offline_pages, online_pages, alloc_contig_range, free_contig_range */
int _mm_op_range(struct mm_op_ctx *ctx, const struct mm_op *op)
{
	struct mm_sim *sim = ctx->sim;
	struct zone *zone = range_zone(sim, op);
	uint64_t start = op->range.start, end = start + op->range.pages;
	int ret;

	if (!zone)
		return 1;

	mutex_lock(&sim->hotplug_lock);
	switch (op->kind) {
	case MM_OP_OFFLINE_PAGES:
		ret = offline_pages(sim, zone, start, end);
		break;
	case MM_OP_ONLINE_PAGES:
		ret = online_pages(sim, zone, start, end);
		break;
	case MM_OP_ALLOC_CONTIG:
		ret = alloc_contig_range(sim, zone, start, end);
		break;
	default:
		ret = free_contig_range(sim, start, end);
	}
	mutex_unlock(&sim->hotplug_lock);
	_mm_derived_vmstat_op(sim, op, ret != 0);
	_mm_check_zone_cheap(zone);
	return ret ? 1 : 0;
}

/* ------------------------------------------------------------------------
 * The checker's: O(range) after a range op, from its own memmap walk
 * ---------------------------------------------------------------------- */

/* Pages of [start, end) in free buddy blocks, as the memmap says; *pcp: those on pcp lists. */
MM_NO_COVERAGE static uint64_t covering_buddy(struct zone *zone, uint64_t pfn);

MM_NO_COVERAGE static long range_free_pages(struct zone *zone, uint64_t start, uint64_t end,
					    long *pcp)
{
	struct mm_sim *sim = zone->sim;
	long n = 0, on_pcp = 0;
	uint64_t pfn = start;

	/*
	 * A free block from below start covers it (larger than a pageblock,
	 * start is aligned). Its head is a buddy under zone->lock; a lone tail
	 * page is not evidence of a free page: a pcp block's tails keep their
	 * state until rmqueue_pcplist() hands it out, under its CPU's lock only.
	 */
	uint64_t head = covering_buddy(zone, start);
	if (head != PFN_NIL && head < start) {
		uint64_t bend = head + (UINT64_C(1) << READ_ONCE(pfn_to_page(sim, head)->order));
		n += (long)((bend < end ? bend : end) - start);
		pfn = bend;
	}
	while (pfn < end) {
		const struct page *page = pfn_to_page(sim, pfn);
		/* threaded: under zone->lock, but pcp pages move under their CPU's lock */
		uint64_t nr = UINT64_C(1) << READ_ONCE(page->order);
		int state = READ_ONCE(page->state);

		if (state == PG_BUDDY) {
			n += (long)(pfn + nr < end ? nr : end - pfn);
			pfn += nr;
		} else if (state == PG_PCP) {
			on_pcp += (long)nr;
			pfn += nr;
		} else {
			pfn++;
		}
	}
	if (pcp)
		*pcp = on_pcp;
	return n;
}

MM_NO_COVERAGE static void snapshot_range(struct zone *zone, uint64_t start, uint64_t end,
					  struct isolate_snapshot *s)
{
	long in_range, all;

	/* Its counts feed the serial checks only: another CPU moves them meanwhile. */
	if (!zone->sim->serial) {
		*s = (struct isolate_snapshot){0};
		return;
	}
	s->nr_free_exact = zone->vm_stat_exact[NR_FREE_PAGES];
	s->range_free = range_free_pages(zone, start, end, &in_range);
	/* O(zone), for the range ops only: the memmap's pcp pages */
	range_free_pages(zone, zone->zone_start_pfn, zone_end_pfn(zone), &all);
	s->pcp_outside = all - in_range;
	s->pcp_inside = in_range;
}

/* Pages of [start, end) on the zone's ISOLATE free lists; INV-ISOLATE-FREELIST-TYPE on the way. */
MM_NO_COVERAGE static long isolate_listed_pages(struct zone *zone, uint64_t start, uint64_t end)
{
	struct mm_sim *sim = zone->sim;
	long n = 0;

	for (unsigned int o = 0; o <= sim->max_order; o++) {
		unsigned long k = 0; /* a cycle a bug made stops at nr_free */
		for (uint32_t p = zone->free_area[o].head[MIGRATE_ISOLATE];
		     p != PFN_NIL && k++ <= zone->free_area[o].nr_free;
		     p = pfn_to_page(sim, p)->lru.next) {
			int mt = get_pfnblock_migratetype(sim, p);
			if (mt != MIGRATE_ISOLATE)
				zone_report(zone, "INV-ISOLATE-FREELIST-TYPE", p, MIGRATE_ISOLATE,
					    mt,
					    "order-%u block on the Isolate list in a %s pageblock",
					    o, mm_migratetype_name(mt));
			if (p >= start && p < end) /* the range's part of the block */
				n += (long)((p + (UINT64_C(1) << o) < end ? p + (UINT64_C(1) << o)
									  : end) -
					    p);
		}
	}
	return n;
}

/* A free block larger than a pageblock over pfn's pageblock: its head, or PFN_NIL. */
MM_NO_COVERAGE static uint64_t covering_buddy(struct zone *zone, uint64_t pfn)
{
	struct mm_sim *sim = zone->sim;

	for (unsigned int o = sim->pageblock_order + 1; o <= sim->max_order; o++) {
		uint64_t head = pfn & ~((UINT64_C(1) << o) - 1);
		const struct page *page = pfn_to_page(sim, head);
		/* A buddy head stays one under zone->lock; pcp pages move under their own. */
		if (head >= zone->zone_start_pfn && READ_ONCE(page->state) == PG_BUDDY &&
		    READ_ONCE(page->order) == o)
			return head;
	}
	return PFN_NIL;
}

/*
 * INV-ISOLATE-MERGE: no free block spans an isolated pageblock and another
 * of a different type, at the range's pageblocks and its neighbours.
 */
MM_NO_COVERAGE static void check_no_merge_across(struct zone *zone, uint64_t start, uint64_t end)
{
	struct mm_sim *sim = zone->sim;
	uint64_t nr_pb = pb_pages(sim);
	uint64_t lo = start > zone->zone_start_pfn + nr_pb ? start - nr_pb : start;
	uint64_t hi = end + nr_pb <= zone_end_pfn(zone) ? end + nr_pb : end;

	for (uint64_t pfn = lo; pfn < hi; pfn += nr_pb) {
		uint64_t head = covering_buddy(zone, pfn);
		if (head == PFN_NIL)
			continue;
		uint64_t bend = head + (UINT64_C(1) << READ_ONCE(pfn_to_page(sim, head)->order));
		int isolated = 0, other = 0;
		for (uint64_t b = head; b < bend; b += nr_pb)
			get_pfnblock_migratetype(sim, b) == MIGRATE_ISOLATE ? isolated++ : other++;
		if (isolated && other) {
			zone_report(zone, "INV-ISOLATE-MERGE", head, 0, isolated,
				    "free order-%u block spans %d isolated and %d other pageblocks",
				    READ_ONCE(pfn_to_page(sim, head)->order), isolated, other);
			return;
		}
	}
}

/*
 * After isolation, the drain and migration: NR_FREE_PAGES lost exactly the
 * free pages the range had and the moved pages' new homes, and gained the
 * pcp pages from outside the range (INV-ISOLATE-NRFREE; the pages moved
 * pages left, and the range's pcp pages, are isolated), and
 * every free page of the range is on an ISOLATE list (INV-ISOLATE-LEAK).
 */
MM_NO_COVERAGE static void check_isolated_range(struct zone *zone, uint64_t start, uint64_t end,
						const struct isolate_snapshot *s, long moved)
{
	long want = s->nr_free_exact - s->range_free + s->pcp_outside - moved;
	bool serial = zone->sim->serial;
	long pcp;

	/*
	 * Threaded: the memmap and the lists read under zone->lock agree. A
	 * page freed as the range was isolated may wait on its CPU's pcp list
	 * (the free read the migratetype first, as the kernel's does), where
	 * test_pages_isolated() fails it: no pcp clause then.
	 */
	if (!serial)
		zone_lock(zone);
	long free_now = range_free_pages(zone, start, end, &pcp);
	long listed = isolate_listed_pages(zone, start, end);
	if (!serial)
		pcp = 0;

	/* Only a serial run knows no other CPU freed or allocated meanwhile. */
	if (zone->sim->serial && zone->vm_stat_exact[NR_FREE_PAGES] != want)
		zone_report(zone, "INV-ISOLATE-NRFREE", start, want,
			    zone->vm_stat_exact[NR_FREE_PAGES],
			    "NR_FREE_PAGES after isolating [%llu, %llu) holding %ld free pages",
			    (unsigned long long)start, (unsigned long long)end, s->range_free);
	if (listed != free_now || pcp)
		zone_report(zone, "INV-ISOLATE-LEAK", start, free_now, listed,
			    "free pages of isolated [%llu, %llu) on the ISOLATE lists (%ld on pcp "
			    "lists)",
			    (unsigned long long)start, (unsigned long long)end, pcp);
	check_no_merge_across(zone, start, end);
	if (!serial)
		zone_unlock(zone);
}

/*
 * INV-ISOLATE-UNDO: after undo_isolate_page_range() no pageblock of the
 * range is isolated, none of its pages is on an ISOLATE list, and
 * NR_FREE_PAGES is want_free, the checker's count.
 */
MM_NO_COVERAGE void _mm_check_undone_range(struct zone *zone, uint64_t start, uint64_t end,
					   long want_free)
{
	struct mm_sim *sim = zone->sim;
	long listed = 0;

	/* threaded: the lists walked under zone->lock, which every free list change holds */
	if (!sim->serial)
		zone_lock(zone);
	for (uint64_t pfn = start; pfn < end && listed >= 0; pfn += pb_pages(sim))
		if (get_pfnblock_migratetype(sim, pfn) == MIGRATE_ISOLATE) {
			zone_report(zone, "INV-ISOLATE-UNDO", pfn, MIGRATE_MOVABLE, MIGRATE_ISOLATE,
				    "pageblock still isolated after the undo");
			listed = -1;
		}
	if (listed >= 0)
		listed = isolate_listed_pages(zone, start, end);
	if (listed > 0)
		zone_report(zone, "INV-ISOLATE-UNDO", start, 0, listed,
			    "pages of [%llu, %llu) on ISOLATE lists after the undo",
			    (unsigned long long)start, (unsigned long long)end);
	if (listed >= 0 && sim->serial && zone->vm_stat_exact[NR_FREE_PAGES] != want_free)
		zone_report(zone, "INV-ISOLATE-UNDO", start, want_free,
			    zone->vm_stat_exact[NR_FREE_PAGES],
			    "NR_FREE_PAGES after undoing the isolation of [%llu, %llu)",
			    (unsigned long long)start, (unsigned long long)end);
	if (listed >= 0)
		check_no_merge_across(zone, start, end);
	if (!sim->serial)
		zone_unlock(zone);
}
