/* SPDX-License-Identifier: MIT */
/*
 * test_derived.c - the derived-state invariants (src/check_derived.c) and
 * the gfp oracle (src/oracle_gfp.c): each runs clean on a correct machine,
 * and reports its ID when the value it checks is corrupted the way a bug
 * in the derivation would leave it. Each corruption test fails with its
 * check removed.
 */
#include "common.h"
#include "internal.h"

/*
 * 1 node, 4 CPUs, DMA32 and Normal of 64 Ki pages each: batch 15, normal
 * threshold 18. min_free_kbytes 0 is the kernel's default (2896 kB: Normal's
 * low - min is 90, no drift mark); 128 leaves a gap of 65 < 4 x 18.
 */
static struct mm_sim *derived_sim_kb(struct vrec *vr, unsigned int min_free_kbytes)
{
	struct mm_config cfg;
	struct mm_sim *sim;

	cfg_tiny(&cfg, 4, 10, 9);
	cfg.watermark_scale_factor = 10;
	cfg.min_free_kbytes = min_free_kbytes;
	cfg_zone(&cfg, 0, ZONE_DMA32, 0, 65536, 65536);
	cfg_zone(&cfg, 0, ZONE_NORMAL, 65536, 65536, 65536);
	sim = sim_new(&cfg);
	sim->serial = true;
	sim_record(sim, vr);
	ck_assert_uint_eq(_mm_check_derived_full(sim), 0);
	ck_assert_uint_eq(vr->n, 0);
	return sim;
}

static struct mm_sim *derived_sim(struct vrec *vr)
{
	return derived_sim_kb(vr, 0);
}

static struct zone *normal(struct mm_sim *sim)
{
	return &sim->node_data[0]->node_zones[ZONE_NORMAL];
}

static void assert_reported(struct mm_sim *sim, struct vrec *vr, const char *id)
{
	ck_assert_uint_ne(_mm_check_derived_full(sim), 0);
	ck_assert_msg(vrec_has(vr, id), "%s not reported (first: %s)", id, vr->first);
}

START_TEST(test_clean_after_events)
{
	struct vrec vr;
	struct mm_sim *sim = derived_sim(&vr);

	/* Each event the kernel recomputes for, each followed by its check. */
	ck_assert_int_eq(mm_cpu_offline(sim, 3), 0);
	ck_assert_uint_eq(_mm_check_derived(sim), 0);
	mm_set_min_free_kbytes(sim, 4096);
	ck_assert_uint_eq(_mm_check_derived(sim), 0);
	mm_set_watermark_scale_factor(sim, 300);
	ck_assert_uint_eq(_mm_check_derived(sim), 0);
	ck_assert_int_eq(mm_set_high_fraction(sim, 16), 0);
	ck_assert_uint_eq(_mm_check_derived(sim), 0);
	ck_assert_int_eq(mm_cpu_online(sim, 3), 0);
	ck_assert_uint_eq(_mm_check_derived_full(sim), 0);
	ck_assert_msg(vr.n == 0, "%s", vr.first);
	mm_sim_destroy(sim);
}
END_TEST

static void corrupt_wmark(struct mm_sim *sim)
{
	normal(sim)->_watermark[WMARK_LOW]++;
}

static void corrupt_min_free_kbytes(struct mm_sim *sim)
{
	ck_assert(!sim->user_min_free_kbytes);
	sim->min_free_kbytes--;
}

static void corrupt_lowmem(struct mm_sim *sim)
{
	/* DMA32 keeps Normal's 65536 / 256 = 256 pages from Normal requests. */
	struct zone *dma32 = &sim->node_data[0]->node_zones[ZONE_DMA32];
	ck_assert_uint_eq(dma32->lowmem_reserve[ZONE_NORMAL], 256);
	dma32->lowmem_reserve[ZONE_NORMAL] = 255;
}

static void corrupt_pcp_batch(struct mm_sim *sim)
{
	/* 65536 >> 10 = 64, / 4 = 16, rounddown_pow_of_two(24) - 1 = 15 */
	ck_assert_int_eq(normal(sim)->pageset_batch, 15);
	normal(sim)->pageset_batch = 7; /* as zone_batchsize() one bit off would leave it */
}

static void corrupt_pcp_high(struct mm_sim *sim)
{
	/* high_max = managed / 8 / 4 CPUs = 2048 */
	ck_assert_int_eq(normal(sim)->pageset_high_max, 2048);
	normal(sim)->pageset_high_max = 2047;
}

static void corrupt_vmstat_threshold(struct mm_sim *sim)
{
	/* 2 * fls(4) * (1 + fls(65536 >> 15)) = 2 * 3 * 3 = 18 */
	ck_assert_int_eq(normal(sim)->per_cpu_zonestats[1].stat_threshold, 18);
	normal(sim)->per_cpu_zonestats[1].stat_threshold = 17;
}

static void corrupt_drift_mark(struct mm_sim *sim)
{
	/* low - min = 65 < 4 CPUs * 18: the mark is high + 72 */
	struct zone *z = normal(sim);
	ck_assert_uint_eq(z->percpu_drift_mark, wmark_pages(z, WMARK_HIGH) + 72);
	z->percpu_drift_mark = 0;
}

