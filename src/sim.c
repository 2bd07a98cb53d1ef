/* SPDX-License-Identifier: MIT */
/*
 * sim.c - building the machine: memmap, zones, the boot-time free of all
 * managed memory into the buddy (memblock_free_all), watermarks. The same
 * call is the per-input reset, so it reuses buffers and writes only what
 * the configured machine uses.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

struct mm_sim *mm_sim_create(void)
{
	struct mm_sim *sim = calloc(1, sizeof(*sim));

	if (!sim)
		return NULL;
	lockdep_machine_created();
	mutex_init(&sim->hotplug_lock);
	mutex_init(&sim->pcp_batch_high_lock);
	mutex_init(&sim->kswapd_lock);
	return sim;
}

static void destroy_zone_locks(struct mm_sim *sim)
{
	for (size_t n = 0; n < sim->pgdat_cap; n++)
		for (int z = 0; z < MAX_NR_ZONES; z++)
			spin_lock_destroy(&sim->pgdat_buf[n].node_zones[z].lock);
}

static void destroy_pcp_locks(struct mm_sim *sim)
{
	for (size_t i = 0; i < sim->pcp_cap; i++)
		spin_lock_destroy(&sim->pcp_lock_buf[i].lock);
}

void mm_sim_destroy(struct mm_sim *sim)
{
	if (!sim)
		return;
	_mm_pcpu_state_destroy(sim);
	_mm_compaction_destroy(sim);
	destroy_zone_locks(sim);
	destroy_pcp_locks(sim);
	free(sim->pcp_buf);
	free(sim->pcp_lock_buf);
	free(sim->cpu_stats);
	free(sim->zonestat_buf);
	free(sim->pgdat_buf);
	free(sim->mem_map);
	free(sim->pageblock_flags);
	free(sim->node_distance);
	mutex_destroy(&sim->hotplug_lock);
	mutex_destroy(&sim->pcp_batch_high_lock);
	mutex_destroy(&sim->kswapd_lock);
	free(sim);
	lockdep_machine_destroyed();
}

/* One pageset per (zone, cpu) of the machine: the locks are made once. */
static int reserve_pcp(struct mm_sim *sim, size_t n)
{
	struct per_cpu_pages *p;
	struct pcp_lock *l;

	if (n <= sim->pcp_cap)
		return 0;
	p = aligned_alloc(_Alignof(struct per_cpu_pages), n * sizeof(*p));
	l = aligned_alloc(_Alignof(struct pcp_lock), n * sizeof(*l));
	if (!p || !l) {
		free(p);
		free(l);
		return -1;
	}
	memset(p, 0, n * sizeof(*p));
	destroy_pcp_locks(sim);
	free(sim->pcp_buf);
	free(sim->pcp_lock_buf);
	for (size_t i = 0; i < n; i++)
		spin_lock_init(&l[i].lock);
	sim->pcp_buf = p;
	sim->pcp_lock_buf = l;
	sim->pcp_cap = n;
	return 0;
}

static int reserve_zonestats(struct mm_sim *sim, size_t n)
{
	struct per_cpu_zonestat *z;

	if (n <= sim->zonestat_cap)
		return 0;
	z = calloc(n, sizeof(*z));
	if (!z)
		return -1;
	free(sim->zonestat_buf);
	sim->zonestat_buf = z;
	sim->zonestat_cap = n;
	return 0;
}

static int reserve_cpu_stats(struct mm_sim *sim, size_t n)
{
	struct mm_cpu_stats *s;

	if (n <= sim->cpu_stats_cap)
		return 0;
	s = aligned_alloc(_Alignof(struct mm_cpu_stats), n * sizeof(*s));
	if (!s)
		return -1;
	memset(s, 0, n * sizeof(*s)); /* its padding is snapshotted whole */
	free(sim->cpu_stats);
	sim->cpu_stats = s;
	sim->cpu_stats_cap = n;
	return 0;
}

