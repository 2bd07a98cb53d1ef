/* SPDX-License-Identifier: MIT */
/*
 * test_highatomic.c - the highatomic reserve's life: reserved by a
 * high-order atomic allocation, counted free as nr_free_highatomic
 * (c928807f6f6b), unreserved before OOM (unreserve_highatomic_pageblock()).
 */
#include "common.h"
#include "internal.h"

/* 1024 pages, min 64 low 80; an ATOMIC order-1 request below low reserves pageblock 1. */
#define RESERVED                                                                                   \
	"config nodes=1 cpus=2 max_order=10 pageblock_order=9 min_free_kbytes=0 "                  \
	"watermark_scale_factor=10 high_fraction=0\n"                                              \
	"zone 0 Normal start=0 spanned=1024 present=1024 managed=1024\n"                           \
	"cpu0 alloc a0 order=9 gfp=MOVABLE|DIRECT_RECLAIM|KSWAPD_RECLAIM\n"                        \
	"cpu0 alloc a1 order=8 gfp=MOVABLE|DIRECT_RECLAIM|KSWAPD_RECLAIM\n"                        \
	"cpu0 alloc a2 order=7 gfp=MOVABLE|DIRECT_RECLAIM|KSWAPD_RECLAIM\n"                        \
	"cpu0 alloc a3 order=5 gfp=MOVABLE|DIRECT_RECLAIM|KSWAPD_RECLAIM\n"                        \
	"cpu0 alloc a4 order=4 gfp=MOVABLE|DIRECT_RECLAIM|KSWAPD_RECLAIM\n"                        \
	"cpu0 alloc a5 order=1 gfp=ATOMIC\n"

static struct zone *normal(struct mm_sim *sim)
{
	return &sim->node_data[0]->node_zones[ZONE_NORMAL];
}

/* text, run clean; its machine records violations in vr from now on, as CPU 0. */
static struct mm_sim *clean_machine(struct mm_exec *ex, const char *text, struct vrec *vr)
{
	struct mm_exec_opts o;
	long failed;

	mm_exec_opts_default(&o);
	ck_assert_int_eq(exec_text(ex, text, &o, vr, &failed), 0);
	ck_assert_msg(vr->n == 0, "%s", vr->first);
	struct mm_sim *sim = mm_exec_sim(ex);
	sim_record(sim, vr);
	mm_set_current_cpu(0);
	return sim;
}

/* RESERVED, run clean, as clean_machine(). */
static struct mm_sim *reserved_machine(struct mm_exec *ex, struct vrec *vr)
{
	struct mm_sim *sim = clean_machine(ex, RESERVED "check\n", vr);

	ck_assert_uint_eq(normal(sim)->nr_reserved_highatomic, 512);
	ck_assert_int_eq(normal(sim)->nr_free_highatomic, 78);
	return sim;
}

/* The reserve: one pageblock, its free pages counted in nr_free_highatomic. */
START_TEST(test_reserve_counts_free_highatomic)
{
	struct mm_exec *ex = mm_exec_create();
	struct mm_exec_opts o;
	struct vrec vr;
	long failed;

	mm_exec_opts_default(&o);
	ck_assert_int_eq(exec_text(ex, RESERVED "check\n", &o, &vr, &failed), 0);
	struct zone *z = normal(mm_exec_sim(ex));
	ck_assert_uint_eq(z->nr_reserved_highatomic, 512);
	ck_assert_int_eq(z->nr_free_highatomic, 78);
	ck_assert_int_eq(z->vm_stat_exact[NR_FREE_PAGES], 78);
	mm_exec_destroy(ex);
}
END_TEST

/*
 * 78 pages free, all highatomic: an order-0 GFP_KERNEL request fails both
 * marks, and before OOM the reserve goes back to MOVABLE, after which it
 * succeeds at min (78 > 64).
 */
START_TEST(test_unreserve_before_oom)
{
	struct mm_exec *ex = mm_exec_create();
	struct mm_exec_opts o;
	struct vrec vr;
	long failed;

	mm_exec_opts_default(&o);
	ck_assert_int_eq(exec_text(ex, RESERVED "cpu0 alloc a6 order=0 gfp=KERNEL\ncheck\n", &o,
				   &vr, &failed),
			 0);
	struct mm_sim *sim = mm_exec_sim(ex);
	struct zone *z = normal(sim);
	ck_assert_uint_eq(z->nr_reserved_highatomic, 0);
	ck_assert_int_eq(z->nr_free_highatomic, 0);
	ck_assert_int_eq(sim->pageblock_flags[1] & PB_MIGRATETYPE_MASK, MIGRATE_UNMOVABLE);
	struct mm_zone_info zi = zinfo(sim, 0, ZONE_NORMAL);
	ck_assert_int_eq(zi.nr_free_exact + zi.nr_pcp_pages, 77); /* a6 got its page */
	mm_exec_destroy(ex);
}
END_TEST

/*
 * The unreserve retries end even on free lists a bug corrupted: every page
 * on the HIGHATOMIC lists is made to look allocated, so no retype takes it
 * off its list, and each unreserve finds the same head and says it made
 * progress. An order-0 GFP_KERNEL request must still fail and return,
 * after no more retries than the machine has pageblocks.
 */
/* Sets the state of every page on the zone's HIGHATOMIC lists; returns how many. */
static int set_highatomic_listed_state(struct mm_sim *sim, struct zone *z, uint8_t state)
{
	int listed = 0;

	for (unsigned int ord = 0; ord <= sim->max_order; ord++)
		for (uint32_t p = z->free_area[ord].head[MIGRATE_HIGHATOMIC]; p != PFN_NIL;
		     p = sim->mem_map[p].lru.next, listed++)
			sim->mem_map[p].state = state;
	return listed;
}