START_TEST(test_hotplug_without_refresh)
{
	struct vrec vr;
	struct mm_sim *sim = derived_sim_kb(&vr, 128);

	/* A CPU goes offline and nothing refreshes: the shadow expects the refresh. */
	atomic_store(&sim->cpu_online[3], false);
	atomic_fetch_sub(&sim->nr_online, 1);
	atomic_fetch_sub(&sim->node_nr_online[0], 1);
	ck_assert_uint_ne(_mm_derived_check_vmstat(sim), 0);
	ck_assert(vrec_has(&vr, "INV-DERIVED-VMSTAT-THRESH") ||
		  vrec_has(&vr, "INV-DERIVED-DRIFT-MARK"));
	mm_sim_destroy(sim);
}
END_TEST

static void corrupt_managed(struct mm_sim *sim)
{
	atomic_long_add(-1, &normal(sim)->managed_pages); /* a page handed to no one */
}

static void corrupt_pcpu_batch(struct mm_sim *sim)
{
	ck_assert_int_eq(sim->pcc->percpu_counter_batch, 32);
	sim->pcc->percpu_counter_batch = 8;
}

static void corrupt_commit_batch(struct mm_sim *sim)
{
	/* 131072 pages / 4 CPUs / 4 = 8192 under GUESS */
	ck_assert_int_eq(sim->pcc->vm_committed_as_batch, 8192);
	ck_assert_int_eq(mm_set_overcommit_memory(sim, MM_OVERCOMMIT_NEVER), 0);
	ck_assert_int_eq(sim->pcc->vm_committed_as_batch, 128);
	sim->pcc->vm_committed_as_batch = 8192; /* the switch kept the old batch */
}

static void corrupt_highatomic(struct mm_sim *sim)
{
	normal(sim)->nr_reserved_highatomic = 512; /* no HIGHATOMIC pageblock */
}

/* Each row: the ID, the machine's min_free_kbytes, and what a bug would leave. */
static const struct corruption {
	const char *id;
	unsigned int min_free_kbytes;
	void (*corrupt)(struct mm_sim *sim);
} corruptions[] = {
	{"INV-DERIVED-WMARK", 0, corrupt_wmark},
	{"INV-DERIVED-MIN-FREE-KBYTES", 0, corrupt_min_free_kbytes},
	{"INV-DERIVED-LOWMEM", 0, corrupt_lowmem},
	{"INV-DERIVED-PCP-BATCH", 0, corrupt_pcp_batch},
	{"INV-DERIVED-PCP-HIGH", 0, corrupt_pcp_high},
	{"INV-DERIVED-VMSTAT-THRESH", 0, corrupt_vmstat_threshold},
	{"INV-DERIVED-DRIFT-MARK", 128, corrupt_drift_mark},
	{"INV-DERIVED-MANAGED", 0, corrupt_managed},
	{"INV-DERIVED-PCPU-BATCH", 0, corrupt_pcpu_batch},
	{"INV-DERIVED-COMMIT-BATCH", 0, corrupt_commit_batch},
	{"INV-DERIVED-HIGHATOMIC", 0, corrupt_highatomic},
};

START_TEST(test_corruption)
{
	const struct corruption *c = &corruptions[_i];
	struct vrec vr;
	struct mm_sim *sim = derived_sim_kb(&vr, c->min_free_kbytes);

	c->corrupt(sim);
	assert_reported(sim, &vr, c->id);
	mm_sim_destroy(sim);
}
END_TEST

START_TEST(test_kswapd_request_corrupt)
{
	struct vrec vr;
	struct mm_sim *sim = derived_sim(&vr);
	struct kswapd_state *k = &sim->node_data[0]->kswapd;

	wakeup_kswapd(normal(sim), MM_GFP_KERNEL, 3, ZONE_NORMAL);
	ck_assert_uint_eq(_mm_derived_check_kswapd_request(sim, 0, 3, ZONE_NORMAL), 0);
	k->highest_zoneidx = ZONE_DMA32; /* the wake kept a lower zone */
	ck_assert_uint_eq(_mm_derived_check_kswapd_request(sim, 0, 3, ZONE_NORMAL), 1);
	ck_assert(vrec_has(&vr, "INV-KSWAPD-REQUEST"));
	mm_sim_destroy(sim);
}
END_TEST

/*
 * The allocator's wakes are checked where they happen: after
 * wake_all_kswapds() of the slow path, each node's request covers the
 * allocation's order and zone. With kswapd-wake-first-zone-only (the
 * request's zone set only while none is recorded) a GFP_DMA32 allocation
 * below DMA32's low mark wakes kswapd for DMA32, and a GFP_KERNEL one
 * below both marks then for Normal: the request keeps DMA32, reported at
 * that allocation. No full check follows, and none looks at the request.
 * The correct model runs the same allocations clean. One CPU, no pcp
 * lists, 256 pages in each zone, min_free_kbytes 128.
 */
