/* SPDX-License-Identifier: MIT */
/*
 * config.c - the simulated machine's description: defaults, validation and
 * the names the text form and the tools print.
 */
#include "internal.h"

#include <stddef.h>
#include <string.h>

static const char *const zone_names[MAX_NR_ZONES] = {"DMA", "DMA32", "Normal", "Movable", "Device"};

static const char *const migratetype_names[MIGRATE_TYPES] = {"Unmovable", "Movable", "Reclaimable",
							     "HighAtomic", "Isolate"};

const char *mm_zone_name(enum zone_type zt)
{
	return (unsigned int)zt < MAX_NR_ZONES ? zone_names[zt] : "?";
}

const char *mm_migratetype_name(int mt)
{
	return mt >= 0 && mt < MIGRATE_TYPES ? migratetype_names[mt] : "?";
}

void mm_config_init(struct mm_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->nr_nodes = 1;
	cfg->cpus_per_node[0] = 1;
	cfg->max_order = MM_MAX_PAGE_ORDER;
	cfg->pageblock_order = 9;
	cfg->watermark_scale_factor = 10;
}

/*
 * A config holds rows for MM_MAX_NODES nodes (10 KB); a fuzz machine uses a
 * few, and every input's decode and boot copy one. The rows past nr_nodes
 * are kept zero (mm_config_init, and these two), so only the used rows and
 * the fields after them are written.
 */
_Static_assert(offsetof(struct mm_config, cpus_per_node) == sizeof(unsigned int) &&
		       offsetof(struct mm_config, zones) >
			       offsetof(struct mm_config, cpus_per_node) &&
		       offsetof(struct mm_config, max_order) >=
			       offsetof(struct mm_config, zones) +
				       sizeof(((struct mm_config *)0)->zones),
	       "nr_nodes, then the per-node rows, then the scalar fields from max_order on");
#define CONFIG_TAIL offsetof(struct mm_config, max_order)

static void config_clear_rows(struct mm_config *cfg, unsigned int from, unsigned int to)
{
	if (to <= from)
		return;
	memset(&cfg->cpus_per_node[from], 0, (to - from) * sizeof(cfg->cpus_per_node[0]));
	memset(&cfg->zones[from], 0, (to - from) * sizeof(cfg->zones[0]));
}

void _mm_config_clear(struct mm_config *cfg)
{
	config_clear_rows(cfg, 0, cfg->nr_nodes);
	cfg->nr_nodes = 0;
	memset((char *)cfg + CONFIG_TAIL, 0, sizeof(*cfg) - CONFIG_TAIL);
}

void _mm_config_copy(struct mm_config *dst, const struct mm_config *src)
{
	unsigned int n = src->nr_nodes;

	config_clear_rows(dst, n, dst->nr_nodes);
	dst->nr_nodes = n;
	memcpy(dst->cpus_per_node, src->cpus_per_node, n * sizeof(src->cpus_per_node[0]));
	memcpy(dst->zones, src->zones, n * sizeof(src->zones[0]));
	memcpy((char *)dst + CONFIG_TAIL, (const char *)src + CONFIG_TAIL,
	       sizeof(*dst) - CONFIG_TAIL);
}

void mm_config_default(struct mm_config *cfg)
{
	mm_config_init(cfg);
	cfg->cpus_per_node[0] = 2;
	cfg->zones[0][ZONE_DMA32] = (struct mm_zone_config){0, 1024, 1024, 1024};
	cfg->zones[0][ZONE_NORMAL] = (struct mm_zone_config){1024, 1024, 1024, 1024};
}

unsigned int mm_config_nr_cpus(const struct mm_config *cfg)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < cfg->nr_nodes && i < MM_MAX_NODES; i++)
		n += cfg->cpus_per_node[i];
	return n;
}

