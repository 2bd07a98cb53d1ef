/* SPDX-License-Identifier: MIT */
/*
 * oracle_gfp.c - the checker's own reading of what a gfp mask entitles an
 * allocation to: the zone, the migratetype, the slow path's alloc flags and
 * the reserve floor those flags allow. Written out from the kernel's rules
 * (mm/page_alloc.c 6.3+, gfp_to_alloc_flags(), __gfp_pfmemalloc_flags(),
 * __zone_watermark_ok()) as a table, never by calling the allocator's
 * functions: the allocator's derivation is what these check
 * (INV-ALLOC-FLAGS, INV-ALLOC-ZONE), and the admission floor of
 * INV-WMARK-MIN comes from here.
 */
#include "internal.h"

/*
 * One rule of the slow path: when the gfp bits in `set` are all present,
 * those in `clear` all absent and the order is at least min_order, the
 * flags gain `add` and lose `drop`. Applied in order.
 */
struct gfp_rule {
	unsigned int set, clear, min_order;
	unsigned int add, drop;
};

/* models gfp_to_alloc_flags() (6.3+, no CMA, no RT tasks) */
static const struct gfp_rule slowpath_rules[] = {
	/* every slow-path allocation: the min mark, inside its cpuset */
	{0, 0, 0, ALLOC_WMARK_MIN | ALLOC_CPUSET, 0},
	/* __GFP_HIGH is ALLOC_MIN_RESERVE (the same bit in the kernel) */
	{MM_GFP_HIGH, 0, 0, ALLOC_MIN_RESERVE, 0},
	/* __GFP_KSWAPD_RECLAIM is ALLOC_KSWAPD */
	{MM_GFP_KSWAPD_RECLAIM, 0, 0, ALLOC_KSWAPD, 0},
	/* cannot sleep, and did not refuse the reserves: non-blocking access */
	{0, MM_GFP_DIRECT_RECLAIM | MM_GFP_NOMEMALLOC, 0, ALLOC_NON_BLOCK, 0},
	/* ... and a high-order one may use the highatomic blocks */
	{0, MM_GFP_DIRECT_RECLAIM | MM_GFP_NOMEMALLOC, 1, ALLOC_HIGHATOMIC, 0},
	/* cannot sleep and __GFP_HIGH: the cpuset does not bind */
	{MM_GFP_HIGH, MM_GFP_DIRECT_RECLAIM, 0, 0, ALLOC_CPUSET},
};

/*
 * models __gfp_pfmemalloc_flags(): the first matching row replaces the
 * flags, keeping ALLOC_KSWAPD (__alloc_pages_slowpath()); __GFP_NOMEMALLOC
 * opts out of both rows.
 */
static const struct gfp_rule pfmemalloc_rules[] = {
	{MM_GFP_MEMALLOC, MM_GFP_NOMEMALLOC, 0, ALLOC_NO_WATERMARKS, 0},
	{MM_GFP_OOM, MM_GFP_NOMEMALLOC | MM_GFP_MEMALLOC, 0, ALLOC_OOM, 0},
};

static bool rule_matches(const struct gfp_rule *r, unsigned int gfp, unsigned int order)
{
	return (gfp & r->set) == r->set && !(gfp & r->clear) && order >= r->min_order;
}

static unsigned int rules_alloc_flags(unsigned int gfp, unsigned int order)
{
	unsigned int flags = 0;

	for (size_t i = 0; i < sizeof(slowpath_rules) / sizeof(slowpath_rules[0]); i++)
		if (rule_matches(&slowpath_rules[i], gfp, order))
			flags = (flags | slowpath_rules[i].add) & ~slowpath_rules[i].drop;
	for (size_t i = 0; i < sizeof(pfmemalloc_rules) / sizeof(pfmemalloc_rules[0]); i++)
		if (rule_matches(&pfmemalloc_rules[i], gfp, order))
			return pfmemalloc_rules[i].add | (flags & ALLOC_KSWAPD);
	return flags;
}

/*
 * The rules above, evaluated once for every combination of the gfp bits
 * they read and of order 0 or higher: every slow path looks its flags up.
 */
static const unsigned int rule_bits[] = {MM_GFP_HIGH,		MM_GFP_KSWAPD_RECLAIM,
					 MM_GFP_DIRECT_RECLAIM, MM_GFP_NOMEMALLOC,
					 MM_GFP_MEMALLOC,	MM_GFP_OOM};