static long below_low(struct mm_sim *sim, enum zone_type zt, unsigned int gfp)
{
	const struct zone *z = &sim->node_data[0]->node_zones[zt];
	uint32_t gen;
	long n = 0;

	while (z->vm_stat_exact[NR_FREE_PAGES] >= (long)wmark_pages(z, WMARK_LOW) && n < 256) {
		ck_assert_int_ge(mm_alloc_pages(sim, 0, gfp, -1, 1, &gen), 0);
		n++;
	}
	return n;
}

START_TEST(test_alloc_wakes_checked_at_once)
{
	const bool variant = _i;
	struct mm_config cfg;
	struct vrec vr;
	uint32_t gen;

	cfg_tiny(&cfg, 1, 5, 4);
	cfg.min_free_kbytes = 128;
	cfg.watermark_scale_factor = 10;
	cfg_zone(&cfg, 0, ZONE_DMA32, 0, 256, 256);
	cfg_zone(&cfg, 0, ZONE_NORMAL, 256, 256, 256);
	struct mm_sim *sim =
		variant ? sim_new_variant(&cfg, "kswapd-wake-first-zone-only") : sim_new(&cfg);
	struct kswapd_state *k = &sim->node_data[0]->kswapd;

	sim->serial = true;
	mm_zone_pcp_disable(sim, 0, ZONE_DMA32);
	mm_zone_pcp_disable(sim, 0, ZONE_NORMAL);
	sim_record(sim, &vr);
	mm_set_current_cpu(0);
	ck_assert_int_gt(below_low(sim, ZONE_DMA32, MM_GFP_KERNEL | MM_GFP_DMA32), 0);
	ck_assert_int_ge(mm_alloc_pages(sim, 0, MM_GFP_KERNEL | MM_GFP_DMA32, -1, 1, &gen), 0);
	ck_assert_int_eq(k->highest_zoneidx, ZONE_DMA32);
	ck_assert_msg(vr.n == 0, "%s", vr.first);
	ck_assert_int_gt(below_low(sim, ZONE_NORMAL, MM_GFP_KERNEL), 0);
	mm_alloc_pages(sim, 0, MM_GFP_KERNEL, -1, 1, &gen);
	if (variant) {
		ck_assert_int_eq(k->highest_zoneidx, ZONE_DMA32);
		ck_assert_msg(vrec_has(&vr, "INV-KSWAPD-REQUEST"), "%u reports: %s", vr.n,
			      vr.first);
	} else {
		ck_assert_int_eq(k->highest_zoneidx, ZONE_NORMAL);
		ck_assert_msg(vr.n == 0, "%s", vr.first);
	}
	mm_sim_destroy(sim);
}
END_TEST

START_TEST(test_alloc_flags_oracle)
{
	struct vrec vr;
	struct mm_sim *sim = derived_sim(&vr);
	unsigned int gfp = MM_GFP_KSWAPD_RECLAIM | MM_GFP_NOMEMALLOC;

	/* GFP_NOWAIT | __GFP_NOMEMALLOC: the min mark, no reserves */
	ck_assert_uint_eq(_mm_oracle_check_alloc(sim, gfp, 0,
						 ALLOC_WMARK_MIN | ALLOC_CPUSET | ALLOC_KSWAPD,
						 ZONE_NORMAL, MIGRATE_UNMOVABLE),
			  0);
	/* the survivor of issue 14: handed the non-blocking reserve access */
	ck_assert_uint_eq(_mm_oracle_check_alloc(sim, gfp, 0,
						 ALLOC_WMARK_MIN | ALLOC_CPUSET | ALLOC_KSWAPD |
							 ALLOC_NON_BLOCK,
						 ZONE_NORMAL, MIGRATE_UNMOVABLE),
			  1);
	ck_assert(vrec_has(&vr, "INV-ALLOC-FLAGS"));
	ck_assert_uint_eq(_mm_oracle_check_alloc(sim, MM_GFP_DMA32 | MM_GFP_MOVABLE, 0,
						 _mm_oracle_alloc_flags(MM_GFP_DMA32, 0),
						 ZONE_NORMAL, MIGRATE_MOVABLE),
			  1);
	ck_assert(vrec_has(&vr, "INV-ALLOC-ZONE"));
	mm_sim_destroy(sim);
}
END_TEST

/*
 * The program runs clean, and reports INV-DERIVED-STALE with
 * --strict-watermarks: a window the kernel leaves, found only on request.
 */
static struct mm_exec *stale_in_strict_mode_only(const char *prog, struct vrec *vr)
{
	struct mm_exec *ex = mm_exec_create();
	struct mm_exec_opts o;
	long failed;

	ck_assert_ptr_nonnull(ex);
	mm_exec_opts_default(&o);
	ck_assert_msg(exec_text(ex, prog, &o, vr, &failed) == 0, "%s", vr->first);
	o.strict_watermarks = true;
	ck_assert_int_ne(exec_text(ex, prog, &o, vr, &failed), 0);
	ck_assert_msg(vrec_has(vr, "INV-DERIVED-STALE"), "%s", vr->first);
	return ex;
}