uint64_t mm_config_max_pfn(const struct mm_config *cfg)
{
	uint64_t end = 0;

	for (unsigned int n = 0; n < cfg->nr_nodes && n < MM_MAX_NODES; n++) {
		for (int z = 0; z < MAX_NR_ZONES; z++) {
			const struct mm_zone_config *zc = &cfg->zones[n][z];
			if (zc->spanned && zc->start_pfn + zc->spanned > end)
				end = zc->start_pfn + zc->spanned;
		}
	}
	return end;
}

#define FAIL(...)                                                                                  \
	do {                                                                                       \
		if (err)                                                                           \
			snprintf(err, errlen, __VA_ARGS__);                                        \
		return -1;                                                                         \
	} while (0)

int mm_config_validate(const struct mm_config *cfg, char *err, size_t errlen)
{
	if (cfg->nr_nodes < 1 || cfg->nr_nodes > MM_MAX_NODES)
		FAIL("nodes must be 1..%d, not %u", MM_MAX_NODES, cfg->nr_nodes);
	unsigned int cpus = mm_config_nr_cpus(cfg);
	if (cpus < 1 || cpus > MM_MAX_CPUS)
		FAIL("the machine needs 1..%d CPUs, not %u", MM_MAX_CPUS, cpus);
	if (cfg->max_order < 1 || cfg->max_order > MM_MAX_PAGE_ORDER)
		FAIL("max_order must be 1..%d, not %u", MM_MAX_PAGE_ORDER, cfg->max_order);
	/*
	 * Wider gaps are not modelled: __free_one_page() retypes only the
	 * first pageblock of a merged buddy, so a free block spanning more
	 * than two pageblocks could mix types, which the checks forbid.
	 */
	if (cfg->pageblock_order < 1 || cfg->pageblock_order + 1 < cfg->max_order ||
	    cfg->pageblock_order > cfg->max_order)
		FAIL("pageblock_order must be max_order-1 or max_order (%u or %u), not %u",
		     cfg->max_order - 1, cfg->max_order, cfg->pageblock_order);
	if (cfg->watermark_scale_factor < 1 || cfg->watermark_scale_factor > 3000)
		FAIL("watermark_scale_factor must be 1..3000, not %u", cfg->watermark_scale_factor);
	if (cfg->percpu_pagelist_high_fraction != 0 && cfg->percpu_pagelist_high_fraction < 8)
		FAIL("percpu_pagelist_high_fraction must be 0 or >= 8, not %u",
		     cfg->percpu_pagelist_high_fraction);
	if (cfg->cache_slice_kb > 0xffff)
		FAIL("cache_slice_kb must be 0..65535, not %u", cfg->cache_slice_kb);

	uint64_t total = 0;
	for (unsigned int n = 0; n < cfg->nr_nodes; n++) {
		for (int z = 0; z < MAX_NR_ZONES; z++) {
			const struct mm_zone_config *zc = &cfg->zones[n][z];
			if (zc->present > zc->spanned || zc->managed > zc->present)
				FAIL("node %u zone %s: need managed <= present <= spanned", n,
				     zone_names[z]);
			if (z == ZONE_DEVICE && zc->spanned)
				FAIL("node %u: the Device zone is modelled empty", n);
			if (zc->start_pfn + zc->spanned >= PFN_NIL)
				FAIL("node %u zone %s: pfns must stay below 2^32-1", n,
				     zone_names[z]);
			total += zc->managed;
			/* Zones of one machine must not overlap. */
			for (unsigned int m = 0; m <= n; m++) {
				for (int y = 0; y < MAX_NR_ZONES; y++) {
					const struct mm_zone_config *o = &cfg->zones[m][y];
					if ((m == n && y >= z) || !o->spanned || !zc->spanned)
						continue;
					if (zc->start_pfn < o->start_pfn + o->spanned &&
					    o->start_pfn < zc->start_pfn + zc->spanned)
						FAIL("node %u zone %s overlaps node %u zone %s", n,
						     zone_names[z], m, zone_names[y]);
				}
			}
		}
	}
	if (total == 0)
		FAIL("the machine has no managed pages");
	return 0;
}
