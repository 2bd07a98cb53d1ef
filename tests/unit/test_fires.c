/* SPDX-License-Identifier: MIT */
/*
 * test_fires.c - every check fires: one row per invariant ID that no other
 * unit test provokes. Each row builds a small machine, corrupts exactly the
 * state its check guards (or breaks the rule through the public API) and
 * asserts that THAT ID is reported, with the node, zone, cpu and pfn
 * docs/invariants.md gives it (-1 when not applicable). Other IDs may fire
 * as well: a corruption often breaks more than one law.
 *
 * Also here: the public API's contracts on out-of-range arguments, and
 * the overcommit reserves of init_user_reserve()/init_admin_reserve().
 */
#include "common.h"
#include "internal.h"

#define GFP_MOV (MM_GFP_MOVABLE | MM_GFP_KERNEL)

/* The first violation with the wanted ID, all its fields. */
struct vfirst {
	const char *want;
	unsigned int n;
	bool seen;
	char first[40]; /* the first ID reported, for the failure message */
	struct mm_violation v;
};

static void vfirst_handler(const struct mm_violation *v, void *arg)
{
	struct vfirst *r = arg;

	if (!r->n++)
		snprintf(r->first, sizeof(r->first), "%s", v->id);
	if (!r->seen && !strcmp(v->id, r->want)) {
		r->seen = true;
		r->v = *v;
	}
}

/* What the row expects besides the ID. */
struct where {
	int node, zone, cpu;
	long long pfn;
	bool check_expected; /* and expected is the kernel's value below */
	long long expected;
};

static struct zone *zone_of(struct mm_sim *sim, int node, enum zone_type zt)
{
	return &sim->node_data[node]->node_zones[zt];
}

/* One Normal zone of 64 pages, nr_cpus CPUs, max_order 3, pageblock_order 2. */
static struct mm_sim *small(unsigned int nr_cpus)
{
	struct mm_config cfg;
	struct mm_sim *sim;

	cfg_tiny(&cfg, nr_cpus, 3, 2);
	cfg_zone(&cfg, 0, ZONE_NORMAL, 0, 64, 64);
	sim = sim_new(&cfg);
	mm_set_current_cpu(0);
	return sim;
}

static void record(struct mm_sim *sim, struct vfirst *r)
{
	mm_sim_set_violation_handler(sim, vfirst_handler, r);
}

/* NR_FREE_PAGES (exact) one page above what the free lists hold. */
static struct mm_sim *fire_buddy_nrfree(struct vfirst *r, struct where *w)
{
	struct mm_sim *sim = small(1);

	zone_of(sim, 0, ZONE_NORMAL)->vm_stat_exact[NR_FREE_PAGES]++;
	*w = (struct where){0, ZONE_NORMAL, 0, -1, false, 0};
	record(sim, r);
	mm_check_full(sim);
	return sim;
}

/* The head of the highest-order MOVABLE free list that has one; its order in *o. */
static uint32_t movable_head(struct mm_sim *sim, unsigned int *o)
{
	struct zone *z = zone_of(sim, 0, ZONE_NORMAL);
	uint32_t head = PFN_NIL;

	*o = sim->max_order + 1;
	while (head == PFN_NIL && (*o)-- > 0)
		head = z->free_area[*o].head[MIGRATE_MOVABLE];
	ck_assert_uint_ne(head, PFN_NIL);
	return head;
}

/* A free list's head has a predecessor: the list's links are broken. */
static struct mm_sim *fire_buddy_list(struct vfirst *r, struct where *w)
{
	struct mm_sim *sim = small(1);
	unsigned int o;
	uint32_t head = movable_head(sim, &o);

	pfn_to_page(sim, head)->lru.prev = head;
	*w = (struct where){0, ZONE_NORMAL, 0, head, true, o};
	record(sim, r);
	mm_check_full(sim);
	pfn_to_page(sim, head)->lru.prev = PFN_NIL;
	return sim;
}

/* CPU 1 is offline but still holds a diff: its fold was lost. */
static struct mm_sim *fire_vmstat_dead_fold(struct vfirst *r, struct where *w)
{
	struct mm_sim *sim = small(2);
	struct zone *z = zone_of(sim, 0, ZONE_NORMAL);

	sim->serial = true; /* this test is the only thread */
	ck_assert_int_eq(mm_cpu_offline(sim, 1), 0);
	/* Move one page of the atomic into CPU 1's diff: the sum stays exact. */
	z->per_cpu_zonestats[1].vm_stat_diff[NR_FREE_PAGES] = 1;
	atomic_long_add(-1, &z->vm_stat[NR_FREE_PAGES]);
	atomic_long_add(-1, &sim->vm_zone_stat[NR_FREE_PAGES]);
	*w = (struct where){0, ZONE_NORMAL, 1, -1, false, 0};
	record(sim, r);
	mm_check_full(sim);
	return sim;
}

/* The global NR_FREE_PAGES is one past the sum of the zones' atomics. */
static struct mm_sim *fire_vmstat_global(struct vfirst *r, struct where *w)
{
	struct mm_sim *sim = small(1);

	atomic_long_add(1, &sim->vm_zone_stat[NR_FREE_PAGES]);
	*w = (struct where){-1, -1, -1, -1, false, 0};
	record(sim, r);
	mm_check_full(sim);
	return sim;
}

/* A page on CPU 0's order-0 list that claims to be CPU 1's. */
static struct mm_sim *fire_pcp_list(struct vfirst *r, struct where *w)
{
	struct mm_sim *sim = small(2);
	uint32_t gen;
	long long pfn = mm_alloc_pages(sim, 0, GFP_MOV, -1, 1, &gen);

	ck_assert_int_ge(pfn, 0);
	mm_free_pages(sim, (uint64_t)pfn, 0, 1, gen);
	ck_assert_int_eq(pfn_to_page(sim, (uint64_t)pfn)->state, PG_PCP);
	pfn_to_page(sim, (uint64_t)pfn)->spare = 1;
	*w = (struct where){0, ZONE_NORMAL, 0, pfn, false, 0};
	record(sim, r);
	mm_check_full(sim);
	pfn_to_page(sim, (uint64_t)pfn)->spare = 0;
	return sim;
}

/* Counter 0's exact shadow moves behind its back; a sync must see it. */
static struct mm_sim *fire_pcpu_sum_sync(struct vfirst *r, struct where *w)
{
	struct mm_sim *sim = small(1);

	sim->serial = true; /* the per-op checks of what all CPUs share */
	mm_pcpu_set(sim, 0, 10);
	sim->pcc->ctr[0].truth += 5;
	*w = (struct where){-1, -1, -1, -1, false, 0}; /* a counter of no CPU */
	record(sim, r);
	mm_pcpu_sync(sim, 0);
	return sim;
}

/* Counter 0's count lost 5 behind the ledger's back: the next sum must say so. */
static struct mm_sim *fire_pcpu_sum_exact(struct vfirst *r, struct where *w)
{
	struct mm_sim *sim = small(1);

	sim->serial = true; /* the check judges serial runs */
	mm_set_current_cpu(0);
	mm_pcpu_set(sim, 0, 10);
	sim->pcc->ctr[0].count -= 5;
	*w = (struct where){-1, -1, 0, -1, true, 10};
	record(sim, r);
	ck_assert_int_eq(mm_pcpu_sum(sim, 0), 5);
	return sim;
}

/* A sync that left cpu0's local of 3 where it was: the check's before-image says it held 3. */
static struct mm_sim *fire_pcpu_sync(struct vfirst *r, struct where *w)
{
	struct mm_sim *sim = small(1);
	struct percpu_counter *fbc = &sim->pcc->ctr[0];

	sim->serial = true; /* the check judges serial runs */
	mm_set_current_cpu(0);
	mm_pcpu_add(sim, 0, 3, 32);
	*w = (struct where){-1, -1, 0, -1, true, 3};
	record(sim, r);
	_mm_pcpu_check_synced(sim, fbc, 0, fbc->count, fbc->counters[0], "c", 0);
	return sim;
}

/*
 * The 64-page zone all allocated order-0 (pcp off), then pfn 57 freed: a
 * lone free page in the MOVABLE pageblock 56..59. A control for the free
 * scanner's oracle, one target wanted.
 */
static struct mm_sim *free_scanner_sim(struct compact_control *cc)
{
	struct mm_sim *sim = small(1);
	uint32_t gen[64];

	sim->serial = true; /* the oracle judges serial runs */
	mm_zone_pcp_disable(sim, 0, ZONE_NORMAL);
	for (int i = 0; i < 64; i++)
		ck_assert_int_eq(mm_alloc_pages(sim, 0, GFP_MOV, -1, (uint32_t)i, &gen[i]), i);
	mm_free_pages(sim, 57, 0, 57, gen[57]);
	*cc = (struct compact_control){.zone = zone_of(sim, 0, ZONE_NORMAL),
				       .freepages = sim->compact->freepages,
				       .nr_migratepages = 1,
				       .mode = MM_MIGRATE_SYNC_LIGHT};
	return sim;
}

/* A sync scan from pfn 56 claims to have met the migration scanner at 0: it passed pfn 57. */
static struct mm_sim *fire_compact_free_scan(struct vfirst *r, struct where *w)
{
	struct compact_control cc;
	struct mm_sim *sim = free_scanner_sim(&cc);

	cc.free_pfn = 0;
	*w = (struct where){0, ZONE_NORMAL, 0, 57, true, 0};
	record(sim, r);
	_mm_oracle_free_scan(&cc, 56, 0);
	return sim;
}

/* A scan that hands out pfn 58 as a target: an allocated page, never isolated. */
static struct mm_sim *fire_compact_free_target(struct vfirst *r, struct where *w)
{
	struct compact_control cc;
	struct mm_sim *sim = free_scanner_sim(&cc);

	cc.freepages[0] = 58;
	cc.nr_freepages = 1;
	cc.free_pfn = 56;
	zone_of(sim, 0, ZONE_NORMAL)->nr_isolated_free++;
	*w = (struct where){0, ZONE_NORMAL, 0, 58, true, PG_ALLOC};
	record(sim, r);
	_mm_oracle_free_scan(&cc, 60, 0);
	zone_of(sim, 0, ZONE_NORMAL)->nr_isolated_free--;
	return sim;
}

/*
 * OVERCOMMIT_NEVER admits on a read far below the exact total: the exact
 * total already sits at the commit limit, the counter says 0.
 */
static struct mm_sim *fire_commit_never(struct vfirst *r, struct where *w)
{
	struct mm_sim *sim = small(1);

	sim->serial = true; /* the per-op checks of what all CPUs share */
	ck_assert_int_eq(mm_set_overcommit_memory(sim, MM_OVERCOMMIT_NEVER), 0);
	/* past any per-CPU slack: the limit plus a batch per CPU, doubled */
	sim->pcc->vm_committed_as.truth += 2 * ((int64_t)mm_vm_commit_limit(sim) +
						sim->pcc->never_bound * (int64_t)mm_nr_cpus(sim));
	*w = (struct where){-1, -1, 0, -1, false, 0};
	record(sim, r);
	ck_assert_int_eq(mm_vm_enough_memory(sim, 0, 1, true), 0);
	return sim;
}

/* An mm torn down with one rss page the counters never gave back. */
static struct mm_sim *fire_rss_bad_state(struct vfirst *r, struct where *w)
{
	struct mm_sim *sim = small(1);

	ck_assert_int_eq(mm_fork(sim, 0, -1, 0), 0);
	sim->pcc->mm[0].rss_stat[MM_FILEPAGES].truth = 1;
	*w = (struct where){-1, -1, 0, -1, false, 0};
	record(sim, r);
	ck_assert_int_eq(mm_exit(sim, 0), 0);
	return sim;
}

/* One of mm 0's counters fell off the percpu_counters list. */
static struct mm_sim *fire_pcpu_list(struct vfirst *r, struct where *w)
{
	struct mm_sim *sim = small(1);
	struct list_head *l;