/* The strict mode's finding: a watermark sysctl leaves the drift mark stale. */
START_TEST(test_stale_drift_mark_strict_only)
{
	static const char prog[] =
		"config nodes=1 cpus=8 max_order=10 pageblock_order=9 min_free_kbytes=0 "
		"watermark_scale_factor=1000 high_fraction=0\n"
		"zone 0 Normal start=0 spanned=1024 present=1024 managed=1024\n"
		"cpu0 sysctl watermark_scale_factor=10\n"
		"check\n";
	struct vrec vr;

	/* 8 CPUs x threshold 8 = 64 > low - min 16 once the gap shrinks; no refresh runs */
	mm_exec_destroy(stale_in_strict_mode_only(prog, &vr));
}
END_TEST

/*
 * Found by fuzz_compaction: a DMA zone of 116 pages (cap 116 / 100 + 8 = 9)
 * reserves two pageblocks of 8 for its high-order non-blocking allocations
 * (the second while 8 < 9), then offline_pages() takes 24 of its pages: the cap
 * of today, 92 / 100 + 8, is one pageblock, and nothing gives the reserve
 * back, in the kernel too. The bound holds for the zone's 116 pages; the
 * reserve above today's cap is reported only in strict mode. The bound
 * itself still binds: four reserved pageblocks in a Normal zone of 65536
 * pages (at most 1536 pages) are a violation with every count right.
 */
START_TEST(test_highatomic_reserve_after_offline)
{
	static const char prog[] =
		"config nodes=1 cpus=2 max_order=4 pageblock_order=3 min_free_kbytes=256 "
		"watermark_scale_factor=2535 high_fraction=246\n"
		"zone 0 DMA start=139 spanned=116 present=116 managed=116\n"
		"zone 0 Movable start=255 spanned=138 present=138 managed=0\n"
		"cpu1 alloc a0 order=4 gfp=HIGHMEM|KSWAPD_RECLAIM node=0\n"
		"cpu1 alloc a1 order=4 gfp=HIGHMEM|KSWAPD_RECLAIM node=0\n"
		"cpu0 alloc a2 order=1 gfp=DMA32|HIGH|KSWAPD_RECLAIM\n"
		"cpu1 offline_pages node=0 zone=DMA start=200 pages=24\n"
		"check\n";
	struct vrec vr;
	struct mm_exec *ex = stale_in_strict_mode_only(prog, &vr);
	struct zone *dma = &mm_exec_sim(ex)->node_data[0]->node_zones[ZONE_DMA];

	ck_assert(!vrec_has(&vr, "INV-DERIVED-HIGHATOMIC"));
	ck_assert_uint_eq(dma->nr_reserved_highatomic, 16);
	ck_assert_uint_eq(zone_managed_pages(dma), 92);
	mm_exec_destroy(ex);

	struct mm_sim *sim = derived_sim(&vr);
	for (uint64_t pfn = 65536; pfn < 65536 + 4 * 512; pfn += 512)
		sim->pageblock_flags[pfn >> 9] =
			(uint8_t)((sim->pageblock_flags[pfn >> 9] & ~PB_MIGRATETYPE_MASK) |
				  MIGRATE_HIGHATOMIC);
	normal(sim)->nr_reserved_highatomic = 4 * 512;
	ck_assert_uint_ne(mm_check_full(sim), 0);
	ck_assert_msg(vrec_has(&vr, "INV-DERIVED-HIGHATOMIC"), "%s", vr.first);
	mm_sim_destroy(sim);
}
END_TEST

/* ------------------------------------------------------------------------
 * The decision oracles: free_high, compaction priority, resets and flushes
 * ---------------------------------------------------------------------- */

START_TEST(test_free_high_oracle)
{
	struct vrec vr;
	struct mm_sim *sim = derived_sim(&vr);
	/* an order-3 free after an order-1 free, 15 pages freed since, batch 15 */
	struct pcp_free_inputs in = {PCPF_PREV_FREE_HIGH_ORDER, 15, 40, 15, 3};

	ck_assert(_mm_oracle_free_high(&in));
	_mm_oracle_check_free_high(normal(sim), 0, &in, PCPF_PREV_FREE_HIGH_ORDER, true, 40);
	ck_assert_uint_eq(vr.n, 0);
	/* the survivor of issue 14: the free_high path loses order 3 */
	_mm_oracle_check_free_high(normal(sim), 0, &in, PCPF_PREV_FREE_HIGH_ORDER, false, 0);
	ck_assert(vrec_has(&vr, "INV-PCP-FREE-HIGH"));
	vrec_init(&vr);
	/* the decision right, the flush short */
	_mm_oracle_check_free_high(normal(sim), 0, &in, PCPF_PREV_FREE_HIGH_ORDER, true, 15);
	ck_assert(vrec_has(&vr, "INV-PCP-FREE-HIGH"));
	mm_sim_destroy(sim);
}
END_TEST

/* One CPU, a 256-page Normal zone in 32-page pageblocks, no pcp lists. */
static struct mm_sim *compaction_sim(struct vrec *vr)
{
	struct mm_config cfg;

	cfg_tiny(&cfg, 1, 6, 5);
	cfg_zone(&cfg, 0, ZONE_NORMAL, 0, 256, 256);
	struct mm_sim *sim = sim_new(&cfg);
	mm_zone_pcp_disable(sim, 0, ZONE_NORMAL);
	sim->serial = true;
	sim_record(sim, vr);
	return sim;
}