static int reserve_buffers(struct mm_sim *sim, uint64_t max_pfn, unsigned int nr_nodes)
{
	size_t nr_blocks = (size_t)(max_pfn >> sim->pageblock_order) + 1;

	if (max_pfn > sim->memmap_cap) {
		struct page *m = realloc(sim->mem_map, max_pfn * sizeof(struct page));
		if (!m)
			return -1;
		sim->mem_map = m;
		sim->memmap_cap = max_pfn;
	}
	if (nr_blocks > sim->pb_cap) {
		uint8_t *f = realloc(sim->pageblock_flags, nr_blocks);
		if (!f)
			return -1;
		sim->pageblock_flags = f;
		sim->pb_cap = nr_blocks;
	}
	if (nr_nodes > sim->pgdat_cap) {
		struct pglist_data *p = realloc(sim->pgdat_buf, nr_nodes * sizeof(*p));
		if (!p)
			return -1;
		/* the padding too: a snapshot copies the struct whole (snapshot.c) */
		memset(&p[sim->pgdat_cap], 0, (nr_nodes - sim->pgdat_cap) * sizeof(*p));
		for (size_t n = sim->pgdat_cap; n < nr_nodes; n++)
			for (int z = 0; z < MAX_NR_ZONES; z++)
				spin_lock_init(&p[n].node_zones[z].lock);
		sim->pgdat_buf = p;
		sim->pgdat_cap = nr_nodes;
	}
	return 0;
}

/*
 * Zones with present pages: only they get pagesets, so a 64-node box with
 * a zone or two per node pays for those, not for MAX_NR_ZONES per node.
 */
static size_t populated_zones(const struct mm_config *cfg)
{
	size_t n = 0;

	for (unsigned int node = 0; node < cfg->nr_nodes; node++)
		for (int zt = 0; zt < MAX_NR_ZONES; zt++)
			n += cfg->zones[node][zt].present != 0;
	return n;
}

/* *slot: the next populated zone's index into the (zone, cpu) buffers. */
static void zone_init(struct mm_sim *sim, struct zone *z, int node, enum zone_type zt, size_t *slot)
{
	const struct mm_zone_config *zc = &sim->cfg.zones[node][zt];
	spinlock_t lock = z->lock;

	memset(z, 0, sizeof(*z));
	z->lock = lock;
	z->sim = sim;
	z->node = node;
	z->type = zt;
	z->zone_id = (uint16_t)(node * MAX_NR_ZONES + zt);
	z->zone_start_pfn = zc->start_pfn;
	z->spanned_pages = zc->spanned;
	z->present_pages = zc->present;
	z->first_deferred_pfn = zc->start_pfn + zc->managed;
	_mm_free_area_init(z);
	if (zc->present) {
		size_t first = (*slot)++ * sim->nr_cpus;
		z->per_cpu_pageset = &sim->pcp_buf[first];
		z->pcp_locks = &sim->pcp_lock_buf[first];
		z->per_cpu_zonestats = &sim->zonestat_buf[first];
		/* Before the boot free: it already counts through the diffs. */
		_mm_vmstat_init_zone(z);
	}
	sim->reset_bytes += sizeof(*z);
}

/*
 * models memmap_init_zone_range(): every page gets its zone, every
 * pageblock starts MOVABLE. All zones are laid out before any is freed, so
 * no merge can see a stale descriptor of the machine built before.
 */