START_TEST(test_unreserve_retries_end_on_corrupt_lists)
{
	struct mm_exec *ex = mm_exec_create();
	struct vrec vr;
	uint32_t gen;
	struct mm_sim *sim = reserved_machine(ex, &vr);
	struct zone *z = normal(sim);

	ck_assert_int_gt(set_highatomic_listed_state(sim, z, PG_ALLOC), 0);
	ck_assert_int_lt(mm_alloc_pages(sim, 0, MM_GFP_KERNEL, -1, 7, &gen), 0);
	set_highatomic_listed_state(sim, z, PG_BUDDY); /* as they were, for the teardown */
	mm_exec_destroy(ex);
}
END_TEST

/* A request that may sleep but is costly gives up before the unreserve. */
START_TEST(test_costly_keeps_reserve)
{
	struct mm_exec *ex = mm_exec_create();
	struct mm_exec_opts o;
	struct vrec vr;
	long failed;

	mm_exec_opts_default(&o);
	ck_assert_int_eq(exec_text(ex, RESERVED "cpu0 alloc a6 order=4 gfp=KERNEL\ncheck\n", &o,
				   &vr, &failed),
			 0);
	ck_assert_uint_eq(normal(mm_exec_sim(ex))->nr_reserved_highatomic, 512);
	mm_exec_destroy(ex);
}
END_TEST

/* 32 pages, pageblocks of 4, max_order 3, pcp lists off */
static struct mm_sim *tiny32(void)
{
	struct mm_config cfg;
	struct mm_sim *sim;

	cfg_tiny(&cfg, 1, 3, 2);
	cfg_zone(&cfg, 0, ZONE_NORMAL, 0, 32, 32);
	sim = sim_new_buddy_only(&cfg);
	mm_set_current_cpu(0);
	return sim;
}

/*
 * unreserve_highatomic_pageblock() retypes a free block of a pageblock or
 * more in place (move_to_free_list()); it does not free it again, so a free
 * buddy it could now merge with stays apart until one of them leaves its
 * list (6.10-6.12). 32 pages, pageblocks of 4, max_order 3: pageblock 0
 * (0-3) free HIGHATOMIC beside 4-7 free MOVABLE, one free UNMOVABLE page at
 * 16, the rest allocated. An order-0 GFP_KERNEL request is refused at min
 * (13 usable of 17, the reserve not counted), unreserves 0-3 to UNMOVABLE
 * and gets pfn 16: 0-3 and 4-7 stay two order-2 blocks, which the full
 * check allows (the buddy check knows they were left apart). A later free
 * of 4-7 merges the pair.
 */