START_TEST(test_compact_prio_corrupt)
{
	struct vrec vr;
	struct mm_sim *sim = compaction_sim(&vr);
	struct compact_control cc = {.zone = normal(sim), .direct_compaction = true};

	compact_check_priority(&cc, MM_COMPACT_PRIO_ASYNC);
	ck_assert_uint_eq(vr.n, 0);
	cc.mode = MM_MIGRATE_SYNC_LIGHT; /* the mode of the sync priorities */
	/* the survivor of issue 14: the highest priority does not scan the whole zone */
	cc.ignore_skip_hint = cc.ignore_block_suitable = true;
	compact_check_priority(&cc, MM_COMPACT_PRIO_SYNC_FULL);
	ck_assert(vrec_has(&vr, "INV-COMPACT-PRIO"));
	/* whole_zone set, but the scanners start from the cached pfns */
	vrec_init(&vr);
	cc.whole_zone = true;
	compact_check_priority(&cc, MM_COMPACT_PRIO_SYNC_FULL);
	ck_assert_uint_eq(vr.n, 0);
	cc.migrate_pfn = 64;
	cc.free_pfn = 224;
	compact_check_prio_start(&cc);
	ck_assert(vrec_has(&vr, "INV-COMPACT-PRIO"));
	/* a costly order at MIN_COMPACT_PRIORITY, or a mode the priority does not use */
	vrec_init(&vr);
	cc.order = 4;
	compact_check_priority(&cc, MM_COMPACT_PRIO_SYNC_FULL);
	ck_assert(vrec_has(&vr, "INV-COMPACT-PRIO"));
	vrec_init(&vr);
	cc.whole_zone = cc.ignore_skip_hint = cc.ignore_block_suitable = false;
	compact_check_priority(&cc, MM_COMPACT_PRIO_SYNC_LIGHT);
	ck_assert_uint_eq(vr.n, 0);
	cc.mode = MM_MIGRATE_SYNC; /* compact_node(): whole zone at any order, sync */
	cc.whole_zone = cc.ignore_skip_hint = cc.ignore_block_suitable = true;
	compact_check_priority(&cc, MM_COMPACT_PRIO_ASYNC);
	ck_assert(vrec_has(&vr, "INV-COMPACT-PRIO"));
	vrec_init(&vr);
	compact_check_priority(&cc, MM_COMPACT_PRIO_SYNC_FULL);
	ck_assert_uint_eq(vr.n, 0);
	cc.order = 0;
	cc.mode = MM_MIGRATE_SYNC_LIGHT;
	/* a whole-zone pass whose scanners met ends COMPLETE, not PARTIAL_SKIPPED */
	vrec_init(&vr);
	compact_check_result(&cc, MM_COMPACT_COMPLETE);
	ck_assert_uint_eq(vr.n, 0);
	compact_check_result(&cc, MM_COMPACT_PARTIAL_SKIPPED);
	ck_assert(vrec_has(&vr, "INV-COMPACT-PRIO"));
	/* a pass from the cached pfns past the reset's first usable block is not whole-zone */
	vrec_init(&vr);
	cc.prio_whole_zone = false;
	normal(sim)->compact_init_migrate_pfn = 0;
	compact_check_prio_start(&cc);
	ck_assert(vrec_has(&vr, "INV-COMPACT-PRIO"));
	mm_sim_destroy(sim);
}
END_TEST

START_TEST(test_compact_cached_pfn_corrupt)
{
	struct vrec vr;
	struct mm_sim *sim = compaction_sim(&vr);
	struct zone *z = normal(sim);
	struct compact_control cc = {.zone = z, .direct_compaction = true};

	reset_cached_positions(z);
	z->compact_blockskip_flush = true;
	compact_check_scanners_met(&cc, 0);
	ck_assert_uint_eq(vr.n, 0);
	ck_assert_uint_eq(z->compact_cached_free_pfn, 224);
	z->compact_cached_migrate_pfn[1] = 32; /* the sync scanner's position kept */
	compact_check_scanners_met(&cc, 0);
	ck_assert(vrec_has(&vr, "INV-COMPACT-CACHED-PFN"));
	vrec_init(&vr);
	reset_cached_positions(z);
	z->compact_blockskip_flush = false; /* a direct pass that asked for no flush */
	compact_check_scanners_met(&cc, 0);
	ck_assert(vrec_has(&vr, "INV-COMPACT-SKIP-FLUSH"));
	mm_sim_destroy(sim);
}
END_TEST

/*
 * INV-COMPACT-DEFER's rule check: after each deferral event the zone's
 * fields, and a question's answer, are what the kernel's rule gives from
 * the fields before it. Each row sets the fields a broken function would
 * leave and asks the check, against the rule's own result first.
 */