	sim->serial = true; /* the per-op checks of what all CPUs share */
	ck_assert_int_eq(mm_fork(sim, 0, -1, 0), 0);
	l = &sim->pcc->mm[0].rss_stat[MM_ANONPAGES].list;
	l->prev->next = l->next;
	l->next->prev = l->prev;
	*w = (struct where){-1, -1, 0, -1, false, 0};
	record(sim, r);
	ck_assert_int_eq(mm_fork(sim, 1, 0, 0), 0);
	mm_sim_set_violation_handler(sim, NULL, NULL);
	l->prev->next = l; /* back where it was, for the teardown */
	l->next->prev = l;
	return sim;
}

/*
 * CPU 0's local of vm_committed_as is past the NEVER batch, which
 * mm_compute_batch() makes max(32, 2 x 1 CPU, 64 pages / 1 / 256) = 32:
 * expected is B - 1 = 31.
 */
static struct mm_sim *fire_commit_drift(struct vfirst *r, struct where *w)
{
	struct mm_sim *sim = small(1);
	struct percpu_counter *fbc = &sim->pcc->vm_committed_as;

	ck_assert_int_eq(mm_set_overcommit_memory(sim, MM_OVERCOMMIT_NEVER), 0);
	fbc->counters[0] = 40;
	fbc->truth += 40;
	*w = (struct where){-1, -1, 0, -1, true, 31};
	record(sim, r);
	_mm_committed_check(sim); /* any charge would fold a local this big */
	return sim;
}

/*
 * Every CPU's diff folded and its threshold 0, so D (the sum of the
 * thresholds) is 0; then the zone atomic gains one page: the estimate is
 * one past the exact count, past D by one.
 */
static struct mm_sim *fire_vmstat_drift(struct vfirst *r, struct where *w)
{
	struct mm_sim *sim = small(2);
	struct zone *z = zone_of(sim, 0, ZONE_NORMAL);

	for (unsigned int cpu = 0; cpu < 2; cpu++) {
		struct per_cpu_zonestat *pzs = &z->per_cpu_zonestats[cpu];

		atomic_long_add(pzs->vm_stat_diff[NR_FREE_PAGES], &z->vm_stat[NR_FREE_PAGES]);
		pzs->vm_stat_diff[NR_FREE_PAGES] = 0;
		pzs->update_threshold[NR_FREE_PAGES] = 0;
	}
	atomic_long_add(1, &z->vm_stat[NR_FREE_PAGES]);
	*w = (struct where){0, ZONE_NORMAL, 0, -1, true, 0};
	record(sim, r);
	mm_check_full(sim);
	return sim;
}

/*
 * Seed 002's law broken by hand: kswapd's pressure thresholds in force
 * (pressure set; low - min = 10 >= 1 online CPU; the wanted threshold is
 * the normal one, calculate_normal_threshold() = 2 x fls(1) x (1 +
 * fls(64 >> 15)) = 2, as 1 x 2 <= 10), yet the estimate runs 30 pages
 * ahead of the exact count: an order-0 allocation admitted at low (20)
 * on the estimate finds 10 exact free pages, below min + 1 = 11.
 */
static struct mm_sim *pressure_skewed(struct vfirst *r, unsigned int taken, bool serial, long skew)
{
	struct mm_config cfg;
	struct mm_sim *sim;
	struct zone *z;
	uint32_t gen;

	cfg_tiny(&cfg, 1, 3, 2);
	cfg_zone(&cfg, 0, ZONE_NORMAL, 0, 64, 64);
	sim = sim_new_buddy_only(&cfg);
	mm_set_current_cpu(0);
	z = zone_of(sim, 0, ZONE_NORMAL);
	for (unsigned int i = 0; i < taken; i++)
		ck_assert_int_ge(mm_alloc_pages(sim, 0, GFP_MOV, -1, 1, &gen), 0);
	ck_assert_int_eq(z->vm_stat_exact[NR_FREE_PAGES], 64 - (long)taken);
	sim->serial = serial;
	z->_watermark[WMARK_MIN] = 10;
	z->_watermark[WMARK_LOW] = 20;
	z->_watermark[WMARK_HIGH] = 30;
	z->watermark_boost = 0;
	sim->node_data[0]->kswapd.pressure = true;
	z->per_cpu_zonestats[0].stat_threshold = 2;
	z->per_cpu_zonestats[0].update_threshold[NR_FREE_PAGES] = 2;
	atomic_long_add(skew, &z->vm_stat[NR_FREE_PAGES]);
	atomic_long_add(skew, &sim->vm_zone_stat[NR_FREE_PAGES]);
	record(sim, r);
	return sim;
}

/* The estimate 30 pages above the exact count. */
static struct mm_sim *pressure_broken(struct vfirst *r, unsigned int taken, bool serial)
{
	return pressure_skewed(r, taken, serial, 30);
}

static struct mm_sim *fire_vmstat_pressure(struct vfirst *r, struct where *w)
{
	struct mm_sim *sim = pressure_broken(r, 54, true);
	uint32_t gen;

	*w = (struct where){0, ZONE_NORMAL, 0, -1, true, 11};
	ck_assert_int_ge(mm_alloc_pages(sim, 0, GFP_MOV, -1, 1, &gen), 0);
	return sim;
}

/*
 * The same law as threaded runs check it (sim->serial false: under
 * zone->lock, check_admission_under_pressure_locked()), for an order-2
 * admission: 52 pages taken leave exact 12 = min + 2, between min + 1 and
 * min + 2^2, with an estimate 30 above it (42 - 4 >= low 20). The expected
 * value is the rule's min + 2^order = 10 + 4.
 */
static struct mm_sim *fire_vmstat_pressure_threaded(struct vfirst *r, struct where *w)
{
	struct mm_sim *sim = pressure_broken(r, 52, false);
	uint32_t gen;

	*w = (struct where){0, ZONE_NORMAL, 0, -1, true, 14};
	ck_assert_int_ge(mm_alloc_pages(sim, 2, GFP_MOV, -1, 1, &gen), 0);
	return sim;
}

/*
 * The threaded form at the edge of its precondition: an estimate of 24
 * (exact 12, one more that CPU 0's diff of -1 holds back, and 11 added)
 * admits an order-2 allocation at low 20 with nothing to spare (24 - 2^2 =
 * 20), and exact 12 is below min + 2^2 = 14.
 */
static struct mm_sim *fire_vmstat_pressure_threaded_edge(struct vfirst *r, struct where *w)
{
	struct mm_sim *sim = pressure_skewed(r, 52, false, 11);
	uint32_t gen;

	*w = (struct where){0, ZONE_NORMAL, 0, -1, true, 14};
	ck_assert_int_ge(mm_alloc_pages(sim, 2, GFP_MOV, -1, 1, &gen), 0);
	return sim;
}

/* A boost on a zone whose high mark is 0: the bound is 0, so any boost is above it. */
static struct mm_sim *fire_boost_bound(struct vfirst *r, struct where *w)
{
	struct mm_sim *sim = small(1);

	sim->serial = true; /* the derived checks' full scan */
	zone_of(sim, 0, ZONE_NORMAL)->watermark_boost = 4;
	*w = (struct where){0, ZONE_NORMAL, 0, -1, true, 0};
	record(sim, r);
	mm_check_full(sim);
	return sim;
}

/* A boost a kswapd run up to Normal left on Normal: the run takes every boost back. */
static struct mm_sim *fire_boost_decay(struct vfirst *r, struct where *w)
{
	struct mm_sim *sim = small(1);
	unsigned long before[MAX_NR_ZONES] = {[ZONE_NORMAL] = 4};

	zone_of(sim, 0, ZONE_NORMAL)->watermark_boost = 4;
	*w = (struct where){0, ZONE_NORMAL, 0, -1, true, 0};
	record(sim, r);
	_mm_check_boost_decay(sim->node_data[0], ZONE_NORMAL, before);
	return sim;
}

/* The no-fallback retry while a free MOVABLE order-3 block (above a pageblock) could serve. */
static struct mm_sim *fire_nofrag_retry(struct vfirst *r, struct where *w)
{
	struct mm_sim *sim = small(1);
	uint32_t refused[(MM_MAX_ZONEREFS + 31) / 32] = {0};
	struct zone *z = zone_of(sim, 0, ZONE_NORMAL);

	*w = (struct where){0, ZONE_NORMAL, 0, z->free_area[3].head[MIGRATE_MOVABLE], false, 0};
	record(sim, r);
	_mm_check_nofrag_retry(sim, sim->node_data[0]->zonelist, ZONE_NORMAL, 0, 0,
			       MIGRATE_UNMOVABLE, refused);
	return sim;
}

/* A decay from high_max that left high below high_min: the rule gives high_max - high_max / 8. */
static struct mm_sim *fire_pcp_high_range(struct vfirst *r, struct where *w)
{
	struct mm_sim *sim = small(1);
	struct per_cpu_pages *pcp = &zone_of(sim, 0, ZONE_NORMAL)->per_cpu_pageset[0];
	int hi = pcp->high_max;

	sim->serial = true;
	pcp->high = pcp->high_min - 1;
	*w = (struct where){0, ZONE_NORMAL, 0, -1, true, hi - (hi >> 3)};
	record(sim, r);
	_mm_pcp_check_high_range(zone_of(sim, 0, ZONE_NORMAL), 0, hi, 0);
	return sim;
}

/*
 * The buddy and pcp checks' other report forms. small(1) boots with every
 * page free: eight order-3 blocks on the MOVABLE list, each two pageblocks.
 */

/* nr_free_highatomic counts 4 pages no HIGHATOMIC list holds. */
static struct mm_sim *fire_highatomic_nrfree(struct vfirst *r, struct where *w)
{
	struct mm_sim *sim = small(1);

	zone_of(sim, 0, ZONE_NORMAL)->nr_free_highatomic += 4;
	*w = (struct where){0, ZONE_NORMAL, 0, -1, true, 0};
	record(sim, r);
	mm_check_full(sim);
	zone_of(sim, 0, ZONE_NORMAL)->nr_free_highatomic -= 4;
	return sim;
}

/*
 * small(1)'s eight free order-3 blocks moved from the MOVABLE list to list
 * mt, the last linked back to the first: a cycle a bug made. The full
 * scan's walks of the ISOLATE and HIGHATOMIC lists stop after nr_free + 1
 * entries, so the cycle counts one block too many, 72 pages where the
 * counters say 64, instead of hiding behind the right total.
 */
static void cycle_free_blocks(struct mm_sim *sim, int mt)
{
	struct free_area *area = &zone_of(sim, 0, ZONE_NORMAL)->free_area[3];
	uint32_t first = area->head[MIGRATE_MOVABLE], last = area->tail[MIGRATE_MOVABLE];

	ck_assert_uint_eq(area->nr_free, 8);
	sim->mem_map[last].lru.next = first;
	area->head[mt] = first;
	area->tail[mt] = last;
	area->head[MIGRATE_MOVABLE] = area->tail[MIGRATE_MOVABLE] = PFN_NIL;
}

static struct mm_sim *fire_highatomic_nrfree_cycle(struct vfirst *r, struct where *w)
{
	struct mm_sim *sim = small(1);

	cycle_free_blocks(sim, MIGRATE_HIGHATOMIC);
	zone_of(sim, 0, ZONE_NORMAL)->nr_free_highatomic = 64;
	*w = (struct where){0, ZONE_NORMAL, 0, -1, true, 72};
	record(sim, r);
	mm_check_full(sim);
	return sim;
}

/* ISOLATE pages are not in NR_FREE_PAGES: the lists' 64 - 72 against 0. */
static struct mm_sim *fire_buddy_nrfree_isolate_cycle(struct vfirst *r, struct where *w)
{
	struct mm_sim *sim = small(1);

	cycle_free_blocks(sim, MIGRATE_ISOLATE);
	zone_of(sim, 0, ZONE_NORMAL)->vm_stat_exact[NR_FREE_PAGES] = 0;
	*w = (struct where){0, ZONE_NORMAL, 0, -1, true, -8};
	record(sim, r);
	mm_check_full(sim);
	return sim;
}