MM_SCAN static void memmap_init_zone(struct mm_sim *sim, struct zone *z)
{
	const struct mm_zone_config *zc = &sim->cfg.zones[z->node][z->type];
	uint64_t start = zc->start_pfn, end = start + zc->spanned;
	uint64_t free_end = start + zc->managed;
	struct page free_tail = {.state = PG_FREE_TAIL, .zone_id = z->zone_id};
	struct page reserved = {.state = PG_RESERVED, .zone_id = z->zone_id};
	struct page uninit = {.state = PG_UNINIT, .zone_id = z->zone_id};

	/*
	 * The zone's span lies below max_pfn (mm_config_validate): mem_map
	 * covers it. Three runs, not a test per page: this is every input's
	 * boot, and a run of one descriptor compiles to wide stores.
	 */
	uint64_t deferred = z->first_deferred_pfn < end ? z->first_deferred_pfn : end;
	uint64_t uninit_end = free_end > deferred ? (free_end < end ? free_end : end) : deferred;
	for (uint64_t pfn = start; pfn < deferred; pfn++)
		sim->mem_map[pfn] = free_tail;
	for (uint64_t pfn = deferred; pfn < uninit_end; pfn++)
		sim->mem_map[pfn] = uninit;
	for (uint64_t pfn = uninit_end; pfn < end; pfn++)
		sim->mem_map[pfn] = reserved;
	for (uint64_t pfn = pageblock_start_pfn(sim, start); pfn < end;
	     pfn += UINT64_C(1) << sim->pageblock_order)
		set_pageblock_migratetype(sim, pfn, MIGRATE_MOVABLE);
	sim->reset_bytes += (size_t)zc->spanned * sizeof(struct page);
}

/*
 * models memblock_free_all() and __free_pages_core(): the managed part of the zone (its head; the
 * reserved and hole pages sit at its tail) is freed in the largest aligned
 * blocks that fit, to the tail of the lists, and merges from there.
 */
static void zone_free_managed(struct mm_sim *sim, struct zone *z)
{
	zone_lock(z);
	_mm_free_boot_range(z, z->zone_start_pfn, z->first_deferred_pfn);
	zone_unlock(z);
	(void)sim;
}

/* Pfns in no zone: gaps between zones and nodes. */
static void memmap_clear(struct mm_sim *sim, uint64_t start, uint64_t end)
{
	/* PG_NOZONE and zone 0 are zero: a zeroed descriptor is a hole */
	_Static_assert(PG_NOZONE == 0, "a zeroed descriptor is a hole");
	memset(&sim->mem_map[start], 0, (size_t)(end - start) * sizeof(struct page));
	sim->reset_bytes += (size_t)(end - start) * sizeof(struct page);
}

/*
 * Clears the gaps only: most machines have one, below the first zone, and
 * the memmap is every input's largest buffer. The spans are sorted by start
 * (a node's zones come in order, the nodes need not).
 */
MM_SCAN static void memmap_init_holes(struct mm_sim *sim)
{
	struct {
		uint64_t start, end;
	} span[MM_MAX_NODES * MAX_NR_ZONES];
	unsigned int nr = 0;
	uint64_t pfn = 0;

	for_each_zone(sim, z) {
		if (!z->spanned_pages)
			continue;
		unsigned int i = nr++;
		for (; i && span[i - 1].start > z->zone_start_pfn; i--)
			span[i] = span[i - 1];
		span[i].start = z->zone_start_pfn;
		span[i].end = z->zone_start_pfn + z->spanned_pages;
	}
	for (unsigned int i = 0; i < nr; i++) {
		if (span[i].start > pfn)
			memmap_clear(sim, pfn, span[i].start);
		if (span[i].end > pfn)
			pfn = span[i].end;
	}
	if (sim->max_pfn > pfn)
		memmap_clear(sim, pfn, sim->max_pfn);
}

/* Lays out every node, zone and page descriptor of the configured machine. */
MM_NO_COVERAGE static void memmap_init(struct mm_sim *sim)
{
	size_t nr_blocks = (size_t)(sim->max_pfn >> sim->pageblock_order) + 1, slot = 0;
	memset(sim->pageblock_flags, 0, nr_blocks);
	sim->reset_bytes += nr_blocks;
	for (unsigned int n = 0; n < sim->nr_nodes; n++) {
		struct pglist_data *pgdat = &sim->pgdat_buf[n];
		sim->node_data[n] = pgdat;
		pgdat->node_id = (int)n;
		for (int zt = 0; zt < MAX_NR_ZONES; zt++)
			zone_init(sim, &pgdat->node_zones[zt], (int)n, zt, &slot);
	}
	uint64_t covered = 0;
	for_each_zone(sim, z)
		covered += z->spanned_pages;
	if (covered != sim->max_pfn)
		memmap_init_holes(sim);
	_mm_deferred_init_layout(sim);
	for_each_zone(sim, z)
		if (z->spanned_pages)
			memmap_init_zone(sim, z);
	for_each_zone(sim, z)
		if (z->spanned_pages)
			zone_free_managed(sim, z);
}