static const struct defer_row {
	enum compact_defer_event ev;
	int order;
	bool arg; /* the answer given, or alloc_success */
	struct compact_defer_state before, right, wrong;
	bool wrong_arg; /* for a question: the wrong answer, with the right fields */
} defer_rows[] = {
	/* a question below the limit defers and counts; one at it stores the limit */
	{DEFER_EVENT_ASKED, 3, true, {0, 2, 0}, {1, 2, 0}, {0, 2, 0}, false},
	{DEFER_EVENT_ASKED, 3, false, {3, 2, 0}, {4, 2, 0}, {3, 2, 0}, true},
	/* below order_failed: not deferred, nothing counted */
	{DEFER_EVENT_ASKED, 1, false, {0, 2, 2}, {0, 2, 2}, {1, 2, 2}, true},
	/* a failure: the shift stops at the maximum, order_failed comes down */
	{DEFER_EVENT_FAILED, 2, false, {3, 6, 5}, {0, 6, 2}, {0, 7, 2}, false},
	{DEFER_EVENT_FAILED, 4, false, {3, 1, 2}, {0, 2, 2}, {0, 2, 4}, false},
	/* a success: order_failed past the order, the rest zeroed if it allocated */
	{DEFER_EVENT_SUCCESS, 4, true, {3, 3, 2}, {0, 0, 5}, {0, 0, 4}, false},
	{DEFER_EVENT_SUCCESS, 4, false, {3, 3, 2}, {3, 3, 5}, {0, 0, 5}, false},
};

static void set_defer(struct zone *z, struct compact_defer_state s)
{
	z->compact_considered = s.considered;
	z->compact_defer_shift = s.shift;
	z->compact_order_failed = s.order_failed;
}

START_TEST(test_compact_defer_rule_corrupt)
{
	struct vrec vr;
	struct mm_sim *sim = compaction_sim(&vr);
	struct zone *z = normal(sim);

	for (size_t i = 0; i < ARRAY_SIZE(defer_rows); i++) {
		const struct defer_row *r = &defer_rows[i];

		vrec_init(&vr);
		set_defer(z, r->right);
		compact_check_defer_rule(z, &r->before, r->ev, r->order, r->arg);
		ck_assert_msg(vr.n == 0, "row %zu: %s", i, vr.first);
		set_defer(z, r->wrong);
		compact_check_defer_rule(z, &r->before, r->ev, r->order, r->arg);
		ck_assert_msg(vrec_has(&vr, "INV-COMPACT-DEFER"), "row %zu: no report", i);
		if (r->ev != DEFER_EVENT_ASKED)
			continue;
		vrec_init(&vr);
		set_defer(z, r->right);
		compact_check_defer_rule(z, &r->before, r->ev, r->order, r->wrong_arg);
		ck_assert_msg(vrec_has(&vr, "INV-COMPACT-DEFER"), "row %zu: answer not judged", i);
	}
	/* the model's own functions agree with the rule on every row's start */
	for (size_t i = 0; i < ARRAY_SIZE(defer_rows); i++) {
		const struct defer_row *r = &defer_rows[i];

		vrec_init(&vr);
		set_defer(z, r->before);
		if (r->ev == DEFER_EVENT_ASKED)
			ck_assert_int_eq(compaction_deferred(z, r->order), r->arg);
		else if (r->ev == DEFER_EVENT_FAILED)
			defer_compaction(z, r->order);
		else
			compaction_defer_reset(z, r->order, r->arg);
		ck_assert_msg(vr.n == 0, "row %zu: %s", i, vr.first);
		ck_assert_uint_eq(z->compact_considered, r->right.considered);
		ck_assert_uint_eq(z->compact_defer_shift, r->right.shift);
		ck_assert_int_eq(z->compact_order_failed, r->right.order_failed);
	}
	mm_sim_destroy(sim);
}
END_TEST