START_TEST(test_unreserve_leaves_buddies_apart)
{
	uint32_t gen[16], g;
	struct vrec vr;
	struct mm_sim *sim = tiny32();
	struct zone *z = normal(sim);

	ck_assert_int_eq(mm_alloc_pages(sim, 3, MM_GFP_KERNEL | MM_GFP_MOVABLE, 0, 0, &gen[0]), 0);
	ck_assert_int_eq(mm_alloc_pages(sim, 3, MM_GFP_KERNEL | MM_GFP_MOVABLE, 0, 1, &gen[1]), 8);
	for (uint32_t i = 0; i < 8; i++) /* claims 16-31 for UNMOVABLE */
		ck_assert_int_eq(mm_alloc_pages(sim, 0, MM_GFP_KERNEL, 0, 2 + i, &gen[2 + i]),
				 16 + i);
	ck_assert_int_eq(mm_alloc_pages(sim, 3, MM_GFP_KERNEL, 0, 10, &gen[10]), 24);
	mm_free_pages(sim, 16, 0, 2, gen[2]);
	/* pageblock 0 reserved, then a0 freed into it and its MOVABLE neighbour */
	set_pageblock_migratetype(sim, 0, MIGRATE_HIGHATOMIC);
	z->nr_reserved_highatomic = 4;
	mm_free_pages(sim, 0, 3, 0, gen[0]);
	mm_free_pages(sim, 8, 3, 1, gen[1]);
	ck_assert_int_eq(z->nr_free_highatomic, 4);
	mm_set_min_free_kbytes(sim, 52); /* min 13, low 16 */
	sim->serial = true;
	sim_record(sim, &vr);

	ck_assert_int_eq(mm_alloc_pages(sim, 0, MM_GFP_KERNEL, 0, 11, &g), 16);
	ck_assert_uint_eq(z->nr_reserved_highatomic, 0);
	ck_assert_int_eq(get_pfnblock_migratetype(sim, 0), MIGRATE_UNMOVABLE);
	/* not merged: two order-2 blocks (0 and 4) and the order-3 block at 8 */
	ck_assert_uint_eq(z->free_area[2].nr_free, 2);
	ck_assert_uint_eq(z->free_area[3].nr_free, 1);
	mm_check_full(sim);
	ck_assert_msg(vr.n == 0, "%s", vr.first);

	/* 4-7 allocated and freed: it merges with 0-3 */
	ck_assert_int_eq(mm_alloc_pages(sim, 2, MM_GFP_KERNEL | MM_GFP_MOVABLE, 0, 12, &g), 4);
	mm_free_pages(sim, 4, 2, 12, g);
	ck_assert_uint_eq(z->free_area[3].nr_free, 2);
	ck_assert_uint_eq(z->free_area[2].nr_free, 0);
	mm_check_full(sim);
	ck_assert_msg(vr.n == 0, "%s", vr.first);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * 6.12's size: a free HIGHATOMIC block larger than a pageblock gives back
 * each pageblock it spans, and no more. 1024 pages in pageblocks of 4,
 * max_order 3, every page allocated in order-3 blocks; pageblocks 0-2
 * reserved (12 pages, under the cap of 1024 / 100 + 4) and the block at
 * 0-7 freed into the first two. An order-0 GFP_KERNEL request finds only
 * highatomic pages, and before OOM the unreserve retypes 0-7: the reserve
 * keeps pageblock 2's 4 pages, which INV-DERIVED-HIGHATOMIC counts too.
 */
START_TEST(test_unreserve_multiblock_buddy)
{
	struct mm_config cfg;
	struct mm_sim *sim;
	struct vrec vr;
	uint32_t gen[128], g;
	long long first = -1;

	cfg_tiny(&cfg, 1, 3, 2);
	cfg_zone(&cfg, 0, ZONE_NORMAL, 0, 1024, 1024);
	sim = sim_new_buddy_only(&cfg);
	mm_set_current_cpu(0);
	struct zone *z = normal(sim);
	unsigned int at0 = 128;
	for (unsigned int i = 0; i < 128; i++) {
		long long pfn =
			mm_alloc_pages(sim, 3, MM_GFP_KERNEL | MM_GFP_MOVABLE, 0, i, &gen[i]);
		ck_assert_int_ge(pfn, 0);
		if (pfn == 0)
			at0 = i;
	}
	ck_assert_uint_lt(at0, 128);
	for (uint64_t pfn = 0; pfn < 12; pfn += 4)
		set_pageblock_migratetype(sim, pfn, MIGRATE_HIGHATOMIC);
	z->nr_reserved_highatomic = 12;
	mm_free_pages(sim, 0, 3, at0, gen[at0]);
	ck_assert_uint_eq(z->free_area[3].nr_free, 1);
	ck_assert_int_eq(z->nr_free_highatomic, 8);
	sim->serial = true;
	sim_record(sim, &vr);

	first = mm_alloc_pages(sim, 0, MM_GFP_KERNEL, 0, 200, &g);
	ck_assert_int_ge(first, 0);
	ck_assert_int_lt(first, 8);
	ck_assert_uint_eq(z->nr_reserved_highatomic, 4);
	ck_assert_int_eq(get_pfnblock_migratetype(sim, 0), MIGRATE_UNMOVABLE);
	ck_assert_int_eq(get_pfnblock_migratetype(sim, 8), MIGRATE_HIGHATOMIC);
	mm_check_full(sim);
	ck_assert_msg(vr.n == 0, "%s", vr.first);
	mm_sim_destroy(sim);
}
END_TEST

/* The buddy check still catches two such blocks left apart without an unreserve. */
START_TEST(test_apart_without_unreserve_fires)
{
	uint32_t gen;
	struct vrec vr;
	struct mm_sim *sim = tiny32();
	struct zone *z = normal(sim);

	ck_assert_int_eq(mm_alloc_pages(sim, 3, MM_GFP_KERNEL | MM_GFP_MOVABLE, 0, 0, &gen), 0);
	set_pageblock_migratetype(sim, 0, MIGRATE_HIGHATOMIC);
	z->nr_reserved_highatomic = 4;
	mm_free_pages(sim, 0, 3, 0, gen); /* 0-3 HIGHATOMIC apart from 4-7 MOVABLE */
	sim_record(sim, &vr);
	mm_check_full(sim);
	ck_assert_uint_eq(vr.n, 0);
	/* retyped without unreserve_highatomic_pageblock()'s mark: the pair should have merged */
	z->nr_reserved_highatomic = 0;
	zone_lock(z);
	__move_freepages_block(z, 0, MIGRATE_HIGHATOMIC, MIGRATE_MOVABLE);
	set_pageblock_migratetype(sim, 0, MIGRATE_MOVABLE);
	zone_unlock(z);
	mm_check_full(sim);
	ck_assert(vrec_has(&vr, "INV-BUDDY-MERGED"));
	mm_sim_destroy(sim);
}
END_TEST

/*
 * INV-WMARK-HIGHATOMIC under threads: on a machine not marked serial the
 * refusal is judged again under zone->lock (check_refusal_highatomic_locked()).
 * The reserve of RESERVED with pageblock 0 freed: 590 pages free, 78 of
 * them highatomic, the low mark 80. With the variant (before c928807f6f6b)
 * the whole 512-page reserve is unusable and an order-0 GFP_KERNEL request
 * is refused with 512 usable pages above the mark: the locked check must
 * report it. Without the variant the request passes and nothing is reported.
 */
static const struct {
	const char *variant;
	bool reported;
} locked_rows[] = {
	{"highatomic-unusable-reserved", true},
	{NULL, false},
};

START_TEST(test_refusal_judged_under_lock)
{
	struct mm_exec *ex = mm_exec_create();
	struct mm_exec_opts o;
	struct vrec vr;
	long failed;
	uint32_t gen;

	mm_exec_opts_default(&o);
	if (locked_rows[_i].variant)
		o.variant = mm_variant_lookup(locked_rows[_i].variant);
	ck_assert_int_eq(exec_text(ex, RESERVED "cpu0 free a0\ncheck\n", &o, &vr, &failed), 0);
	struct mm_sim *sim = mm_exec_sim(ex);
	struct zone *z = normal(sim);
	ck_assert_uint_eq(z->nr_reserved_highatomic, 512);
	ck_assert_int_eq(z->nr_free_highatomic, 78);
	sim->serial = false; /* the threaded form of the check */
	sim_record(sim, &vr);
	mm_set_current_cpu(0);
	ck_assert_int_ge(mm_alloc_pages(sim, 0, MM_GFP_KERNEL, 0, 6, &gen), 0);
	ck_assert_msg(vrec_has(&vr, "INV-WMARK-HIGHATOMIC") == locked_rows[_i].reported,
		      "variant %s: %u reports, first: %s",
		      locked_rows[_i].variant ? locked_rows[_i].variant : "none", vr.n, vr.first);
	mm_exec_destroy(ex);
}
END_TEST

/*
 * The refusal check at its one-page margin, under the same variant. Block
 * 0 taken in pieces (orders 8 down to 0), block 1 reserved as RESERVED
 * does it, then all of block 1 freed but the ATOMIC pair (510 free
 * highatomic pages) and of block 0 the order-6, order-4 and one order-0
 * piece: 81 usable pages, 591 free. The variant's order-0 GFP_KERNEL
 * request sees 591 - 512 = 79 <= low 80 and is refused with 81 usable
 * pages, one above the mark: reported, expected 80, actual 81, serial and
 * under the lock. Without the order-0 piece (80 usable) the refusal is
 * right and nothing is reported.
 */
#define MARGIN                                                                                     \
	"config nodes=1 cpus=2 max_order=10 pageblock_order=9 min_free_kbytes=0 "                  \
	"watermark_scale_factor=10 high_fraction=0\n"                                              \
	"zone 0 Normal start=0 spanned=1024 present=1024 managed=1024\n"                           \
	"cpu0 pcp_disable node=0 zone=Normal\n"                                                    \
	"cpu0 alloc a0 order=8 gfp=MOVABLE|DIRECT_RECLAIM|KSWAPD_RECLAIM\n"                        \
	"cpu0 alloc a1 order=7 gfp=MOVABLE|DIRECT_RECLAIM|KSWAPD_RECLAIM\n"                        \
	"cpu0 alloc a2 order=6 gfp=MOVABLE|DIRECT_RECLAIM|KSWAPD_RECLAIM\n"                        \
	"cpu0 alloc a3 order=5 gfp=MOVABLE|DIRECT_RECLAIM|KSWAPD_RECLAIM\n"                        \
	"cpu0 alloc a4 order=4 gfp=MOVABLE|DIRECT_RECLAIM|KSWAPD_RECLAIM\n"                        \
	"cpu0 alloc a5 order=3 gfp=MOVABLE|DIRECT_RECLAIM|KSWAPD_RECLAIM\n"                        \
	"cpu0 alloc a6 order=2 gfp=MOVABLE|DIRECT_RECLAIM|KSWAPD_RECLAIM\n"                        \
	"cpu0 alloc a7 order=1 gfp=MOVABLE|DIRECT_RECLAIM|KSWAPD_RECLAIM\n"                        \
	"cpu0 alloc a8 order=0 gfp=MOVABLE|DIRECT_RECLAIM|KSWAPD_RECLAIM\n"                        \
	"cpu0 alloc a9 order=0 gfp=MOVABLE|DIRECT_RECLAIM|KSWAPD_RECLAIM\n"                        \
	"cpu0 alloc a10 order=8 gfp=MOVABLE|DIRECT_RECLAIM|KSWAPD_RECLAIM\n"                       \
	"cpu0 alloc a11 order=7 gfp=MOVABLE|DIRECT_RECLAIM|KSWAPD_RECLAIM\n"                       \
	"cpu0 alloc a12 order=5 gfp=MOVABLE|DIRECT_RECLAIM|KSWAPD_RECLAIM\n"                       \
	"cpu0 alloc a13 order=4 gfp=MOVABLE|DIRECT_RECLAIM|KSWAPD_RECLAIM\n"                       \
	"cpu0 alloc a14 order=1 gfp=ATOMIC\n"                                                      \
	"cpu0 free a10\ncpu0 free a11\ncpu0 free a12\ncpu0 free a13\n"                             \
	"cpu0 free a2\ncpu0 free a4\n"

static const struct {
	bool last_page; /* the order-0 piece freed: 81 usable */
	bool serial;
	bool reported;
} margin_rows[] = {
	{true, true, true},
	{true, false, true},
	{false, true, false},
	{false, false, false},
};

START_TEST(test_refusal_at_one_page_margin)
{
	struct mm_exec *ex = mm_exec_create();
	struct mm_exec_opts o;
	struct vrec vr;
	long failed;
	uint32_t gen;
	long usable = margin_rows[_i].last_page ? 81 : 80;

	mm_exec_opts_default(&o);
	o.variant = mm_variant_lookup("highatomic-unusable-reserved");
	ck_assert_int_ge(o.variant, 0);
	ck_assert_int_eq(exec_text(ex,
				   margin_rows[_i].last_page ? MARGIN
					   "cpu0 free a8\ncpu0 vmstat_fold\n"
							     : MARGIN "cpu0 vmstat_fold\n",
				   &o, &vr, &failed),
			 0);
	struct mm_sim *sim = mm_exec_sim(ex);
	struct zone *z = normal(sim);
	ck_assert_uint_eq(z->nr_reserved_highatomic, 512);
	ck_assert_int_eq(z->nr_free_highatomic, 510);
	ck_assert_int_eq(z->vm_stat_exact[NR_FREE_PAGES], 510 + usable);
	sim->serial = margin_rows[_i].serial;
	sim_record(sim, &vr);
	mm_set_current_cpu(0);
	ck_assert_int_ge(mm_alloc_pages(sim, 0, MM_GFP_KERNEL, 0, 15, &gen),
			 0); /* at min, after the refusal at low */
	ck_assert_msg(vrec_has(&vr, "INV-WMARK-HIGHATOMIC") == margin_rows[_i].reported,
		      "%ld usable, %s: %u reports, first: %s", usable,
		      margin_rows[_i].serial ? "serial" : "locked", vr.n, vr.first);
	if (margin_rows[_i].reported)
		ck_assert_msg(strstr(vr.first, "expected=80 actual=81"), "%s", vr.first);
	mm_exec_destroy(ex);
}
END_TEST

/*
 * The two forms of the refusal check on RESERVED (an order-0 GFP_KERNEL
 * request refused at low, every free page highatomic): a machine marked
 * serial judges the state it read, without a lock; one that is not takes
 * zone->lock once more per refusal, to judge it again where it holds
 * still. The same request on twin machines: the threaded one takes one
 * zone->lock per refusal more than the serial one, and neither reports.
 */
static unsigned long long refusal_locks(bool serial, unsigned long long *refused)
{
	struct mm_exec *ex = mm_exec_create();
	struct mm_stats before, after;
	struct vrec vr;
	uint32_t gen;
	struct mm_sim *sim = reserved_machine(ex, &vr);

	sim->serial = serial;
	mm_sim_stats(sim, &before);
	ck_assert_int_ge(mm_alloc_pages(sim, 0, MM_GFP_KERNEL, 0, 6, &gen), 0);
	mm_sim_stats(sim, &after);
	ck_assert_msg(vr.n == 0, "%s", vr.first);
	*refused = after.wmark_refused - before.wmark_refused;
	mm_exec_destroy(ex);
	return after.zone_lock_acquisitions - before.zone_lock_acquisitions;
}

START_TEST(test_refusal_check_locks_only_threaded)
{
	unsigned long long refused_serial, refused_threaded;
	unsigned long long serial = refusal_locks(true, &refused_serial);
	unsigned long long threaded = refusal_locks(false, &refused_threaded);

	ck_assert_uint_eq(refused_serial, refused_threaded);
	ck_assert_uint_ge(refused_serial, 1);
	ck_assert_msg(threaded == serial + refused_serial,
		      "%llu refusals: zone->lock taken %llu times serial, %llu threaded",
		      refused_serial, serial, threaded);
}
END_TEST

/*
 * The locked recheck judges only a refusal that still stands under
 * zone->lock. On RESERVED (78 pages free, all highatomic: none usable, low
 * 80) an order-0 GFP_KERNEL request is refused; before it takes the lock
 * for the recheck, another CPU takes it first and frees pageblock 0 (512
 * pages, folded at once: more than any threshold). Under the lock the
 * request then passes the mark: the refusal was a race, not the spurious
 * OOM of c928807f6f6b, and nothing may be reported, although 590 - 78 =
 * 512 usable pages are far above the mark (80, lowmem reserve 0), which a
 * check judging a passing recheck would report.
 */
struct cpu1_first {
	struct zone *zone;
	void (*frees)(struct cpu1_first *r); /* what CPU 1 does with the lock */
	uint64_t pfn;			     /* frees_pageblock(): its block and stamp */
	uint32_t owner, gen;
	uint32_t gens[512]; /* frees_singles(): the generation of each pfn */
	bool armed, fired;
};

/*
 * The jitter point right after zone->lock is taken, the first one after
 * arming: CPU 1 takes the lock first and frees.
 */
static void cpu1_frees_first(void *arg)
{
	struct cpu1_first *r = arg;

	if (!r->armed || r->fired || !spin_is_held_by_me(&r->zone->lock))
		return;
	r->fired = true;
	zone_unlock(r->zone);
	mm_set_current_cpu(1);
	r->frees(r);
	mm_set_current_cpu(0);
	zone_lock(r->zone);
}

static void frees_pageblock(struct cpu1_first *r)
{
	mm_free_pages(r->zone->sim, r->pfn, 9, r->owner, r->gen);
}

START_TEST(test_refusal_raced_by_free_not_judged)
{
	struct mm_exec *ex = mm_exec_create();
	struct mm_stats before, after;
	struct vrec vr;
	uint32_t gen;
	struct mm_sim *sim = reserved_machine(ex, &vr);
	struct zone *z = normal(sim);

	ck_assert_int_eq(z->vm_stat_exact[NR_FREE_PAGES], 78);
	ck_assert_int_eq(sim->mem_map[0].state, PG_ALLOC); /* a0, pageblock 0 */
	ck_assert_uint_eq(sim->mem_map[0].order, 9);
	struct cpu1_first f = {.zone = z,
			       .frees = frees_pageblock,
			       .pfn = 0,
			       .owner = sim->mem_map[0].stamp.owner,
			       .gen = sim->mem_map[0].stamp.gen,
			       .armed = true};
	sim->serial = false; /* the threaded form of the check */
	mm_set_jitter(sim, cpu1_frees_first, &f);
	mm_sim_stats(sim, &before);
	ck_assert_int_ge(mm_alloc_pages(sim, 0, MM_GFP_KERNEL, 0, 6, &gen), 0);
	mm_sim_stats(sim, &after);
	mm_set_jitter(sim, NULL, NULL);
	/* refused before the free: once freed, the zone passes every mark */
	ck_assert(f.fired);
	ck_assert_uint_gt(after.wmark_refused, before.wmark_refused);
	ck_assert_msg(!vrec_has(&vr, "INV-WMARK-HIGHATOMIC"), "%u reports, first: %s", vr.n,
		      vr.first);
	mm_exec_destroy(ex);
}
END_TEST

/*
 * The locked recheck is an order-0 check, as the refusal it judges. On
 * RESERVED with pcp lists off (every free straight to the buddy), the
 * movable pageblock 0 is taken as 512 single pages (ALLOC_NO_WATERMARKS:
 * the zone sits below min); the zone again has 78 free pages, all
 * highatomic. An order-0 GFP_KERNEL request is refused, and before its
 * recheck CPU 1 frees 100 of the single pages, every other pfn, so none
 * can merge. Under the lock the 100 usable pages (the estimate within a
 * few of them) pass low (80) at order 0, and nothing may be reported; at
 * order 1 the zone has no free pair outside the reserve and fails, which
 * a recheck at the wrong order would report as a refusal with usable
 * pages above the mark.
 */
static void frees_singles(struct cpu1_first *r)
{
	for (uint64_t pfn = 0; pfn < 200; pfn += 2)
		mm_free_pages(r->zone->sim, pfn, 0, 7, r->gens[pfn]);
}

START_TEST(test_refusal_recheck_is_order0)
{
	struct mm_exec *ex = mm_exec_create();
	struct vrec vr;
	uint32_t gen;
	struct mm_sim *sim = reserved_machine(ex, &vr);
	struct zone *z = normal(sim);
	struct cpu1_first f = {.zone = z, .frees = frees_singles};
	struct mm_stats before, after;

	mm_zone_pcp_disable(sim, 0, ZONE_NORMAL);
	mm_free_pages(sim, 0, 9, sim->mem_map[0].stamp.owner, sim->mem_map[0].stamp.gen);
	for (int i = 0; i < 512; i++) {
		long long pfn =
			mm_alloc_pages(sim, 0, MM_GFP_MEMALLOC | MM_GFP_MOVABLE, 0, 7, &gen);
		ck_assert_msg(pfn >= 0 && pfn < 512, "page %d at %lld", i, pfn);
		f.gens[pfn] = gen;
	}
	ck_assert_int_eq(z->vm_stat_exact[NR_FREE_PAGES], 78);
	ck_assert_msg(vr.n == 0, "%s", vr.first);
	sim->serial = false; /* the threaded form of the check */
	f.armed = true;
	mm_set_jitter(sim, cpu1_frees_first, &f);
	mm_sim_stats(sim, &before);
	mm_alloc_pages(sim, 0, MM_GFP_KERNEL, 0, 6, &gen);
	mm_sim_stats(sim, &after);
	mm_set_jitter(sim, NULL, NULL);
	/* refused before the frees, so the recheck ran */
	ck_assert(f.fired);
	ck_assert_uint_gt(after.wmark_refused, before.wmark_refused);
	ck_assert_msg(!vrec_has(&vr, "INV-WMARK-HIGHATOMIC"), "%u reports, first: %s", vr.n,
		      vr.first);
	mm_exec_destroy(ex);
}
END_TEST

/*
 * should_reclaim_retry()'s last resort, by order: on RESERVED (78 pages
 * free, all in the highatomic pageblock 1, as blocks of 2, 4, 8 and 64) a
 * GFP_KERNEL request of any order fails every mark, reclaim making no
 * progress. Up to PAGE_ALLOC_COSTLY_ORDER (3) the slow path unreserves the
 * block before OOM (unreserve_highatomic_pageblock(ac, true)) and is then
 * served from it; a costly order without __GFP_RETRY_MAYFAIL gives up
 * first (__alloc_pages_slowpath()'s "costly_order && !RETRY_MAYFAIL"), so
 * the reserve stays and the request fails.
 */
START_TEST(test_unreserve_by_order)
{
	unsigned int order = (unsigned int)_i;
	bool costly = order > 3; /* PAGE_ALLOC_COSTLY_ORDER, written out */
	struct mm_exec *ex = mm_exec_create();
	struct vrec vr;
	uint32_t gen;
	struct mm_sim *sim = reserved_machine(ex, &vr);
	struct zone *z = normal(sim);

	long long pfn = mm_alloc_pages(sim, order, MM_GFP_KERNEL, 0, 6, &gen);
	ck_assert_msg((pfn >= 0) == !costly && (z->nr_reserved_highatomic == 512) == costly,
		      "order %u: pfn %lld, reserve %lu; want %s", order, pfn,
		      z->nr_reserved_highatomic,
		      costly ? "a failure, the reserve kept" : "a page, the reserve gone");
	ck_assert_msg(vr.n == 0, "%s", vr.first);
	mm_exec_destroy(ex);
}
END_TEST

/*
 * unreserve_highatomic_pageblock() looks for a free highatomic block from
 * order 0 up. Here the reserve's last free page is a single page: min is
 * 0 (min_free_kbytes 1), low 102 (watermark_scale_factor 1000), the pcp
 * lists are off. Pageblock 1 is filled down to 80 free pages, an order-0
 * page is taken (its buddy stays free, order 0), and an ATOMIC order-1
 * request below low reserves the block. ATOMIC requests then take every
 * other free block of it (orders 5, 4, 3, 3, 2, 2, 1, 1), so one order-0
 * page is left, unusable to anything but a highatomic request. A
 * GFP_KERNEL order-0 request fails the mark (no usable page), makes no
 * reclaim progress, and before OOM unreserves the block through that
 * page (the block takes the request's type, UNMOVABLE); then the page is
 * usable and the retry is served with it.
 */
START_TEST(test_unreserve_finds_an_order0_page)
{
	static const char text[] =
		"config nodes=1 cpus=1 max_order=10 pageblock_order=9 min_free_kbytes=1 "
		"watermark_scale_factor=1000 high_fraction=0\n"
		"zone 0 Normal start=0 spanned=1024 present=1024 managed=1024\n"
		"cpu0 pcp_disable node=0 zone=Normal\n"
		"cpu0 alloc a0 order=9 gfp=MOVABLE|DIRECT_RECLAIM|KSWAPD_RECLAIM\n"
		"cpu0 alloc a1 order=8 gfp=MOVABLE|DIRECT_RECLAIM|KSWAPD_RECLAIM\n"
		"cpu0 alloc a2 order=7 gfp=MOVABLE|DIRECT_RECLAIM|KSWAPD_RECLAIM\n"
		"cpu0 alloc a3 order=5 gfp=MOVABLE|DIRECT_RECLAIM|KSWAPD_RECLAIM\n"
		"cpu0 alloc a4 order=4 gfp=MOVABLE|DIRECT_RECLAIM|KSWAPD_RECLAIM\n"
		"cpu0 alloc a5 order=0 gfp=MOVABLE|DIRECT_RECLAIM|KSWAPD_RECLAIM\n"
		"cpu0 alloc a6 order=1 gfp=ATOMIC\n"
		"cpu0 alloc a7 order=5 gfp=ATOMIC\n"
		"cpu0 alloc a8 order=4 gfp=ATOMIC\n"
		"cpu0 alloc a9 order=3 gfp=ATOMIC\n"
		"cpu0 alloc a10 order=3 gfp=ATOMIC\n"
		"cpu0 alloc a11 order=2 gfp=ATOMIC\n"
		"cpu0 alloc a12 order=2 gfp=ATOMIC\n"
		"cpu0 alloc a13 order=1 gfp=ATOMIC\n"
		"cpu0 alloc a14 order=1 gfp=ATOMIC\n"
		"check\n";
	struct mm_exec *ex = mm_exec_create();
	struct vrec vr;
	uint32_t gen;
	struct mm_sim *sim = clean_machine(ex, text, &vr);
	struct zone *z = normal(sim);
	ck_assert_uint_eq(z->nr_reserved_highatomic, 512);
	ck_assert_int_eq(z->nr_free_highatomic, 1);
	ck_assert_int_eq(z->vm_stat_exact[NR_FREE_PAGES], 1);
	uint32_t last = z->free_area[0].head[MIGRATE_HIGHATOMIC];
	ck_assert_uint_ne(last, PFN_NIL);
	ck_assert_uint_eq(last >> 9, 1);

	ck_assert_int_eq(mm_alloc_pages(sim, 0, MM_GFP_KERNEL, 0, 15, &gen), last);
	ck_assert_uint_eq(z->nr_reserved_highatomic, 0);
	ck_assert_int_eq(sim->pageblock_flags[1] & PB_MIGRATETYPE_MASK, MIGRATE_UNMOVABLE);
	ck_assert_msg(vr.n == 0, "%s", vr.first);
	mm_exec_destroy(ex);
}
END_TEST

/*
 * unreserve_highatomic_pageblock() walks the zonelist as the request may
 * use it: a zone above the request's highest zone is passed over. DMA32
 * and Normal taken down to 56 free pages each, then an ATOMIC order-1
 * request reserves Normal's pageblock 3; then GFP_DMA32 requests until
 * ZONE_DMA32 is out: each failure makes no
 * reclaim progress and unreserves before OOM, and finds nothing it may
 * take, so Normal's reserve stays whole. A walk that took Normal's block
 * would retype a pageblock no retry could use.
 */
START_TEST(test_unreserve_skips_zones_above_the_request)
{
	static const char text[] =
		"config nodes=1 cpus=1 max_order=10 pageblock_order=9 min_free_kbytes=0 "
		"watermark_scale_factor=10 high_fraction=0\n"
		"zone 0 DMA32 start=0 spanned=1024 present=1024 managed=1024\n"
		"zone 0 Normal start=1024 spanned=1024 present=1024 managed=1024\n"
		"cpu0 pcp_disable node=0 zone=DMA32\n"
		"cpu0 pcp_disable node=0 zone=Normal\n"
		"cpu0 alloc a0 order=9 gfp=DMA32|DIRECT_RECLAIM|KSWAPD_RECLAIM\n"
		"cpu0 alloc a1 order=8 gfp=DMA32|DIRECT_RECLAIM|KSWAPD_RECLAIM\n"
		"cpu0 alloc a2 order=7 gfp=DMA32|DIRECT_RECLAIM|KSWAPD_RECLAIM\n"
		"cpu0 alloc a3 order=5 gfp=DMA32|DIRECT_RECLAIM|KSWAPD_RECLAIM\n"
		"cpu0 alloc a4 order=4 gfp=DMA32|DIRECT_RECLAIM|KSWAPD_RECLAIM\n"
		"cpu0 alloc a5 order=4 gfp=DMA32|DIRECT_RECLAIM|KSWAPD_RECLAIM\n"
		"cpu0 alloc a6 order=3 gfp=DMA32|DIRECT_RECLAIM|KSWAPD_RECLAIM\n"
		"cpu0 alloc a7 order=9 gfp=MOVABLE|DIRECT_RECLAIM|KSWAPD_RECLAIM\n"
		"cpu0 alloc a8 order=8 gfp=MOVABLE|DIRECT_RECLAIM|KSWAPD_RECLAIM\n"
		"cpu0 alloc a9 order=7 gfp=MOVABLE|DIRECT_RECLAIM|KSWAPD_RECLAIM\n"
		"cpu0 alloc a10 order=5 gfp=MOVABLE|DIRECT_RECLAIM|KSWAPD_RECLAIM\n"
		"cpu0 alloc a11 order=4 gfp=MOVABLE|DIRECT_RECLAIM|KSWAPD_RECLAIM\n"
		"cpu0 alloc a12 order=4 gfp=MOVABLE|DIRECT_RECLAIM|KSWAPD_RECLAIM\n"
		"cpu0 alloc a13 order=3 gfp=MOVABLE|DIRECT_RECLAIM|KSWAPD_RECLAIM\n"
		"cpu0 alloc a14 order=1 gfp=ATOMIC\n"
		"check\n";
	struct mm_exec *ex = mm_exec_create();
	struct vrec vr;
	uint32_t gen;
	struct mm_sim *sim = clean_machine(ex, text, &vr);
	struct zone *z = normal(sim);
	ck_assert_uint_eq(z->nr_reserved_highatomic, 512);
	ck_assert_int_eq(sim->pageblock_flags[3] & PB_MIGRATETYPE_MASK, MIGRATE_HIGHATOMIC);

	int served = 0;
	while (served <= 1024 &&
	       mm_alloc_pages(sim, 0, MM_GFP_DMA32 | MM_GFP_KERNEL, 0, 16, &gen) >= 0)
		served++;
	ck_assert_int_gt(served, 0);
	ck_assert_int_le(served, 1024);
	ck_assert_uint_eq(z->nr_reserved_highatomic, 512);
	ck_assert_int_eq(sim->pageblock_flags[3] & PB_MIGRATETYPE_MASK, MIGRATE_HIGHATOMIC);
	ck_assert_msg(vr.n == 0, "%s", vr.first);
	mm_exec_destroy(ex);
}
END_TEST

/*
 * zone_watermark_fast()'s boost exemption, where the admission is judged:
 * an order-0 __GFP_HIGH request at min that fails the boosted mark is
 * checked again against min alone. The buddy path checks admissions, and
 * an order-0 request reaches it when its pcp refill finds nothing: here
 * every free page is highatomic, which an ATOMIC request
 * (ALLOC_MIN_RESERVE | ALLOC_NON_BLOCK) may take there. With a boost of
 * 200 the boosted min of 264 leaves a floor of 99 (264 - 132, then
 * - 33), which 78 free pages fail; min alone leaves 24, which they pass.
 * The request is served, and the admission's floor is min's: no report.
 * A floor taken from the boosted mark would report 77 against 99 (less
 * the vmstat drift bound).
 */
START_TEST(test_atomic_order0_admitted_past_the_boost)
{
	struct mm_exec *ex = mm_exec_create();
	struct mm_exec_opts o;
	struct vrec vr;
	uint32_t gen;
	long failed;

	mm_exec_opts_default(&o);
	ck_assert_int_eq(exec_text(ex, RESERVED, &o, &vr, &failed), 0);
	struct mm_sim *sim = mm_exec_sim(ex);
	struct zone *z = normal(sim);
	ck_assert_int_eq(z->nr_free_highatomic, 78);
	z->watermark_boost = 200;
	sim_record(sim, &vr);
	mm_set_current_cpu(0);
	ck_assert_int_ge(mm_alloc_pages(sim, 0, MM_GFP_ATOMIC, 0, 6, &gen), 0);
	ck_assert_int_eq(z->nr_free_highatomic, 77);
	ck_assert_msg(vr.n == 0, "%u reports: %s", vr.n, vr.first);
	mm_exec_destroy(ex);
}
END_TEST

static Suite *highatomic_suite(void)
{
	Suite *s = suite_create("highatomic");
	TCase *tc = tcase_create("life");

	tcase_add_test(tc, test_reserve_counts_free_highatomic);
	tcase_add_test(tc, test_unreserve_before_oom);
	tcase_add_test(tc, test_unreserve_retries_end_on_corrupt_lists);
	tcase_add_test(tc, test_costly_keeps_reserve);
	tcase_add_test(tc, test_unreserve_leaves_buddies_apart);
	tcase_add_test(tc, test_unreserve_multiblock_buddy);
	tcase_add_test(tc, test_apart_without_unreserve_fires);
	tcase_add_loop_test(tc, test_refusal_judged_under_lock, 0, (int)ARRAY_SIZE(locked_rows));
	tcase_add_test(tc, test_refusal_raced_by_free_not_judged);
	tcase_add_test(tc, test_refusal_recheck_is_order0);
	tcase_add_test(tc, test_refusal_check_locks_only_threaded);
	tcase_add_loop_test(tc, test_refusal_at_one_page_margin, 0, (int)ARRAY_SIZE(margin_rows));
	tcase_add_loop_test(tc, test_unreserve_by_order, 0, 6);
	tcase_add_test(tc, test_unreserve_finds_an_order0_page);
	tcase_add_test(tc, test_unreserve_skips_zones_above_the_request);
	tcase_add_test(tc, test_atomic_order0_admitted_past_the_boost);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(highatomic_suite());
}