int mm_sim_init(struct mm_sim *sim, const struct mm_config *cfg, int variant)
{
	if (mm_config_validate(cfg, NULL, 0))
		return -1;
	_mm_config_copy(&sim->cfg, cfg);
	sim->max_order = cfg->max_order;
	sim->pageblock_order = cfg->pageblock_order;
	sim->nr_nodes = cfg->nr_nodes;
	sim->max_pfn = mm_config_max_pfn(cfg);
	if (reserve_buffers(sim, sim->max_pfn, cfg->nr_nodes) ||
	    reserve_pcp(sim, populated_zones(cfg) * mm_config_nr_cpus(cfg)) ||
	    reserve_zonestats(sim, populated_zones(cfg) * mm_config_nr_cpus(cfg)) ||
	    reserve_cpu_stats(sim, mm_config_nr_cpus(cfg)))
		return -1;

	sim->reset_bytes = 0;
	_mm_policy_default(&sim->policy);
	_mm_policy_apply_variant(&sim->policy, variant);
	_mm_policy_apply_plugin(&sim->policy);
	sim->variant = variant;
	_mm_topology_init(sim);
	sim->min_free_kbytes = cfg->min_free_kbytes;
	sim->user_min_free_kbytes = cfg->min_free_kbytes != 0;
	sim->watermark_scale_factor = cfg->watermark_scale_factor;
	sim->watermark_boost_factor = sim->boost_factor_seen = 15000; /* the kernel's default */
	sim->percpu_pagelist_high_fraction = cfg->percpu_pagelist_high_fraction;
	atomic_store_explicit(&sim->nr_violations, 0, memory_order_relaxed);
	for (int item = 0; item < NR_VM_ZONE_STAT_ITEMS; item++)
		atomic_long_set(&sim->vm_zone_stat[item], 0);
	sim->handles = NULL;
	sim->nr_handles = 0;
	free(sim->node_distance); /* a new machine: every remote node at 20 again */
	sim->node_distance = NULL;

	memmap_init(sim);
	_mm_kswapd_reset(sim);
	_mm_build_zonelists(sim);
	/* setup_per_cpu_pageset(): boot pagesets, sized by the watermark initcall below */
	for_each_zone(sim, z) {
		if (z->per_cpu_pageset) {
			_mm_pcp_init_zone(z);
			sim->reset_bytes += sim->nr_cpus * (sizeof(struct per_cpu_pages) +
							    sizeof(struct per_cpu_zonestat));
		}
	}
	init_per_zone_wmark_min(sim);
	cacheinfo_boot(sim); /* cacheinfo_sysfs_init(): each CPU's PCPF_FREE_HIGH_BATCH */
	/* The figures start with the booted machine. */
	for_each_zone(sim, z) {
		z->min_exact_free = z->vm_stat_exact[NR_FREE_PAGES];
		z->max_drift = 0;
	}
	/* Boot counts nothing: zone->lock trips of init are not the workload's. */
	memset(sim->cpu_stats, 0, sim->nr_cpus * sizeof(*sim->cpu_stats));
	sim->reset_bytes += sim->nr_cpus * sizeof(*sim->cpu_stats);
	/* percpu_counters, vm_committed_as (sized by totalram), no mm_structs yet */
	if (_mm_pcpu_state_reset(sim))
		return -1;
	/* compaction's scratch lists, the fill pool and its counters */
	if (_mm_compaction_reset(sim))
		return -1;
	/* the checker's record of the boot-time recompute (check_derived.c) */
	_mm_derived_boot(sim);
	return 0;
}