START_TEST(test_compact_skip_flush_corrupt)
{
	struct vrec vr;
	struct mm_sim *sim = compaction_sim(&vr);
	struct zone *z = normal(sim);
	uint32_t gen;

	/*
	 * A movable page at pfn 0, the rest free: block 0's sample finds it
	 * and free pages, block 3's ([96, 128), inside the free order-6 block
	 * at 64) finds neither, and keeps its bit.
	 */
	mm_set_current_cpu(0);
	ck_assert_int_eq(mm_alloc_pages(sim, 0, MM_GFP_KERNEL | MM_GFP_MOVABLE, 0, 1, &gen), 0);
	ck_assert_int_eq(sim->mem_map[8].state, PG_BUDDY);
	ck_assert_int_ne(sim->mem_map[96].state, PG_BUDDY);
	/* the real flush, from block 0 and block 3 marked */
	set_pageblock_skip(sim, 0);
	set_pageblock_skip(sim, 96);
	z->compact_blockskip_flush = true;
	compact_check_flush_begin(sim);
	__reset_isolation_suitable(z);
	compact_check_flushed(z);
	ck_assert_msg(vr.n == 0, "%s", vr.first);
	ck_assert(!get_pageblock_skip(sim, 0) && get_pageblock_skip(sim, 96));
	ck_assert_uint_eq(z->compact_cached_migrate_pfn[0], 0);
	ck_assert_uint_eq(z->compact_cached_free_pfn, 223); /* block 6's last pfn, unaligned */
	/* a flush that left block 0 marked */
	set_pageblock_skip(sim, 0);
	compact_check_flush_begin(sim);
	compact_check_flushed(z);
	ck_assert(vrec_has(&vr, "INV-COMPACT-SKIP-FLUSH"));
	/* a flush that cleared block 3, which the rule keeps */
	vrec_init(&vr);
	clear_pageblock_skip(sim, 0);
	compact_check_flush_begin(sim);
	clear_pageblock_skip(sim, 96);
	compact_check_flushed(z);
	ck_assert(vrec_has(&vr, "INV-COMPACT-SKIP-FLUSH"));
	/* a flush that left the request pending */
	vrec_init(&vr);
	z->compact_blockskip_flush = true;
	compact_check_flushed(z);
	ck_assert(vrec_has(&vr, "INV-COMPACT-SKIP-FLUSH"));
	/* a flush that left the free scanner's cached pfn at the zone's last block */
	vrec_init(&vr);
	z->compact_blockskip_flush = false;
	compact_check_flush_begin(sim);
	z->compact_cached_free_pfn = 224;
	compact_check_flushed(z);
	ck_assert(vrec_has(&vr, "INV-COMPACT-CACHED-PFN"));
	/* and the free side's first usable block not recorded */
	vrec_init(&vr);
	z->compact_cached_free_pfn = 223;
	compact_check_flush_begin(sim);
	z->compact_init_free_pfn = 255;
	compact_check_flushed(z);
	ck_assert(vrec_has(&vr, "INV-COMPACT-CACHED-PFN"));
	mm_sim_destroy(sim);
}
END_TEST

/* kswapd going to sleep flushes the skip bits a direct compaction asked it to. */
START_TEST(test_kswapd_sleep_flushes)
{
	struct vrec vr;
	struct mm_sim *sim = compaction_sim(&vr);
	struct zone *z = normal(sim);
	struct mm_op op = {.kind = MM_OP_KSWAPD_SLEEP, .vmstat.node = 0};
	uint32_t gen;

	mm_set_current_cpu(0);
	ck_assert_int_eq(mm_alloc_pages(sim, 0, MM_GFP_KERNEL | MM_GFP_MOVABLE, 0, 1, &gen), 0);
	set_pageblock_skip(sim, 0);
	z->compact_blockskip_flush = true;
	sim->node_data[0]->kswapd = (struct kswapd_state){.awake = true, .failures = 16};
	ck_assert_int_eq(mm_apply_op(sim, &op, NULL, 0, 0), 0);
	ck_assert_msg(vr.n == 0, "%s", vr.first);
	ck_assert(!z->compact_blockskip_flush && !get_pageblock_skip(sim, 0));
	mm_sim_destroy(sim);
}
END_TEST

/*
 * The check after kswapd's sleep (_mm_op_kswapd_sleep()) sees a broken
 * flush. The sleep's last step, set_pgdat_percpu_threshold(), calls the
 * policy's normal threshold for each zone with a drift mark; a hook there
 * undoes the flush (the skip bit of a block holding an LRU page and free
 * pages, or the pending request) after __reset_isolation_suitable() ran and
 * before the check, as a sleep path that skipped or lost the flush would
 * leave it. The op must report INV-COMPACT-SKIP-FLUSH: only that call
 * checks the flush of kswapd's sleep.
 */
enum flush_break {
	FLUSH_KEPT,
	FLUSH_SKIP_BIT,
	FLUSH_PENDING
};
static enum flush_break flush_break;

static int normal_threshold_unflushing(const struct zone *zone)
{
	struct zone *z = (struct zone *)zone;

	if (flush_break == FLUSH_SKIP_BIT)
		set_pageblock_skip(z->sim, z->zone_start_pfn);
	else if (flush_break == FLUSH_PENDING)
		z->compact_blockskip_flush = true;
	return calculate_normal_threshold(zone);
}

START_TEST(test_kswapd_sleep_checks_flush)
{
	static const char *const why[] = {"kept", "a skip bit", "the pending request"};

	for (int b = FLUSH_KEPT; b <= FLUSH_PENDING; b++) {
		struct vrec vr;
		struct mm_sim *sim = compaction_sim(&vr);
		struct zone *z = normal(sim);
		struct mm_op op = {.kind = MM_OP_KSWAPD_SLEEP, .vmstat.node = 0};
		uint32_t gen;

		/* the hook is reached only through a zone with a drift mark */
		ck_assert_uint_ne(z->percpu_drift_mark, 0);
		mm_set_current_cpu(0);
		ck_assert_int_eq(mm_alloc_pages(sim, 0, MM_GFP_KERNEL | MM_GFP_MOVABLE, 0, 1, &gen),
				 0);
		set_pageblock_skip(sim, 0);
		z->compact_blockskip_flush = true;
		sim->node_data[0]->kswapd = (struct kswapd_state){.awake = true, .failures = 16};
		sim->policy.normal_threshold = normal_threshold_unflushing;
		flush_break = (enum flush_break)b;
		ck_assert_int_eq(mm_apply_op(sim, &op, NULL, 0, 0), 0);
		flush_break = FLUSH_KEPT;
		if (b == FLUSH_KEPT)
			ck_assert_msg(vr.n == 0, "%s", vr.first);
		else
			ck_assert_msg(vrec_has(&vr, "INV-COMPACT-SKIP-FLUSH"),
				      "a sleep whose flush left %s: not reported (first: %s)",
				      why[b], vr.first);
		mm_sim_destroy(sim);
	}
}
END_TEST