/* A block on the MOVABLE list whose pageblocks are both UNMOVABLE. */
static struct mm_sim *fire_buddy_mt_list(struct vfirst *r, struct where *w)
{
	struct mm_sim *sim = small(1);
	unsigned int o;
	uint32_t head = movable_head(sim, &o);

	ck_assert_uint_eq(o, 3);
	set_pageblock_migratetype(sim, head, MIGRATE_UNMOVABLE);
	set_pageblock_migratetype(sim, head + 4, MIGRATE_UNMOVABLE);
	*w = (struct where){0, ZONE_NORMAL, 0, head, true, MIGRATE_MOVABLE};
	record(sim, r);
	mm_check_full(sim);
	set_pageblock_migratetype(sim, head, MIGRATE_MOVABLE);
	set_pageblock_migratetype(sim, head + 4, MIGRATE_MOVABLE);
	return sim;
}

/* One free order-3 block over two pageblocks of different types. */
static struct mm_sim *fire_buddy_mt_split(struct vfirst *r, struct where *w)
{
	struct mm_sim *sim = small(1);
	unsigned int o;
	uint32_t head = movable_head(sim, &o);

	set_pageblock_migratetype(sim, head + 4, MIGRATE_UNMOVABLE);
	*w = (struct where){0, ZONE_NORMAL, 0, head + 4, true, MIGRATE_MOVABLE};
	record(sim, r);
	mm_check_full(sim);
	set_pageblock_migratetype(sim, head + 4, MIGRATE_MOVABLE);
	return sim;
}

/* free_area[3].nr_free one short: the walk meets a block past the count. */
static struct mm_sim *fire_buddy_list_long(struct vfirst *r, struct where *w)
{
	struct mm_sim *sim = small(1);
	struct free_area *area = &zone_of(sim, 0, ZONE_NORMAL)->free_area[3];
	unsigned int o;
	uint32_t p = movable_head(sim, &o);

	ck_assert_uint_eq(area->nr_free, 8);
	area->nr_free--;
	for (unsigned long k = 0; k < area->nr_free; k++)
		p = pfn_to_page(sim, p)->lru.next;
	*w = (struct where){0, ZONE_NORMAL, 0, p, true, 7};
	record(sim, r);
	mm_check_full(sim);
	area->nr_free++;
	return sim;
}

/* The MOVABLE list's tail pointer names its head, not its last block. */
static struct mm_sim *fire_buddy_list_tail(struct vfirst *r, struct where *w)
{
	struct mm_sim *sim = small(1);
	struct free_area *area = &zone_of(sim, 0, ZONE_NORMAL)->free_area[3];
	uint32_t last = area->tail[MIGRATE_MOVABLE];
	unsigned int o;

	area->tail[MIGRATE_MOVABLE] = movable_head(sim, &o);
	ck_assert_uint_ne(area->tail[MIGRATE_MOVABLE], last);
	*w = (struct where){0, ZONE_NORMAL, 0, last, true, last};
	record(sim, r);
	mm_check_full(sim);
	area->tail[MIGRATE_MOVABLE] = last;
	return sim;
}

/* free_area[3].nr_free one over what its lists hold (8 blocks). */
static struct mm_sim *fire_buddy_nrfree_order(struct vfirst *r, struct where *w)
{
	struct mm_sim *sim = small(1);
	struct free_area *area = &zone_of(sim, 0, ZONE_NORMAL)->free_area[3];

	area->nr_free++;
	*w = (struct where){0, ZONE_NORMAL, 0, -1, true, 8};
	record(sim, r);
	mm_check_full(sim);
	area->nr_free--;
	return sim;
}

/* The descriptor of the block at pfn 8 names another zone. */
static struct mm_sim *fire_page_zone(struct vfirst *r, struct where *w)
{
	struct mm_sim *sim = small(1);
	struct zone *z = zone_of(sim, 0, ZONE_NORMAL);

	pfn_to_page(sim, 8)->zone_id = (uint8_t)(z->zone_id + 1);
	*w = (struct where){0, ZONE_NORMAL, 0, 8, true, z->zone_id};
	record(sim, r);
	mm_check_full(sim);
	pfn_to_page(sim, 8)->zone_id = (uint8_t)z->zone_id;
	return sim;
}

/* A page state that, at pfn 8 or at pfn 9 inside the free block at 8, must not be. */
static struct mm_sim *page_state_at(struct vfirst *r, struct where *w, uint64_t pfn, int expected)
{
	struct mm_sim *sim = small(1);
	int was = pfn_to_page(sim, pfn)->state;

	pfn_to_page(sim, pfn)->state = PG_ALLOC_TAIL;
	*w = (struct where){0, ZONE_NORMAL, 0, (long long)pfn, true, expected};
	record(sim, r);
	mm_check_full(sim);
	pfn_to_page(sim, pfn)->state = (uint8_t)was;
	return sim;
}

static struct mm_sim *fire_page_state_head(struct vfirst *r, struct where *w)
{
	return page_state_at(r, w, 8, PG_BUDDY);
}

static struct mm_sim *fire_page_state_tail(struct vfirst *r, struct where *w)
{
	return page_state_at(r, w, 9, PG_FREE_TAIL);
}

/*
 * A reserved page has no order: the zone's reserved tail (64 pages
 * spanned, 56 managed) has pfn 60 claim order 2, as an offlined block's
 * head would if the offline kept it. mm_check_full() counts what it reported.
 */
static struct mm_sim *fire_page_state_reserved(struct vfirst *r, struct where *w)
{
	struct mm_config cfg;
	struct mm_sim *sim;

	cfg_tiny(&cfg, 1, 3, 2);
	cfg_zone(&cfg, 0, ZONE_NORMAL, 0, 64, 56);
	sim = sim_new(&cfg);
	mm_set_current_cpu(0);
	ck_assert_int_eq(pfn_to_page(sim, 60)->state, PG_RESERVED);
	pfn_to_page(sim, 60)->order = 2;
	*w = (struct where){0, ZONE_NORMAL, 0, 60, true, 0};
	record(sim, r);
	/* the walk stops at the report, and counts it */
	ck_assert_uint_eq(mm_check_full(sim), r->n);
	pfn_to_page(sim, 60)->order = 0;
	return sim;
}

/* The free block at pfn 8 claims order 4, above max_order 3. */
static struct mm_sim *fire_buddy_align(struct vfirst *r, struct where *w)
{
	struct mm_sim *sim = small(1);

	pfn_to_page(sim, 8)->order = 4;
	*w = (struct where){0, ZONE_NORMAL, 0, 8, true, 0};
	record(sim, r);
	mm_check_full(sim);
	pfn_to_page(sim, 8)->order = 3;
	return sim;
}

/*
 * One allocated order-0 page whose descriptor says new_state: counted as
 * a pcp page (INV-PCP-COUNT: the memmap's pcp pages, CPU 0's list plus
 * this one, vs the pagesets' counts) or as reserved (INV-ZONE-CONSERVATION:
 * the memmap's allocated pages, 0, vs the zone's allocated count, 1).
 */
static struct mm_sim *allocated_page_as(struct vfirst *r, struct where *w, int new_state)
{
	struct mm_sim *sim = small(1);
	uint32_t gen;
	long long pfn = mm_alloc_pages(sim, 0, GFP_MOV, -1, 1, &gen);
	long long expected = new_state == PG_PCP ? pcpinfo(sim, 0, ZONE_NORMAL, 0).count + 1 : 0;

	ck_assert_int_ge(pfn, 0);
	ck_assert_int_eq(pfn_to_page(sim, (uint64_t)pfn)->state, PG_ALLOC);
	pfn_to_page(sim, (uint64_t)pfn)->state = (uint8_t)new_state;
	*w = (struct where){0, ZONE_NORMAL, 0, -1, true, expected};
	record(sim, r);
	mm_check_full(sim);
	pfn_to_page(sim, (uint64_t)pfn)->state = PG_ALLOC;
	return sim;
}

static struct mm_sim *fire_pcp_count_memmap(struct vfirst *r, struct where *w)
{
	return allocated_page_as(r, w, PG_PCP);
}

static struct mm_sim *fire_zone_conservation_memmap(struct vfirst *r, struct where *w)
{
	return allocated_page_as(r, w, PG_RESERVED);
}

/*
 * managed_pages one over what the zone's counters hold (free + pcp +
 * allocated): the memmap-walk form counts spanned pages and cannot see it,
 * the counters' form reports the managed count as expected. That form
 * adds up only when one thread drives, as the executor's serial runs.
 */
static struct mm_sim *fire_zone_conservation_managed(struct vfirst *r, struct where *w)
{
	struct mm_sim *sim = small(1);
	struct zone *z = zone_of(sim, 0, ZONE_NORMAL);
	long managed = (long)zone_managed_pages(z);

	sim->serial = true;
	*w = (struct where){0, ZONE_NORMAL, 0, -1, true, managed + 1};
	atomic_long_add(1, &z->managed_pages);
	record(sim, r);
	mm_check_full(sim);
	atomic_long_add(-1, &z->managed_pages);
	return sim;
}

/*
 * INV-ZONE-OFFLINE, both ways: the zone's offlined count above what the
 * memmap shows offline (nothing is), and pageblock 15 offline in the
 * memmap with the count still 0.
 */
static struct mm_sim *fire_zone_offline_counted(struct vfirst *r, struct where *w)
{
	struct mm_sim *sim = small(1);
	struct zone *z = zone_of(sim, 0, ZONE_NORMAL);

	*w = (struct where){0, ZONE_NORMAL, 0, -1, true, 0};
	z->offlined_pages += 4;
	record(sim, r);
	mm_check_full(sim);
	z->offlined_pages -= 4;
	return sim;
}

static struct mm_sim *fire_zone_offline_memmap(struct vfirst *r, struct where *w)
{
	struct mm_sim *sim = small(1);
	struct zone *z = zone_of(sim, 0, ZONE_NORMAL);
	struct mm_op op = {.kind = MM_OP_OFFLINE_PAGES,
			   .range = {.start = 60, .pages = 4, .node = 0, .zone = ZONE_NORMAL}};

	sim->serial = true;
	ck_assert_int_eq(mm_apply_op(sim, &op, NULL, 0, 0), 0);
	ck_assert_int_eq(z->offlined_pages, 4);
	*w = (struct where){0, ZONE_NORMAL, 0, -1, true, 4};
	z->offlined_pages = 0;
	record(sim, r);
	mm_check_full(sim);
	z->offlined_pages = 4;
	return sim;
}

/* CPU 0's pcp->count one over the pages on its lists. */
static struct mm_sim *fire_pcp_count_cpu(struct vfirst *r, struct where *w)
{
	struct mm_sim *sim = small(1);
	struct per_cpu_pages *pcp = &zone_of(sim, 0, ZONE_NORMAL)->per_cpu_pageset[0];
	uint32_t gen;
	long long pfn = mm_alloc_pages(sim, 0, GFP_MOV, -1, 1, &gen);

	ck_assert_int_ge(pfn, 0);
	mm_free_pages(sim, (uint64_t)pfn, 0, 1, gen);
	ck_assert_int_gt(pcp->count, 0);
	*w = (struct where){0, ZONE_NORMAL, 0, -1, true, pcp->count};
	pcp->count++;
	record(sim, r);
	mm_check_full(sim);
	pcp->count--;
	return sim;
}

/*
 * CPU 1's pcp->count says 1 while its lists are empty (the check runs as
 * CPU 0): the per-CPU form must look at a CPU whose count or lists say it
 * holds pages, not only at one where both do.
 */
static struct mm_sim *fire_pcp_count_empty_lists(struct vfirst *r, struct where *w)
{
	struct mm_sim *sim = small(2);
	struct per_cpu_pages *pcp = &zone_of(sim, 0, ZONE_NORMAL)->per_cpu_pageset[1];