void mm_sim_set_violation_handler(struct mm_sim *sim, mm_violation_fn fn, void *arg)
{
	sim->on_violation = fn;
	sim->violation_arg = arg;
}

unsigned long mm_sim_violations(const struct mm_sim *sim)
{
	return atomic_load_explicit(&sim->nr_violations, memory_order_relaxed);
}

void mm_sim_set_strict_watermarks(struct mm_sim *sim, bool on)
{
	sim->strict_watermarks = on;
}

size_t mm_sim_reset_bytes(const struct mm_sim *sim)
{
	return sim->reset_bytes;
}

size_t mm_page_descriptor_size(void)
{
	return sizeof(struct page);
}

int mm_zone_info(const struct mm_sim *sim, int node, enum zone_type zt, struct mm_zone_info *out)
{
	if (node < 0 || (unsigned int)node >= sim->nr_nodes || (unsigned int)zt >= MAX_NR_ZONES)
		return -1;
	const struct zone *z = &sim->node_data[node]->node_zones[zt];

	memset(out, 0, sizeof(*out));
	out->node = node;
	out->type = zt;
	out->start_pfn = z->zone_start_pfn;
	out->spanned = z->spanned_pages;
	out->present = z->present_pages;
	out->managed = zone_managed_pages(z);
	for (int i = 0; i < NR_WMARK; i++)
		out->wmark[i] = READ_ONCE(z->_watermark[i]);
	for (int i = 0; i < MAX_NR_ZONES; i++)
		out->lowmem_reserve[i] = READ_ONCE(z->lowmem_reserve[i]);
	out->nr_free_pages = zone_page_state(z, NR_FREE_PAGES);
	out->nr_free_exact = z->vm_stat_exact[NR_FREE_PAGES];
	out->min_exact_free = z->min_exact_free;
	out->max_drift = z->max_drift;
	out->nr_pcp_pages = zone_pcp_totals(z).pcp;
	out->pcp_batch = z->pageset_batch;
	out->pcp_high_min = z->pageset_high_min;
	out->pcp_high_max = z->pageset_high_max;
	for (unsigned int o = 0; o < MM_NR_PAGE_ORDERS; o++)
		out->nr_free[o] = READ_ONCE(z->free_area[o].nr_free);
	return 0;
}

void mm_sim_stats(const struct mm_sim *sim, struct mm_stats *out)
{
	memset(out, 0, sizeof(*out));
	for (unsigned int cpu = 0; cpu < sim->nr_cpus; cpu++) {
		const struct mm_cpu_stats *s = &sim->cpu_stats[cpu];
#define SUM(f) out->f += atomic_load_explicit(&s->f, memory_order_relaxed)
		SUM(zone_lock_acquisitions);
		SUM(pcp_refills);
		SUM(pcp_pages_refilled);
		SUM(pcp_bulk_frees);
		SUM(pcp_pages_flushed);
		SUM(pcp_drains_high);
		SUM(pcp_drain_all);
		SUM(pcp_pages_drained_offline);
		SUM(alloc_success);
		SUM(alloc_fail);
		SUM(frees);
		SUM(wmark_refused);
		SUM(splits);
		SUM(merges);
		SUM(fallbacks);
		SUM(blocks_stolen);
		SUM(full_checks);
		SUM(vmstat_folds);
		SUM(vmstat_updates);
		SUM(snapshot_reads);
		SUM(snapshot_remote_lines);
		SUM(kswapd_wakes);
		SUM(kswapd_reclaimed);
#undef SUM
	}
}

void mm_set_jitter(struct mm_sim *sim, mm_jitter_fn fn, void *arg)
{
	sim->jitter = fn;
	sim->jitter_arg = arg;
}