/*
 * INV-ZONEINFO-STALE-MANAGED: a zoneinfo whose min/low/high are the ones
 * the kernel set up from 4096 managed pages. Printed with managed 4096 it
 * is consistent; printed with managed 8192 (init memory freed after the
 * setup) the model built from it sets its marks up from 8192 and the dump's
 * marks are stale: reported for that zone, with the dump's min expected.
 */
static void zoneinfo_text(char *buf, size_t n, unsigned long managed, const unsigned long *marks)
{
	snprintf(buf, n,
		 "Node 0, zone   Normal\n"
		 "  pages free     100\n"
		 "        min      %lu\n"
		 "        low      %lu\n"
		 "        high     %lu\n"
		 "        spanned  8192\n"
		 "        present  8192\n"
		 "        managed  %lu\n"
		 "  start_pfn:           0\n",
		 marks[0], marks[1], marks[2], managed);
}

static struct mm_sim *zoneinfo_sim(const char *text)
{
	struct mm_config cfg;
	char err[160] = "";
	struct mm_sim *sim = mm_sim_create();

	ck_assert_msg(mm_config_from_zoneinfo(text, 1, NULL, 0, &cfg, err, sizeof(err)) == 0, "%s",
		      err);
	ck_assert_ptr_nonnull(sim);
	ck_assert_int_eq(mm_sim_init(sim, &cfg, -1), 0);
	return sim;
}

START_TEST(test_zoneinfo_stale_managed)
{
	unsigned long none[3] = {0, 0, 0}, at_setup[3];
	char text[512];
	struct mm_sim *sim;
	struct vrec vr;

	/* the marks the kernel's rule gives 4096 managed pages */
	zoneinfo_text(text, sizeof(text), 4096, none);
	sim = zoneinfo_sim(text);
	for (int w = 0; w < 3; w++)
		at_setup[w] = sim->node_data[0]->node_zones[ZONE_NORMAL]._watermark[w];
	mm_sim_destroy(sim);
	ck_assert_uint_gt(at_setup[WMARK_LOW], at_setup[WMARK_MIN]);

	/* consistent: nothing to report */
	zoneinfo_text(text, sizeof(text), 4096, at_setup);
	sim = zoneinfo_sim(text);
	vrec_init(&vr);
	sim_record(sim, &vr);
	ck_assert_uint_eq(mm_zoneinfo_check_marks(sim, text), 0);
	ck_assert_uint_eq(vr.n, 0);
	mm_sim_destroy(sim);

	/* managed grew after the setup: the finding, on node 0's Normal zone */
	zoneinfo_text(text, sizeof(text), 8192, at_setup);
	sim = zoneinfo_sim(text);
	vrec_init(&vr);
	sim_record(sim, &vr);
	ck_assert_uint_eq(mm_zoneinfo_check_marks(sim, text), 1);
	ck_assert(vrec_has(&vr, "INV-ZONEINFO-STALE-MANAGED"));
	/* a text it cannot read: no finding */
	ck_assert_uint_eq(mm_zoneinfo_check_marks(sim, "no zoneinfo\n"), 0);
	ck_assert_uint_ne(sim->node_data[0]->node_zones[ZONE_NORMAL]._watermark[WMARK_MIN],
			  at_setup[WMARK_MIN]);
	mm_sim_destroy(sim);
}
END_TEST

static Suite *derived_suite(void)
{
	Suite *s = suite_create("derived");
	TCase *tc = tcase_create("derived state equals the rule");

	tcase_add_test(tc, test_clean_after_events);
	tcase_add_loop_test(tc, test_corruption, 0, (int)ARRAY_SIZE(corruptions));
	tcase_add_test(tc, test_hotplug_without_refresh);
	tcase_add_test(tc, test_kswapd_request_corrupt);
	tcase_add_loop_test(tc, test_alloc_wakes_checked_at_once, 0, 2);
	tcase_add_test(tc, test_alloc_flags_oracle);
	tcase_add_test(tc, test_stale_drift_mark_strict_only);
	tcase_add_test(tc, test_highatomic_reserve_after_offline);
	suite_add_tcase(s, tc);

	tc = tcase_create("decision oracles");
	tcase_add_test(tc, test_free_high_oracle);
	tcase_add_test(tc, test_compact_prio_corrupt);
	tcase_add_test(tc, test_compact_cached_pfn_corrupt);
	tcase_add_test(tc, test_compact_defer_rule_corrupt);
	tcase_add_test(tc, test_compact_skip_flush_corrupt);
	tcase_add_test(tc, test_kswapd_sleep_flushes);
	tcase_add_test(tc, test_kswapd_sleep_checks_flush);
	tcase_add_test(tc, test_zoneinfo_stale_managed);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(derived_suite());
}