	ck_assert_int_eq(pcp->count, 0);
	pcp->count = 1;
	*w = (struct where){0, ZONE_NORMAL, 1, -1, true, 0};
	record(sim, r);
	mm_check_full(sim);
	pcp->count = 0;
	return sim;
}

/*
 * CPU 1's pcp->count says 0 while its first list, order-0 UNMOVABLE, holds
 * the page it freed (the check runs as CPU 0): a CPU whose count is 0 is
 * passed over only when every list is empty, the first one too. The
 * memmap's side of INV-PCP-COUNT would name CPU 0.
 */
static struct mm_sim *fire_pcp_count_zero_first_list(struct vfirst *r, struct where *w)
{
	struct mm_sim *sim = small(2);
	struct per_cpu_pages *pcp = &zone_of(sim, 0, ZONE_NORMAL)->per_cpu_pageset[1];
	uint32_t gen;
	long long pfn;

	mm_set_current_cpu(1);
	pfn = mm_alloc_pages(sim, 0, MM_GFP_KERNEL, -1, 1, &gen);
	ck_assert_int_ge(pfn, 0);
	mm_free_pages(sim, (uint64_t)pfn, 0, 1, gen);
	mm_set_current_cpu(0);
	ck_assert_uint_eq(pcp->head[0], (uint32_t)pfn);
	ck_assert_int_eq(pcp->count, 1);
	*w = (struct where){0, ZONE_NORMAL, 1, -1, true, 1};
	pcp->count = 0;
	record(sim, r);
	mm_check_full(sim);
	pcp->count = 1;
	return sim;
}

/* CPU 0's order-0 MOVABLE pcp list: its tail pointer names its head. */
static struct mm_sim *fire_pcp_list_tail(struct vfirst *r, struct where *w)
{
	struct mm_sim *sim = small(1);
	struct per_cpu_pages *pcp = &zone_of(sim, 0, ZONE_NORMAL)->per_cpu_pageset[0];
	uint32_t gen[2];
	long long pfn[2];
	int pindex = -1;
	uint32_t last;

	for (int i = 0; i < 2; i++) {
		pfn[i] = mm_alloc_pages(sim, 0, GFP_MOV, -1, (uint32_t)(1 + i), &gen[i]);
		ck_assert_int_ge(pfn[i], 0);
	}
	for (int i = 0; i < 2; i++)
		mm_free_pages(sim, (uint64_t)pfn[i], 0, (uint32_t)(1 + i), gen[i]);
	for (int i = 0; i < NR_PCP_LISTS && pindex < 0; i++)
		if (pcp->head[i] != PFN_NIL && pcp->head[i] != pcp->tail[i])
			pindex = i;
	ck_assert_int_ge(pindex, 0);
	last = pcp->tail[pindex];
	pcp->tail[pindex] = pcp->head[pindex];
	*w = (struct where){0, ZONE_NORMAL, 0, last, true, last};
	record(sim, r);
	mm_check_full(sim);
	pcp->tail[pindex] = last;
	return sim;
}

/* CPU 0's NR_FREE_PAGES diff one past its threshold; the atomic makes up the sum. */
static struct mm_sim *fire_vmstat_diff(struct vfirst *r, struct where *w)
{
	struct mm_sim *sim = small(1);
	struct zone *z = zone_of(sim, 0, ZONE_NORMAL);
	struct per_cpu_zonestat *pzs = &z->per_cpu_zonestats[0];
	int t = pzs->update_threshold[NR_FREE_PAGES], was = pzs->vm_stat_diff[NR_FREE_PAGES];
	int over = (t < 0 ? -t : t) + 1;

	pzs->vm_stat_diff[NR_FREE_PAGES] = (int8_t)(was + over);
	atomic_long_add(-over, &z->vm_stat[NR_FREE_PAGES]);
	*w = (struct where){0, ZONE_NORMAL, 0, -1, true, t < 0 ? -t : t};
	record(sim, r);
	mm_check_full(sim);
	pzs->vm_stat_diff[NR_FREE_PAGES] = (int8_t)was;
	atomic_long_add(over, &z->vm_stat[NR_FREE_PAGES]);
	return sim;
}

/*
 * Below the drift mark zone_watermark_ok_safe() reads the snapshot, which
 * must then decide as the exact count does: CPU 0's diff says the zone
 * lost every free page the exact count still holds, so the snapshot
 * refuses a mark of half of them that the exact count passes.
 */
static struct mm_sim *fire_vmstat_safe(struct vfirst *r, struct where *w)
{
	struct mm_sim *sim = small(1);
	struct zone *z = zone_of(sim, 0, ZONE_NORMAL);
	struct per_cpu_zonestat *pzs = &z->per_cpu_zonestats[0];
	int was = pzs->vm_stat_diff[NR_FREE_PAGES];
	unsigned long drift_mark = z->percpu_drift_mark;
	long exact = z->vm_stat_exact[NR_FREE_PAGES];

	ck_assert_int_gt(exact, 8);
	sim->serial = true;
	z->percpu_drift_mark = (unsigned long)exact + 1000;
	pzs->vm_stat_diff[NR_FREE_PAGES] = (int8_t)(was - exact);
	*w = (struct where){0, ZONE_NORMAL, 0, -1, true, 1};
	record(sim, r);
	ck_assert(!zone_watermark_ok_safe(z, 0, (unsigned long)exact / 2, ZONE_NORMAL));
	pzs->vm_stat_diff[NR_FREE_PAGES] = (int8_t)was;
	z->percpu_drift_mark = drift_mark;
	return sim;
}

/* A vmstat_update that reports no work left while CPU 0's high can still decay. */
static struct mm_sim *fire_vmstat_rearm(struct vfirst *r, struct where *w)
{
	struct mm_sim *sim = small(1);
	struct per_cpu_pages *pcp = &zone_of(sim, 0, ZONE_NORMAL)->per_cpu_pageset[0];
	struct vmstat_rearm_view before;
	int high = pcp->high;

	(void)refresh_cpu_vm_stats(sim, 0);
	_mm_vmstat_rearm_before(sim, 0, &before);
	pcp->high = pcp->high_min + 1;
	*w = (struct where){-1, -1, 0, -1, true, 1};
	record(sim, r);
	_mm_vmstat_check_rearm(sim, 0, &before, 0);
	pcp->high = high;
	return sim;
}

/* vm.stat_refresh folds every diff: the estimate must then be the exact value, off by 1 here. */
static struct mm_sim *fire_vmstat_exact(struct vfirst *r, struct where *w)
{
	struct mm_sim *sim = small(1);
	struct zone *z = zone_of(sim, 0, ZONE_NORMAL);
	struct mm_op op = {.kind = MM_OP_STAT_REFRESH, .cpu = 0};

	sim->serial = true;
	z->vm_stat_exact[NR_FREE_PAGES]++;
	*w = (struct where){0, ZONE_NORMAL, 0, -1, true, z->vm_stat_exact[NR_FREE_PAGES]};
	record(sim, r);
	ck_assert_int_eq(mm_apply_op(sim, &op, NULL, 0, 0), 0);
	z->vm_stat_exact[NR_FREE_PAGES]--;
	return sim;
}

/*
 * The compaction pass checks, driven as the scanners drive them: a pass
 * begun on small(1)'s zone (16 pageblocks of 4 pages), then the visits.
 */
static struct mm_sim *compact_pass(struct compact_control *cc)
{
	struct mm_sim *sim = small(1);
	struct zone *z = zone_of(sim, 0, ZONE_NORMAL);

	sim->serial = true;
	*cc = (struct compact_control){.zone = z,
				       .migrate_pfn = z->zone_start_pfn,
				       .free_pfn = zone_end_pfn(z) - 4,
				       .order = 3,
				       .mode = MM_MIGRATE_ASYNC};
	cc->whole_zone = cc->migrate_pfn <= z->compact_init_migrate_pfn;
	compact_check_pass_begin(cc);
	return sim;
}

/*
 * Both scanners in block 8 in one pass: the second to enter reports,
 * the migration scanner (at 8) after the free one (at 9), or the free
 * scanner (at 10) after the migration one.
 */
static struct mm_sim *scanners_overlap(struct vfirst *r, struct where *w, bool free_first)
{
	struct compact_control cc;
	struct mm_sim *sim = compact_pass(&cc);

	*w = (struct where){0, ZONE_NORMAL, 0, 8, true, 0};
	record(sim, r);
	if (free_first)
		compact_check_free_visit(&cc, 9);
	compact_check_migrate_visit(&cc, 8);
	if (!free_first)
		compact_check_free_visit(&cc, 10);
	return sim;
}

static struct mm_sim *fire_compact_overlap_migrate(struct vfirst *r, struct where *w)
{
	return scanners_overlap(r, w, true);
}

static struct mm_sim *fire_compact_overlap_free(struct vfirst *r, struct where *w)
{
	return scanners_overlap(r, w, false);
}

/* Block 8 entered fresh a fifth time in one pass (the bound is 4). */
static struct mm_sim *fire_compact_rescan(struct vfirst *r, struct where *w)
{
	struct compact_control cc;
	struct mm_sim *sim = compact_pass(&cc);
	int entries = 0;

	*w = (struct where){0, ZONE_NORMAL, 0, 8, true, 4};
	record(sim, r);
	while (entries < 10 && compact_check_migrate_visit(&cc, 8))
		entries++;
	ck_assert_int_eq(entries, 4);
	return sim;
}

/*
 * A pass that never ends: after 2 * 4 * (64 / COMPACT_CLUSTER_MAX + 16
 * blocks + 1) = 152 rounds (not direct, so no order-sized step) the round
 * backstop stops it.
 */
static struct mm_sim *fire_compact_rounds(struct vfirst *r, struct where *w)
{
	struct compact_control cc;
	struct mm_sim *sim = compact_pass(&cc);
	int rounds = 0;

	*w = (struct where){0, ZONE_NORMAL, 0, -1, true, 152};
	record(sim, r);
	while (rounds < 1000 && compact_check_round(&cc))
		rounds++;
	ck_assert_int_eq(rounds, 152);
	return sim;
}

/*
 * The round backstop's bound at every order, direct async or not, on a
 * zone of `pages` pfns in 512-page pageblocks (max_order 10): a round
 * moves the migration scanner at least COMPACT_CLUSTER_MAX (32) pfns, or
 * in async direct compaction at least a cc->order block when that is
 * smaller, so the pass may run 2 * 4 * (pages / step + blocks + 1)
 * rounds and the next one is reported with that bound.
 */
static void round_bound_row(unsigned int order, bool direct, uint64_t pages, unsigned long blocks)
{
	unsigned long step = direct && (1UL << order) < 32 ? 1UL << order : 32;
	unsigned long want = 2 * 4 * (pages / step + blocks + 1), rounds = 0;
	struct vfirst r = {.want = "INV-COMPACT-RESCAN"};
	struct compact_control cc;
	struct mm_config cfg;

	cfg_tiny(&cfg, 1, 10, 9);
	cfg_zone(&cfg, 0, ZONE_NORMAL, 0, pages, pages);
	struct mm_sim *sim = sim_new(&cfg);
	struct zone *z = zone_of(sim, 0, ZONE_NORMAL);

	sim->serial = true;
	cc = (struct compact_control){.zone = z,
				      .migrate_pfn = z->zone_start_pfn,
				      .free_pfn = zone_end_pfn(z) - 4,
				      .order = (int)order,
				      .mode = MM_MIGRATE_ASYNC,
				      .direct_compaction = direct};
	compact_check_pass_begin(&cc);
	record(sim, &r);
	while (rounds < 10000 && compact_check_round(&cc))
		rounds++;
	ck_assert_msg(rounds == want, "order %u, direct %d, %llu pages: %lu rounds, want %lu",
		      order, direct, (unsigned long long)pages, rounds, want);
	ck_assert(r.seen);
	ck_assert_int_eq(r.v.expected, (long long)want);
	mm_sim_destroy(sim);
}