#define NR_RULE_BITS (sizeof(rule_bits) / sizeof(rule_bits[0]))
static uint16_t flags_table[2][1u << NR_RULE_BITS];

__attribute__((constructor)) static void build_flags_table(void)
{
	for (unsigned int i = 0; i < 1u << NR_RULE_BITS; i++) {
		unsigned int gfp = 0;
		for (unsigned int b = 0; b < NR_RULE_BITS; b++)
			if (i & (1u << b))
				gfp |= rule_bits[b];
		flags_table[0][i] = (uint16_t)rules_alloc_flags(gfp, 0);
		flags_table[1][i] = (uint16_t)rules_alloc_flags(gfp, 1);
	}
}

MM_SCAN_INLINE unsigned int _mm_oracle_alloc_flags(unsigned int gfp, unsigned int order)
{
	unsigned int i = 0;

	for (unsigned int b = 0; b < NR_RULE_BITS; b++)
		i |= (gfp & rule_bits[b]) ? 1u << b : 0;
	return flags_table[order > 0][i];
}

/* models gfp_zone() on a machine without ZONE_HIGHMEM: the first row that matches */
int _mm_oracle_gfp_zone(unsigned int gfp)
{
	static const struct {
		unsigned int set;
		int zone;
	} rows[] = {
		{MM_GFP_DMA, ZONE_DMA},
		{MM_GFP_DMA32, ZONE_DMA32},
		{MM_GFP_HIGHMEM | MM_GFP_MOVABLE, ZONE_MOVABLE},
		{0, ZONE_NORMAL},
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		if ((gfp & rows[i].set) == rows[i].set)
			return rows[i].zone;
	return ZONE_NORMAL;
}

/* models gfp_migratetype(): MOVABLE wins over RECLAIMABLE */
int _mm_oracle_gfp_migratetype(unsigned int gfp)
{
	return (gfp & MM_GFP_MOVABLE)	    ? MIGRATE_MOVABLE
	       : (gfp & MM_GFP_RECLAIMABLE) ? MIGRATE_RECLAIMABLE
					    : MIGRATE_UNMOVABLE;
}

/*
 * The mark an allocation with these flags must stay above, from the
 * reserve rules of __zone_watermark_ok() (6.3+): with any reserve access,
 * ALLOC_MIN_RESERVE takes off half, ALLOC_NON_BLOCK with it a further
 * quarter of what is left, ALLOC_OOM half again. In integers, as the
 * kernel's `min -= min / 2` steps round.
 */
long _mm_oracle_reserve_floor(long mark, unsigned int flags)
{
	bool min_reserve = flags & ALLOC_MIN_RESERVE;
	bool non_block = min_reserve && (flags & ALLOC_NON_BLOCK);
	bool oom = flags & ALLOC_OOM;
	long keep = mark;

	keep = min_reserve ? keep - keep / 2 : keep;
	keep = non_block ? keep - keep / 4 : keep;
	keep = oom ? keep - keep / 2 : keep;
	return keep;
}

/*
 * INV-ALLOC-FLAGS and INV-ALLOC-ZONE: what the allocator derived from the
 * gfp mask equals the table's reading. O(1), every slow path.
 */
unsigned long _mm_oracle_check_alloc(struct mm_sim *sim, unsigned int gfp, unsigned int order,
				     unsigned int alloc_flags, int highest_zoneidx, int migratetype)
{
	unsigned int want = _mm_oracle_alloc_flags(gfp, order);
	int cpu = smp_processor_id();
	unsigned long bad = 0;

	if (alloc_flags != want) {
		mm_report_violation(sim, "INV-ALLOC-FLAGS", -1, -1, cpu, -1, want, alloc_flags,
				    "gfp %#x order %u: the slow path's alloc flags are %#x, the "
				    "kernel's rules give %#x",
				    gfp, order, alloc_flags, want);
		bad++;
	}
	int zone = _mm_oracle_gfp_zone(gfp), mt = _mm_oracle_gfp_migratetype(gfp);
	if (highest_zoneidx != zone || migratetype != mt) {
		mm_report_violation(sim, "INV-ALLOC-ZONE", -1, -1, cpu, -1, zone, highest_zoneidx,
				    "gfp %#x: highest zone %d migratetype %d, gfp_zone() and "
				    "gfp_migratetype() give %d and %d",
				    gfp, highest_zoneidx, migratetype, zone, mt);
		bad++;
	}
	return bad;
}