/* Two whole pageblocks; then a third of one page, which the block count must see. */
START_TEST(test_compact_round_bound)
{
	round_bound_row((unsigned int)_i / 2, _i % 2, 1024, 2);
	round_bound_row((unsigned int)_i / 2, _i % 2, 1025, 3);
}
END_TEST

static void free_visit_all(struct compact_control *cc)
{
	for (uint64_t pfn = 0; pfn < 64; pfn += 4)
		compact_check_free_visit(cc, pfn);
}

/*
 * compact_check_pass_begin() forgets the last pass in every block of the
 * zone, the last block too: a pass the free scanner crossed, then two
 * passes that entered each of small(1)'s 16 blocks the most times the
 * bound allows (4), then the free scanner again, all without a report.
 */
START_TEST(test_pass_begin_forgets_every_block)
{
	struct compact_control cc;
	struct mm_sim *sim = compact_pass(&cc);
	struct vfirst r = {.want = "INV-COMPACT-SCANNER-OVERLAP"};

	record(sim, &r);     /* the free visits' target oracle judges the boot's blocks too */
	free_visit_all(&cc); /* a pass the free scanner crossed */
	for (int pass = 0; pass < 2; pass++) {
		compact_check_pass_begin(&cc);
		for (uint64_t pfn = 0; pfn < 64; pfn += 4)
			for (int entry = 0; entry < 4; entry++)
				ck_assert_msg(compact_check_migrate_visit(&cc, pfn),
					      "pass %d: entry %d of block %llu refused", pass,
					      entry, (unsigned long long)pfn / 4);
	}
	compact_check_pass_begin(&cc);
	free_visit_all(&cc);
	ck_assert_msg(!r.seen, "%s at pfn %lld", r.want, r.v.pfn);
	mm_sim_destroy(sim);
}
END_TEST

/* One of the deferral fields out of the kernel's bounds, by which (0..2). */
static struct mm_sim *defer_out_of_bounds(struct vfirst *r, struct where *w, int which)
{
	struct mm_sim *sim = small(1);
	struct zone *z = zone_of(sim, 0, ZONE_NORMAL);
	static const long long bound[] = {COMPACT_MAX_DEFER_SHIFT, 4, 4};

	sim->serial = true; /* the serial bound; test_compact_threads has the threaded one */
	if (which == 0) {
		z->compact_defer_shift = COMPACT_MAX_DEFER_SHIFT + 1;
	} else if (which == 1) {
		z->compact_defer_shift = 2;
		z->compact_considered = 5; /* 1 << 2 = 4 */
	} else {
		z->compact_order_failed = (int)sim->max_order + 2; /* max_order + 1 = 4 */
	}
	*w = (struct where){0, ZONE_NORMAL, 0, -1, true, bound[which]};
	record(sim, r);
	compact_check_defer(z);
	return sim;
}

static struct mm_sim *fire_compact_defer_shift(struct vfirst *r, struct where *w)
{
	return defer_out_of_bounds(r, w, 0);
}

static struct mm_sim *fire_compact_defer_considered(struct vfirst *r, struct where *w)
{
	return defer_out_of_bounds(r, w, 1);
}

static struct mm_sim *fire_compact_defer_order(struct vfirst *r, struct where *w)
{
	return defer_out_of_bounds(r, w, 2);
}

/*
 * The same check where direct compaction skips a deferred zone, the only
 * deferral update on that path: a shift above the maximum (7: 1 << 7 =
 * 128 considerations before the next try) defers the order-2 request, and
 * the skip reports it.
 */
static struct mm_sim *fire_compact_defer_at_skip(struct vfirst *r, struct where *w)
{
	struct mm_sim *sim = small(1);
	struct zone *z = zone_of(sim, 0, ZONE_NORMAL);

	sim->serial = true;
	z->compact_defer_shift = COMPACT_MAX_DEFER_SHIFT + 1;
	*w = (struct where){0, ZONE_NORMAL, 0, -1, true, COMPACT_MAX_DEFER_SHIFT};
	record(sim, r);
	ck_assert_int_eq(mm_compact_zone(sim, 0, ZONE_NORMAL, 2, MM_COMPACT_PRIO_SYNC_LIGHT,
					 MM_MIGRATE_SYNC_LIGHT, MIGRATE_MOVABLE),
			 MM_COMPACT_DEFERRED);
	return sim;
}

/* A page migrated to pfn whose stamp is not its handle's: another owner. */
static struct mm_sim *fire_compact_migrate_stamp(struct vfirst *r, struct where *w)
{
	struct mm_sim *sim = small(1);
	struct mm_handle h = {.order = 0};
	long long pfn = mm_alloc_pages(sim, 0, GFP_MOV, -1, 7, &h.gen);

	ck_assert_int_ge(pfn, 0);
	h.pfn = pfn;
	*w = (struct where){0, ZONE_NORMAL, 0, pfn, true, h.gen};
	record(sim, r);
	compact_check_migrated(sim, (uint64_t)pfn, h.pfn, 7, h.gen); /* the right owner: silent */
	ck_assert_uint_eq(r->n, 0);
	compact_check_migrated(sim, (uint64_t)pfn, h.pfn, 8, h.gen);
	return sim;
}

/*
 * A page migrated to pfn with the right stamp, but the handle still names
 * pfn 0: the migration did not move the handle. A handle at pfn 0 is a
 * handle, not the threaded case's "no handle" (-1).
 */
static struct mm_sim *fire_compact_migrate_stale_handle(struct vfirst *r, struct where *w)
{
	struct mm_sim *sim = small(1);
	uint32_t gen, gen2;
	long long pfn = mm_alloc_pages(sim, 0, GFP_MOV, -1, 7, &gen);
	long long pfn2 = mm_alloc_pages(sim, 0, GFP_MOV, -1, 7, &gen2);

	if (!pfn) {
		pfn = pfn2;
		gen = gen2;
	}
	ck_assert_int_gt(pfn, 0);
	*w = (struct where){0, ZONE_NORMAL, 0, pfn, true, gen};
	record(sim, r);
	compact_check_migrated(sim, (uint64_t)pfn, pfn, 7, gen); /* the handle moved: silent */
	ck_assert_uint_eq(r->n, 0);
	compact_check_migrated(sim, (uint64_t)pfn, 0, 7, gen);
	return sim;
}

/* init_admin_reserve(): min(64 pages / 32, 2048) = 2; the model's is one more. */
static struct mm_sim *fire_derived_reserves(struct vfirst *r, struct where *w)
{
	struct mm_sim *sim = small(1);

	sim->serial = true; /* the derived-state scan judges a quiescent machine */
	sim->pcc->admin_reserve++;
	*w = (struct where){-1, -1, -1, -1, true, 2};
	record(sim, r);
	mm_check_full(sim);
	sim->pcc->admin_reserve--;
	return sim;
}

static const struct {
	const char *id;
	struct mm_sim *(*fire)(struct vfirst *r, struct where *w);
} fires[] = {
	{"INV-BUDDY-NRFREE", fire_buddy_nrfree},
	{"INV-BUDDY-LIST", fire_buddy_list},
	{"INV-VMSTAT-DEAD-FOLD", fire_vmstat_dead_fold},
	{"INV-VMSTAT-GLOBAL", fire_vmstat_global},
	{"INV-PCP-LIST", fire_pcp_list},
	{"INV-PCPU-SUM", fire_pcpu_sum_sync},
	{"INV-COMMIT-NEVER", fire_commit_never},
	{"INV-RSS-BAD-STATE", fire_rss_bad_state},
	{"INV-PCPU-LIST", fire_pcpu_list},
	{"INV-COMMIT-DRIFT", fire_commit_drift},
	{"INV-VMSTAT-DRIFT", fire_vmstat_drift},
	{"INV-VMSTAT-PRESSURE", fire_vmstat_pressure},
	{"INV-VMSTAT-PRESSURE", fire_vmstat_pressure_threaded},
	{"INV-VMSTAT-PRESSURE", fire_vmstat_pressure_threaded_edge},
	{"INV-BOOST-BOUND", fire_boost_bound},
	{"INV-BOOST-DECAY", fire_boost_decay},
	{"INV-NOFRAG-RETRY", fire_nofrag_retry},
	{"INV-PCP-HIGH-RANGE", fire_pcp_high_range},
	{"INV-PCPU-SUM-EXACT", fire_pcpu_sum_exact},
	{"INV-PCPU-SYNC", fire_pcpu_sync},
	{"INV-COMPACT-FREE-SCAN", fire_compact_free_scan},
	{"INV-COMPACT-FREE-TARGET", fire_compact_free_target},
	{"INV-HIGHATOMIC-NRFREE", fire_highatomic_nrfree},
	{"INV-HIGHATOMIC-NRFREE", fire_highatomic_nrfree_cycle},
	{"INV-BUDDY-NRFREE", fire_buddy_nrfree_isolate_cycle},
	{"INV-BUDDY-MT", fire_buddy_mt_list},
	{"INV-BUDDY-MT", fire_buddy_mt_split},
	{"INV-BUDDY-LIST", fire_buddy_list_long},
	{"INV-BUDDY-LIST", fire_buddy_list_tail},
	{"INV-BUDDY-NRFREE", fire_buddy_nrfree_order},
	{"INV-PAGE-ZONE", fire_page_zone},
	{"INV-PAGE-STATE", fire_page_state_head},
	{"INV-PAGE-STATE", fire_page_state_tail},
	{"INV-PAGE-STATE", fire_page_state_reserved},
	{"INV-BUDDY-ALIGN", fire_buddy_align},
	{"INV-PCP-COUNT", fire_pcp_count_memmap},
	{"INV-ZONE-CONSERVATION", fire_zone_conservation_memmap},
	{"INV-ZONE-CONSERVATION", fire_zone_conservation_managed},
	{"INV-ZONE-OFFLINE", fire_zone_offline_counted},
	{"INV-ZONE-OFFLINE", fire_zone_offline_memmap},
	{"INV-PCP-COUNT", fire_pcp_count_cpu},
	{"INV-PCP-COUNT", fire_pcp_count_empty_lists},
	{"INV-PCP-COUNT", fire_pcp_count_zero_first_list},
	{"INV-PCP-LIST", fire_pcp_list_tail},
	{"INV-VMSTAT-DIFF", fire_vmstat_diff},
	{"INV-VMSTAT-EXACT", fire_vmstat_exact},
	{"INV-VMSTAT-SAFE", fire_vmstat_safe},
	{"INV-VMSTAT-REARM", fire_vmstat_rearm},
	{"INV-COMPACT-SCANNER-OVERLAP", fire_compact_overlap_migrate},
	{"INV-COMPACT-SCANNER-OVERLAP", fire_compact_overlap_free},
	{"INV-COMPACT-RESCAN", fire_compact_rescan},
	{"INV-COMPACT-RESCAN", fire_compact_rounds},
	{"INV-COMPACT-DEFER", fire_compact_defer_shift},
	{"INV-COMPACT-DEFER", fire_compact_defer_considered},
	{"INV-COMPACT-DEFER", fire_compact_defer_order},
	{"INV-COMPACT-DEFER", fire_compact_defer_at_skip},
	{"INV-COMPACT-MIGRATE-STAMP", fire_compact_migrate_stamp},
	{"INV-COMPACT-MIGRATE-STAMP", fire_compact_migrate_stale_handle},
	{"INV-DERIVED-COMMIT-BATCH", fire_derived_reserves},
};

START_TEST(test_fires)
{
	struct vfirst r = {.want = fires[_i].id};
	struct where w;
	struct mm_sim *sim = fires[_i].fire(&r, &w);

	ck_assert_msg(r.seen, "%s did not fire (%u others, first %s)", r.want, r.n,
		      r.n ? r.first : "-");
	ck_assert_int_eq(r.v.node, w.node);
	ck_assert_int_eq(r.v.zone, w.zone);
	ck_assert_int_eq(r.v.cpu, w.cpu);
	ck_assert_int_eq(r.v.pfn, w.pfn);
	if (w.check_expected)
		ck_assert_int_eq(r.v.expected, w.expected);
	mm_sim_destroy(sim);
}
END_TEST

/* ------------------------------------------------------------------------
 * Out-of-range arguments of the public API
 * ---------------------------------------------------------------------- */

START_TEST(test_names_out_of_range)
{
	ck_assert_str_eq(mm_rss_type_name(-1), "?");
	ck_assert_str_eq(mm_rss_type_name(NR_MM_COUNTERS), "?");
	ck_assert_str_ne(mm_rss_type_name(NR_MM_COUNTERS - 1), "?");
	ck_assert_str_ne(mm_rss_type_name(0), "?");
	ck_assert_str_eq(mm_compact_result_name(-1), "?");
	ck_assert_str_eq(mm_compact_result_name(MM_COMPACT_SUCCESS + 1), "?");
	ck_assert_str_ne(mm_compact_result_name(MM_COMPACT_SUCCESS), "?");
	ck_assert_str_eq(mm_compact_result_name(MM_COMPACT_NOT_SUITABLE_ZONE), "not_suitable_zone");
	/* a corrupted descriptor's state, named in its INV-PAGE-STATE report */
	ck_assert_str_eq(_mm_page_state_name(-1), "?");
	ck_assert_str_eq(_mm_page_state_name(NR_PAGE_STATES), "?");
	ck_assert_str_eq(_mm_page_state_name(0xff), "?");
	ck_assert_str_eq(_mm_page_state_name(PG_NOZONE), "nozone");
	ck_assert_str_eq(_mm_page_state_name(NR_PAGE_STATES - 1), "uninit");
}
END_TEST

/* mm_zone_free_diff(): 0 for any node, zone or cpu out of range. */
START_TEST(test_free_diff_out_of_range)
{
	struct mm_config cfg;
	struct mm_sim *sim;
	struct zone *z;

	/* Normal between DMA32 and Movable: their CPUs' slots border its own. */
	cfg_tiny(&cfg, 2, 3, 2);
	cfg_zone(&cfg, 0, ZONE_DMA32, 0, 64, 64);
	cfg_zone(&cfg, 0, ZONE_NORMAL, 64, 64, 64);
	cfg_zone(&cfg, 0, ZONE_MOVABLE, 128, 64, 64);
	sim = sim_new(&cfg);
	mm_set_current_cpu(0);
	z = zone_of(sim, 0, ZONE_NORMAL);
	/*
	 * A diff on every CPU, so a read in range would not give 0; the
	 * slots either side of the zone's (other zones' CPUs, in the same
	 * buffer) too, so a read one past either end would not either.
	 */
	for (int cpu = -1; cpu <= 2; cpu++)
		z->per_cpu_zonestats[cpu].vm_stat_diff[NR_FREE_PAGES] = 3;
	ck_assert_int_eq(mm_zone_free_diff(sim, 0, ZONE_NORMAL, 1), 3);
	ck_assert_int_eq(mm_zone_free_diff(sim, -1, ZONE_NORMAL, 0), 0);
	ck_assert_int_eq(mm_zone_free_diff(sim, 1, ZONE_NORMAL, 0), 0);
	ck_assert_int_eq(mm_zone_free_diff(sim, 0, (enum zone_type)MAX_NR_ZONES, 0), 0);
	ck_assert_int_eq(mm_zone_free_diff(sim, 0, ZONE_NORMAL, -1), 0);
	ck_assert_int_eq(mm_zone_free_diff(sim, 0, ZONE_NORMAL, 2), 0);
	for (int cpu = -1; cpu <= 2; cpu++)
		z->per_cpu_zonestats[cpu].vm_stat_diff[NR_FREE_PAGES] = 0;
	mm_sim_destroy(sim);
}
END_TEST

/*
 * drain_zonestat() for a CPU past the machine changes nothing: the zones'
 * per-cpu stats share one buffer, so DMA32's slot nr_cpus is Normal's
 * slot 0, whose diff must stay Normal's.
 */
START_TEST(test_drain_zonestat_out_of_range)
{
	struct mm_config cfg;
	struct mm_sim *sim;
	struct zone *dma32, *normal;

	cfg_tiny(&cfg, 2, 3, 2);
	cfg_zone(&cfg, 0, ZONE_DMA32, 0, 64, 64);
	cfg_zone(&cfg, 0, ZONE_NORMAL, 64, 64, 64);
	sim = sim_new(&cfg);
	dma32 = zone_of(sim, 0, ZONE_DMA32);
	normal = zone_of(sim, 0, ZONE_NORMAL);
	ck_assert_ptr_eq(&dma32->per_cpu_zonestats[2], &normal->per_cpu_zonestats[0]);
	long before = atomic_long_read(&dma32->vm_stat[NR_FREE_PAGES]);
	normal->per_cpu_zonestats[0].vm_stat_diff[NR_FREE_PAGES] = 3;
	atomic_long_add(-3, &normal->vm_stat[NR_FREE_PAGES]); /* the sum stays exact */
	drain_zonestat(dma32, 2);
	ck_assert_int_eq(normal->per_cpu_zonestats[0].vm_stat_diff[NR_FREE_PAGES], 3);
	ck_assert_int_eq(atomic_long_read(&dma32->vm_stat[NR_FREE_PAGES]), before);
	drain_zonestat(normal, 0);
	ck_assert_int_eq(normal->per_cpu_zonestats[0].vm_stat_diff[NR_FREE_PAGES], 0);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * mm_sim_counter_stats() of a machine created but not initialised (no
 * counter state yet): every figure 0, whatever the buffer held before.
 */
START_TEST(test_counter_stats_before_init)
{
	struct mm_sim *sim = mm_sim_create();
	struct mm_counter_stats st;
	struct mm_counter_stats zero = {0};

	ck_assert_ptr_nonnull(sim);
	memset(&st, 0xa5, sizeof(st));
	mm_sim_counter_stats(sim, &st);
	ck_assert_mem_eq(&st, &zero, sizeof(st));
	mm_sim_destroy(sim);
}
END_TEST

/*
 * A machine re-initialised in place with fewer CPUs (the fuzzers' per-input
 * reset) leaves the old CPUs' online flags behind (only this machine's are
 * written); a thread numbered as the first CPU past the new machine is
 * still no CPU of it and is refused a charge.
 */
START_TEST(test_charge_refused_past_cpus_after_reset)
{
	struct mm_config cfg;
	struct mm_sim *sim;

	cfg_tiny(&cfg, 4, 3, 2);
	cfg_zone(&cfg, 0, ZONE_NORMAL, 0, 64, 64);
	sim = sim_new(&cfg);
	cfg.cpus_per_node[0] = 2;
	ck_assert_int_eq(mm_sim_init(sim, &cfg, -1), 0);
	ck_assert_uint_eq(mm_nr_cpus(sim), 2);
	mm_set_current_cpu(2);
	ck_assert_int_eq(mm_vm_enough_memory(sim, 0, 1, false), -12);
	mm_set_current_cpu(0);
	ck_assert_int_eq(mm_vm_committed_sum(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

/* mm_pcp_info(): -1 out of range, and for a zone with no pageset. */
START_TEST(test_pcp_info_out_of_range)
{
	struct mm_sim *sim = small(2);
	struct mm_pcp_info pi;

	ck_assert_int_eq(mm_pcp_info(sim, 0, ZONE_NORMAL, 1, &pi), 0);
	ck_assert_int_eq(mm_pcp_info(sim, -1, ZONE_NORMAL, 0, &pi), -1);
	ck_assert_int_eq(mm_pcp_info(sim, 1, ZONE_NORMAL, 0, &pi), -1);
	ck_assert_int_eq(mm_pcp_info(sim, 0, (enum zone_type)MAX_NR_ZONES, 0, &pi), -1);
	ck_assert_int_eq(mm_pcp_info(sim, 0, ZONE_NORMAL, -1, &pi), -1);
	ck_assert_int_eq(mm_pcp_info(sim, 0, ZONE_NORMAL, 2, &pi), -1);
	ck_assert_int_eq(mm_pcp_info(sim, 0, ZONE_DMA, 0, &pi), -1); /* no pages: no pageset */
	mm_sim_destroy(sim);
}
END_TEST

/*
 * mm_alloc_pages(): a preferred node the machine does not have (below 0,
 * the one just past the last, far past it) means the current CPU's node. Two
 * nodes of 64 Normal pages, the caller on node 1's CPU: every request is
 * served from node 1's zone.
 */
START_TEST(test_alloc_preferred_node_out_of_range)
{
	static const int nids[] = {-1, 2, 3, 1 << 30};
	struct mm_config cfg;
	struct mm_sim *sim;
	uint32_t gen;

	cfg_tiny(&cfg, 1, 3, 2);
	cfg.nr_nodes = 2;
	cfg.cpus_per_node[1] = 1;
	cfg_zone(&cfg, 0, ZONE_NORMAL, 0, 64, 64);
	cfg_zone(&cfg, 1, ZONE_NORMAL, 64, 64, 64);
	sim = sim_new(&cfg);
	mm_set_current_cpu(1);
	ck_assert_int_eq(mm_cpu_to_node(sim, 1), 1);
	for (size_t i = 0; i < ARRAY_SIZE(nids); i++) {
		long long pfn = mm_alloc_pages(sim, 0, MM_GFP_KERNEL, nids[i], 1, &gen);

		ck_assert_msg(pfn >= 64 && pfn < 128, "preferred node %d: pfn %lld, want node 1's",
			      nids[i], pfn);
		mm_free_pages(sim, (uint64_t)pfn, 0, 1, gen);
	}
	ck_assert_uint_eq(mm_check_full(sim), 0);
	ck_assert_uint_eq(mm_sim_violations(sim), 0);
	mm_set_current_cpu(0);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * Hotplug, kswapd, compaction, vm_committed_as and the op language on a
 * node, CPU, zone, order or op kind the machine does not have: each call
 * answers its documented "no" (-1, 1, false, 0, "?") and changes nothing.
 */
START_TEST(test_public_calls_out_of_range)
{
	struct mm_sim *sim = small(2);
	struct mm_op bad_kind = {.kind = MM_NR_OP_KINDS};
	struct mm_limits lim, def;
	bool pressure = true;
	char buf[64];

	ck_assert_int_eq(mm_cpu_online(sim, -1), -1);
	ck_assert_int_eq(mm_cpu_online(sim, 2), -1);
	ck_assert_int_eq(mm_cpu_offline(sim, -1), -1);
	ck_assert_int_eq(mm_cpu_offline(sim, 2), -1);
	ck_assert_int_eq(mm_num_online_cpus(sim), 2);
	ck_assert(!mm_kswapd_awake(sim, -1, &pressure));
	ck_assert(!mm_kswapd_awake(sim, 1, NULL));
	ck_assert(pressure);
	ck_assert_int_eq(mm_compact_zone(sim, -1, ZONE_NORMAL, 0, MM_COMPACT_PRIO_ASYNC,
					 MM_MIGRATE_ASYNC, MIGRATE_MOVABLE),
			 -1);
	ck_assert_int_eq(mm_compact_zone(sim, 1, ZONE_NORMAL, 0, MM_COMPACT_PRIO_ASYNC,
					 MM_MIGRATE_ASYNC, MIGRATE_MOVABLE),
			 -1);
	ck_assert_int_eq(mm_compact_zone(sim, 0, (enum zone_type)MAX_NR_ZONES, 0,
					 MM_COMPACT_PRIO_ASYNC, MM_MIGRATE_ASYNC, MIGRATE_MOVABLE),
			 -1);
	ck_assert_int_eq(mm_compact_zone(sim, 0, ZONE_NORMAL, 4, MM_COMPACT_PRIO_ASYNC,
					 MM_MIGRATE_ASYNC, MIGRATE_MOVABLE),
			 -1);
	sim->serial = true; /* compaction runs on one thread only */
	ck_assert_int_eq(mm_kcompactd_step(sim, 1, 0), 1);
	ck_assert_int_eq(mm_kcompactd_step(sim, -1, 0), 1);
	ck_assert_int_eq(mm_kcompactd_step(sim, 0, 4), 1);
	/* max_order itself is an order the calls take */
	ck_assert_int_ne(mm_compact_zone(sim, 0, ZONE_NORMAL, 3, MM_COMPACT_PRIO_ASYNC,
					 MM_MIGRATE_ASYNC, MIGRATE_MOVABLE),
			 -1);
	ck_assert_int_eq(mm_kcompactd_step(sim, 0, 3), 0);
	/* kswapd's reset of a node the machine does not have leaves node 0's request */
	zone_of(sim, 0, ZONE_NORMAL)->compact_blockskip_flush = true;
	mm_reset_isolation_suitable(sim, -1);
	mm_reset_isolation_suitable(sim, 1);
	ck_assert(zone_of(sim, 0, ZONE_NORMAL)->compact_blockskip_flush);
	zone_of(sim, 0, ZONE_NORMAL)->compact_blockskip_flush = false;
	ck_assert_int_eq(mm_vm_committed_local(sim, -1), 0);
	ck_assert_int_eq(mm_vm_committed_local(sim, 2), 0);
	ck_assert_int_eq(mm_pcpu_local(sim, 0, -1), 0);
	ck_assert_int_eq(mm_pcpu_local(sim, 0, 2), 0);
	ck_assert_int_eq(mm_pcpu_local(sim, MM_MAX_PCPU_COUNTERS, 0), 0);
	ck_assert_uint_eq(mm_zone_drift_mark(sim, 1, ZONE_NORMAL), 0);
	ck_assert_uint_eq(mm_zone_drift_mark(sim, 0, (enum zone_type)MAX_NR_ZONES), 0);
	/* a thread that is no CPU of the machine is refused a charge */
	mm_set_current_cpu(2);
	ck_assert_int_eq(mm_vm_enough_memory(sim, 0, 1, false), -12);
	mm_set_current_cpu(0);
	ck_assert_int_eq(mm_vm_committed_sum(sim), 0);

	ck_assert_int_eq(mm_apply_op(sim, &bad_kind, NULL, 0, 0), 1);
	ck_assert_int_eq(mm_format_op(&bad_kind, 0, buf, sizeof(buf)), (int)strlen(buf));
	ck_assert_msg(strstr(buf, "unknown op kind"), "%s", buf);
	ck_assert_int_eq(mm_op_usage(MM_NR_OP_KINDS, buf, sizeof(buf)), 1);
	ck_assert_str_eq(buf, "?");
	mm_limits_default(&def);
	ck_assert_int_eq(mm_limits_for_target("fuzz_nothing", &lim), -1);
	ck_assert_uint_eq(lim.max_nodes, def.max_nodes);
	ck_assert_uint_eq(lim.max_cpus_per_node, def.max_cpus_per_node);
	ck_assert_uint_eq(lim.max_total_pages, def.max_total_pages);
	ck_assert_uint_eq(lim.max_ops, def.max_ops);
	ck_assert_int_eq(mm_limits_for_target(NULL, &lim), -1);
	for (size_t i = 0; mm_target_at(i); i++)
		ck_assert_int_eq(mm_limits_for_target(mm_target_at(i), &lim), 0);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	ck_assert_uint_eq(mm_sim_violations(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * Ops the executor skips (1) for an argument the decoder never gives but
 * the op struct can hold: kswapd on a node the machine does not have, a
 * vmstat read of no zone, a high fraction the sysctl refuses (1..7); and
 * an allocation above max_order, which fails (-1) and allocates nothing.
 */
START_TEST(test_ops_skip_out_of_range)
{
	struct mm_sim *sim = small(2);
	struct mm_op step = {.kind = MM_OP_KSWAPD_STEP, .vmstat = {.node = 1}};
	struct mm_op sleep = {.kind = MM_OP_KSWAPD_SLEEP, .vmstat = {.node = -1}};
	struct mm_op read = {.kind = MM_OP_VMSTAT_READ, .vmstat = {.node = 1, .zone = ZONE_NORMAL}};
	struct mm_op frac = {.kind = MM_OP_SET_HIGH_FRACTION, .sysctl = {.value = 7}};
	struct mm_stats st0 = sim_stats(sim);
	uint32_t gen = 0;

	sim->serial = true;
	ck_assert_int_eq(mm_apply_op(sim, &step, NULL, 0, 0), 1);
	ck_assert_int_eq(mm_apply_op(sim, &sleep, NULL, 0, 0), 1);
	ck_assert_int_eq(mm_apply_op(sim, &read, NULL, 0, 0), 1);
	read.vmstat.node = 0;
	read.vmstat.zone = MAX_NR_ZONES;
	ck_assert_int_eq(mm_apply_op(sim, &read, NULL, 0, 0), 1);
	ck_assert_int_eq(mm_apply_op(sim, &frac, NULL, 0, 0), 1);
	/* the range ops naming the node past the last, the zone past the last, a bad start */
	for (uint8_t kind = MM_OP_OFFLINE_PAGES; kind <= MM_OP_FREE_CONTIG; kind++) {
		struct mm_op range = {
			.kind = kind,
			.range = {.start = 0, .pages = 4, .node = 1, .zone = ZONE_NORMAL}};
		ck_assert_int_eq(mm_apply_op(sim, &range, NULL, 0, 0), 1);
		range.range.node = 0;
		range.range.zone = MAX_NR_ZONES;
		ck_assert_int_eq(mm_apply_op(sim, &range, NULL, 0, 0), 1);
		/* and a range off the pageblock grid: an odd start */
		range.range.zone = ZONE_NORMAL;
		range.range.start = 1;
		ck_assert_int_eq(mm_apply_op(sim, &range, NULL, 0, 0), 1);
	}
	ck_assert_int_eq(pcpinfo(sim, 0, ZONE_NORMAL, 0).high_min,
			 zinfo(sim, 0, ZONE_NORMAL).pcp_high_min);
	mm_set_current_cpu(1);
	ck_assert_int_eq(mm_current_cpu(), 1);
	ck_assert_int_eq(mm_alloc_pages(sim, sim->max_order + 1, GFP_MOV, -1, 1, &gen), -1);
	ck_assert_uint_eq(sim_stats(sim).alloc_success, st0.alloc_success);
	ck_assert_int_eq(zinfo(sim, 0, ZONE_NORMAL).nr_free_exact, 64);
	/* a CPU past the machine decays nothing (its pageset would lie past the buffer) */
	ck_assert_int_eq(decay_pcp_high(zone_of(sim, 0, ZONE_NORMAL), sim->nr_cpus), 0);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	ck_assert_uint_eq(mm_sim_violations(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

/* ------------------------------------------------------------------------
 * OVERCOMMIT_NEVER's reserves (mm/util.c __vm_enough_memory, 6.x):
 *   allowed = totalram * 50 / 100 (no swap, no hugetlb)
 *           - admin_reserve                  unless cap_sys_admin
 *           - min(total_vm / 32, user_reserve)
 *   admit iff committed (after adding pages) < allowed
 * with admin_reserve = min(totalram / 32, 2048) (init_admin_reserve, 8 MB)
 * and user_reserve = min(totalram / 32, 32768) (init_user_reserve, 128 MB).
 * ---------------------------------------------------------------------- */

static const struct {
	unsigned long ram, total_vm;
	bool admin;
	long first_refused; /* pages: the smallest charge refused */
} never_rows[] = {
	/* 1024 pages: 512 - 32 (admin) - min(4096/32, 32) = 448 */
	{1024, 4096, false, 448},
	/* cap_sys_admin keeps the admin reserve: 512 - 32 = 480 */
	{1024, 4096, true, 480},
	/* total_vm 320: 512 - 32 - 10 = 470 */
	{1024, 320, false, 470},
	/* 1 << 21 pages: 2^20 - 2048 - min(2^21 / 32, 32768) = 1013760 */
	{1UL << 21, 1UL << 21, false, 1048576 - 2048 - 32768},
	/* 32768 * 32.5 pages: ram / 32 = 33280 is past the cap, ram / 33 is not */
	{1064960, 1UL << 22, false, 532480 - 2048 - 32768},
};

START_TEST(test_never_reserves)
{
	struct mm_config cfg;
	struct mm_sim *sim;
	unsigned long ram = never_rows[_i].ram;
	long edge = never_rows[_i].first_refused;

	/* The zone spans 1024 pages: the reserves read totalram (managed). */
	cfg_tiny(&cfg, 1, 3, 2);
	cfg_zone(&cfg, 0, ZONE_NORMAL, 0, 1024, 1024);
	cfg.zones[0][ZONE_NORMAL].managed = ram;
	if (ram > 1024) {
		cfg.zones[0][ZONE_NORMAL].spanned = ram;
		cfg.zones[0][ZONE_NORMAL].present = ram;
	}
	sim = sim_new(&cfg);
	mm_set_current_cpu(0);
	ck_assert_int_eq(mm_set_overcommit_memory(sim, MM_OVERCOMMIT_NEVER), 0);
	ck_assert_int_eq(
		mm_vm_enough_memory(sim, never_rows[_i].total_vm, edge, never_rows[_i].admin), -12);
	ck_assert_int_eq(
		mm_vm_enough_memory(sim, never_rows[_i].total_vm, edge - 1, never_rows[_i].admin),
		0);
	ck_assert_uint_eq(mm_sim_violations(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

/* ------------------------------------------------------------------------
 * mm_check_full() returns the violations it reported
 * ---------------------------------------------------------------------- */

static void count_handler(const struct mm_violation *v, void *arg)
{
	(void)v;
	(*(unsigned long *)arg)++;
}

/*
 * Each corrupts one link or count of a free list, at the zone's highest
 * order with a MOVABLE block: the free-list walk stops early at a broken
 * link, so a count that leaves its own report out would go unnoticed by
 * the handler-based rows above. The last three break a block in the
 * memmap instead: the zone's walk stops at the first such report.
 */
enum list_fault {
	HEAD_PREV,
	NOT_BUDDY,
	NR_FREE_SHORT,
	STALE_TAIL,
	MISALIGNED, /* the memmap walk: INV-BUDDY-ALIGN ends the zone's pass */
	OTHER_ZONE, /* the memmap walk: INV-PAGE-ZONE ends the zone's pass */
	TAIL_STATE  /* the memmap walk: INV-PAGE-STATE inside the block ends it */
};
static const struct {
	const char *name;
	enum list_fault fault;
} count_rows[] = {
	{"a list head with a predecessor", HEAD_PREV},
	{"a listed block that is not free", NOT_BUDDY},
	{"a list longer than nr_free", NR_FREE_SHORT},
	{"a stale tail pointer", STALE_TAIL},
	{"a free block's order above max_order", MISALIGNED},
	{"a block head naming another zone", OTHER_ZONE},
	{"an allocated tail inside a free block", TAIL_STATE},
};

START_TEST(test_full_check_counts_reports)
{
	struct mm_sim *sim = small(1);
	struct zone *z = zone_of(sim, 0, ZONE_NORMAL);
	unsigned long reports = 0, found;
	unsigned int o = sim->max_order + 1;
	uint32_t head = PFN_NIL;

	while (head == PFN_NIL && o-- > 0)
		head = z->free_area[o].head[MIGRATE_MOVABLE];
	ck_assert_uint_ne(head, PFN_NIL);

	struct free_area *fa = &z->free_area[o], saved_area = *fa;
	struct page *page = pfn_to_page(sim, head), saved_page = *page;
	struct page *tail = pfn_to_page(sim, head + 1), saved_tail = *tail;

	mm_sim_set_violation_handler(sim, count_handler, &reports);
	switch (count_rows[_i].fault) {
	case HEAD_PREV:
		page->lru.prev = head;
		break;
	case NOT_BUDDY:
		page->state = PG_FREE_TAIL;
		break;
	case NR_FREE_SHORT:
		fa->nr_free--;
		break;
	case STALE_TAIL:
		fa->tail[MIGRATE_MOVABLE] = head;
		break;
	case MISALIGNED:
		page->order = (uint8_t)(sim->max_order + 1);
		break;
	case OTHER_ZONE:
		page->zone_id = (uint16_t)(z->zone_id + 1);
		break;
	case TAIL_STATE:
		ck_assert_uint_ge(o, 1);
		tail->state = PG_ALLOC_TAIL;
		break;
	}
	found = mm_check_full(sim);
	ck_assert_msg(found >= 1 && found == reports, "%s: mm_check_full() found %lu, reported %lu",
		      count_rows[_i].name, found, reports);
	*fa = saved_area;
	*page = saved_page;
	*tail = saved_tail;
	reports = 0;
	ck_assert_uint_eq(mm_check_full(sim), 0);
	ck_assert_uint_eq(reports, 0);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * A zone that spans pages but has none present (a hole) has no per-cpu
 * stats: the full check passes over it and, on a clean machine, still
 * returns the 0 violations it reported.
 */
START_TEST(test_full_check_counts_hole_zone)
{
	struct mm_config cfg;
	unsigned long reports = 0;

	cfg_tiny(&cfg, 2, 3, 2);
	cfg_zone(&cfg, 0, ZONE_DMA32, 0, 64, 0);
	cfg.zones[0][ZONE_DMA32].present = 0;
	cfg_zone(&cfg, 0, ZONE_NORMAL, 64, 64, 64);
	struct mm_sim *sim = sim_new(&cfg);

	ck_assert_uint_eq(zone_of(sim, 0, ZONE_DMA32)->spanned_pages, 64);
	ck_assert_ptr_null(zone_of(sim, 0, ZONE_DMA32)->per_cpu_zonestats);
	mm_sim_set_violation_handler(sim, count_handler, &reports);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	ck_assert_uint_eq(reports, 0);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * INV-BUDDY-ALIGN has three terms, each reported on its own: a head's
 * order past max_order (pfn 0 as order 4, aligned and inside the 64-page
 * zone), a head off its order's alignment (pfn 4 as order 3 after pfn 0's
 * block is cut to order 2, ending inside the zone), and a block crossing
 * the zone's end (pfn 56 as order 3, aligned, in a zone of 60 pages).
 * fire_buddy_align's pfn 8 as order 4 breaks two at once. max_order 3,
 * pageblocks of 4 pages.
 */
static const struct {
	const char *name;
	unsigned int spanned;
	uint64_t pfn;
	unsigned int order;
	bool cut_pfn0; /* pfn 0's order-3 block cut to order 2, pfn 4 a head */
} align_rows[] = {
	{"past max_order", 64, 0, 4, false},
	{"misaligned", 64, 4, 3, true},
	{"crossing the zone end", 60, 56, 3, false},
};

START_TEST(test_buddy_align_each_term)
{
	struct mm_config cfg;
	struct vfirst r = {.want = "INV-BUDDY-ALIGN"};

	cfg_tiny(&cfg, 1, 3, 2);
	cfg_zone(&cfg, 0, ZONE_NORMAL, 0, align_rows[_i].spanned, align_rows[_i].spanned);
	struct mm_sim *sim = sim_new(&cfg);
	struct page *page = pfn_to_page(sim, align_rows[_i].pfn);

	ck_assert_int_eq(mm_check_full(sim), 0);
	ck_assert_int_eq(pfn_to_page(sim, 0)->order, 3);
	if (align_rows[_i].cut_pfn0) {
		pfn_to_page(sim, 0)->order = 2;
		page->state = PG_BUDDY;
	}
	ck_assert_int_eq(page->state, PG_BUDDY);
	page->order = (uint8_t)align_rows[_i].order;
	record(sim, &r);
	mm_check_full(sim);
	ck_assert_msg(r.seen, "%s: INV-BUDDY-ALIGN did not fire (%u others, first %s)",
		      align_rows[_i].name, r.n, r.n ? r.first : "-");
	ck_assert_int_eq(r.v.pfn, (long long)align_rows[_i].pfn);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * INV-BUDDY-MERGED spares a pair of free pageblock buddies one of which an
 * unreserve left apart (PB_APART): the kernel merges them at a later free.
 * The mark must end when its block leaves the free lists, or a later
 * unmerged pair there goes unreported. Pageblocks of 8 pages, max_order
 * 4: block 0 is freed, marked apart, allocated again (the mark ends) and
 * freed; then block 8 is freed under buddy-no-merge-order3, which leaves
 * the two order-3 buddies apart: INV-BUDDY-MERGED must fire at pfn 0.
 */
START_TEST(test_apart_mark_ends_with_the_free_block)
{
	struct mm_config cfg;
	struct vfirst r = {.want = "INV-BUDDY-MERGED"};
	uint32_t g0, g8;
	long long p0, p8;

	cfg_tiny(&cfg, 1, 4, 3);
	cfg_zone(&cfg, 0, ZONE_NORMAL, 0, 16, 16);
	struct mm_sim *sim = sim_new_variant(&cfg, "buddy-no-merge-order3");
	struct zone *z = zone_of(sim, 0, ZONE_NORMAL);
	const unsigned int gfp = MM_GFP_KERNEL | MM_GFP_MOVABLE;

	for (int zt = 0; zt < ZONE_DEVICE; zt++)
		mm_zone_pcp_disable(sim, 0, (enum zone_type)zt);
	mm_set_current_cpu(0);
	p0 = mm_alloc_pages(sim, 3, gfp, -1, 1, &g0);
	p8 = mm_alloc_pages(sim, 3, gfp, -1, 2, &g8);
	ck_assert_int_eq(p0, 0);
	ck_assert_int_eq(p8, 8);
	mm_free_pages(sim, (uint64_t)p0, 3, 1, g0);
	zone_lock(z);
	move_free_block_apart(z, (uint64_t)p0, 3, MIGRATE_MOVABLE, MIGRATE_MOVABLE);
	zone_unlock(z);
	ck_assert(sim->pageblock_flags[p0 >> 3] & PB_APART);
	ck_assert_int_eq(mm_alloc_pages(sim, 3, gfp, -1, 1, &g0), p0);
	ck_assert_msg(!(sim->pageblock_flags[p0 >> 3] & PB_APART),
		      "the block left the free lists: its apart mark ends");
	mm_free_pages(sim, (uint64_t)p0, 3, 1, g0);
	mm_free_pages(sim, (uint64_t)p8, 3, 2, g8);
	record(sim, &r);
	mm_check_full(sim);
	ck_assert_msg(r.seen, "INV-BUDDY-MERGED did not fire (%u others, first %s)", r.n,
		      r.n ? r.first : "-");
	/* the pair is reported once, at its lower half: the merged block's head */
	ck_assert_int_eq(r.v.pfn, 0);
	ck_assert_int_eq(r.v.expected, 4);
	ck_assert_int_eq(r.v.actual, 3);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * Seed 002's law at its edge, both forms: an order-o allocation admitted at
 * low under kswapd's pressure thresholds must find exact free pages at
 * min + 2^o or more. The grid puts exact at min + 2^o - 1, min + 2^o and
 * min + 2^o + 1 for orders 0 to 3, serial (checked before the buddy is
 * asked) and threaded (the recheck under zone->lock); the estimate stays 30
 * above exact, well above low. Only the first row of each triple breaks the
 * rule, and the report carries the rule's min + 2^o and the exact count.
 */
static const int pressure_edge_delta[] = {-1, 0, 1};

START_TEST(test_pressure_edge_grid)
{
	const unsigned int order = (unsigned int)_i % 4;
	const int delta = pressure_edge_delta[(_i / 4) % 3];
	const bool serial = _i < 12;
	const long want = 10 + (1L << order); /* min + 2^order, pressure_skewed()'s min */
	const long exact = want + delta;
	struct vfirst r = {.want = "INV-VMSTAT-PRESSURE"};
	struct mm_sim *sim = pressure_broken(&r, (unsigned int)(64 - exact), serial);
	uint32_t gen;

	ck_assert_int_eq(zone_of(sim, 0, ZONE_NORMAL)->vm_stat_exact[NR_FREE_PAGES], exact);
	ck_assert_int_ge(mm_alloc_pages(sim, order, GFP_MOV, -1, 1, &gen), 0);
	ck_assert_msg(r.seen == (exact < want), "order %u, exact %ld, %s: reported %d (want %d)",
		      order, exact, serial ? "serial" : "threaded", r.seen, exact < want);
	if (r.seen) {
		ck_assert_int_eq(r.v.expected, want);
		ck_assert_int_eq(r.v.actual, exact);
	}
	mm_sim_destroy(sim);
}
END_TEST

/*
 * The threaded recheck judges only an estimate that still admits at low:
 * another CPU may have moved it since the lockless admission. Exact 12 is
 * below min + 2^2 = 14 in every row; an order-2 recheck reports with the
 * estimate at 24 (24 - 2^2 = low 20) and keeps quiet at 23 and 21, which
 * no longer admit. An order-0 recheck at 21 admits but finds exact 12 at
 * min + 1 = 11 or more: quiet too.
 */
static const struct {
	long estimate;
	unsigned int order;
	bool reported;
} recheck_rows[] = {
	{24, 2, true},
	{23, 2, false},
	{21, 2, false},
	{21, 0, false},
};

START_TEST(test_pressure_recheck_needs_admission)
{
	struct vfirst r = {.want = "INV-VMSTAT-PRESSURE"};
	struct mm_sim *sim = pressure_skewed(&r, 52, false, 0);
	struct zone *z = zone_of(sim, 0, ZONE_NORMAL);
	long skew = recheck_rows[_i].estimate - zone_page_state(z, NR_FREE_PAGES);

	atomic_long_add(skew, &z->vm_stat[NR_FREE_PAGES]);
	atomic_long_add(skew, &sim->vm_zone_stat[NR_FREE_PAGES]);
	ck_assert_int_eq(z->vm_stat_exact[NR_FREE_PAGES], 12);
	ck_assert_int_eq(zone_page_state(z, NR_FREE_PAGES), recheck_rows[_i].estimate);
	_mm_check_admission_under_pressure_locked(z, recheck_rows[_i].order);
	ck_assert_msg(r.seen == recheck_rows[_i].reported, "estimate %ld, order %u: reported %d",
		      recheck_rows[_i].estimate, recheck_rows[_i].order, r.seen);
	mm_sim_destroy(sim);
}
END_TEST

static Suite *fires_suite(void)
{
	Suite *s = suite_create("fires");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_fires, 0, (int)ARRAY_SIZE(fires));
	tcase_add_loop_test(tc, test_compact_round_bound, 0, 2 * 11);
	tcase_add_test(tc, test_pass_begin_forgets_every_block);
	tcase_add_test(tc, test_names_out_of_range);
	tcase_add_test(tc, test_free_diff_out_of_range);
	tcase_add_test(tc, test_drain_zonestat_out_of_range);
	tcase_add_test(tc, test_counter_stats_before_init);
	tcase_add_test(tc, test_charge_refused_past_cpus_after_reset);
	tcase_add_test(tc, test_pcp_info_out_of_range);
	tcase_add_test(tc, test_public_calls_out_of_range);
	tcase_add_test(tc, test_alloc_preferred_node_out_of_range);
	tcase_add_test(tc, test_ops_skip_out_of_range);
	tcase_add_loop_test(tc, test_never_reserves, 0, (int)ARRAY_SIZE(never_rows));
	tcase_add_loop_test(tc, test_full_check_counts_reports, 0, (int)ARRAY_SIZE(count_rows));
	tcase_add_test(tc, test_full_check_counts_hole_zone);
	tcase_add_loop_test(tc, test_buddy_align_each_term, 0, (int)ARRAY_SIZE(align_rows));
	tcase_add_test(tc, test_apart_mark_ends_with_the_free_block);
	tcase_add_loop_test(tc, test_pressure_recheck_needs_admission, 0,
			    (int)ARRAY_SIZE(recheck_rows));
	tcase_add_loop_test(tc, test_pressure_edge_grid, 0, 2 * 4 * 3);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(fires_suite());
}
