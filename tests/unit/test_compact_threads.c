/* SPDX-License-Identifier: MIT */
/*
 * test_compact_threads.c - compaction's checks as they judge under threads
 * (docs/compaction.md, "Under threads"): each reports its ID when what it
 * checks is wrong, and keeps quiet only when another CPU can have made it
 * so (a reset, another pass, another thread's skip bit). Each reporting
 * case fails with its check removed; each quiet case fails with its
 * excuse removed.
 */
#include "common.h"
#include "internal.h"

#include <pthread.h>

/* 1 node, 2 CPUs, a Normal zone of 256 pages in pageblocks of 32; not serial, as under threads. */
static struct mm_sim *threads_sim(struct vrec *vr)
{
	struct mm_config cfg;

	cfg_tiny(&cfg, 2, 6, 5);
	cfg_zone(&cfg, 0, ZONE_NORMAL, 0, 256, 256);
	struct mm_sim *sim = sim_new(&cfg);
	sim->serial = false;
	sim_record(sim, vr);
	return sim;
}

static struct zone *normal(struct mm_sim *sim)
{
	return &sim->node_data[0]->node_zones[ZONE_NORMAL];
}

/* A pass's control as compact_zone() sets it up: this thread's state, a whole-zone start. */
static struct compact_control pass(struct zone *zone)
{
	struct compact_control cc = {
		.zone = zone,
		.order = 5,
		.whole_zone = true,
		.migrate_pfn = zone->zone_start_pfn,
		.free_pfn = 224,
		.direct_compaction = true,
		.fast_found_pfn = COMPACT_NO_PFN,
	};

	cc.cs = compact_state_current(zone->sim);
	ck_assert_ptr_nonnull(cc.cs);
	cc.resets_at_start = atomic_load(&zone->compact_resets);
	compact_check_pass_begin(&cc);
	return cc;
}

/*
 * Meanwhile, kswapd flushes the skip bits a full compaction left to flush
 * (reset_isolation_suitable()): the real reset, so the checker's excuse
 * rests on the reset being counted where it runs.
 */
static void kswapd_flushes_bits(struct zone *zone)
{
	WRITE_ONCE(zone->compact_blockskip_flush, true);
	__reset_isolation_suitable(zone);
	ck_assert(!READ_ONCE(zone->compact_blockskip_flush));
}

/*
 * A thread's own lists are not max_pfn long: a round isolates sources from
 * one pageblock at most (COMPACT_CLUSTER_MAX of them), and the free
 * scanners stop once the targets cover them, having taken at most one
 * free block of max_order too many. Each list must hold a pageblock plus
 * a max_order block: 32 + 64 here.
 */
START_TEST(test_thread_lists_hold_a_block_of_each)
{
	struct vrec vr;
	struct mm_sim *sim = threads_sim(&vr);
	struct compact_state *cs = compact_state_current(sim);

	ck_assert_ptr_nonnull(cs);
	ck_assert_ptr_ne(cs, sim->compact);
	ck_assert_uint_ge(cs->pfn_cap,
			  (UINT64_C(1) << sim->pageblock_order) + (UINT64_C(1) << sim->max_order));
	mm_sim_destroy(sim);
}
END_TEST

/* The stamp the LRU recorded is the truth: a migrated page holding another gen is reported. */
START_TEST(test_migrate_stamp_from_lru_record)
{
	struct vrec vr;
	struct mm_sim *sim = threads_sim(&vr);
	uint32_t gen;
	long long pfn = mm_alloc_pages(sim, 0, MM_GFP_HIGHUSER_MOVABLE, 0, 7, &gen);

	ck_assert_int_ge(pfn, 0);
	compact_check_migrated(sim, (uint64_t)pfn, -1, 7, gen);
	ck_assert_uint_eq(vr.n, 0);
	compact_check_migrated(sim, (uint64_t)pfn, -1, 7, gen + 1);
	ck_assert(vrec_has(&vr, "INV-COMPACT-MIGRATE-STAMP"));
	mm_sim_destroy(sim);
}
END_TEST

/* The fifth entry into a block in one pass is RESCAN, unless a reset ran during the pass. */
START_TEST(test_rescan_unless_reset)
{
	struct vrec vr;
	struct mm_sim *sim = threads_sim(&vr);
	struct zone *zone = normal(sim);
	struct compact_control cc = pass(zone);

	for (int i = 0; i < 4; i++)
		ck_assert(compact_check_migrate_visit(&cc, 64));
	ck_assert(!compact_check_migrate_visit(&cc, 64));
	ck_assert(vrec_has(&vr, "INV-COMPACT-RESCAN"));

	vrec_init(&vr);
	cc = pass(zone);
	for (int i = 0; i < 4; i++)
		ck_assert(compact_check_migrate_visit(&cc, 64));
	kswapd_flushes_bits(zone);
	ck_assert(!compact_check_migrate_visit(&cc, 64)); /* the pass stops, unjudged */
	ck_assert_uint_eq(vr.n, 0);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * The round backstop (compact_check_round()) likewise: a pass past its
 * bound is RESCAN, unless a reset ran during the pass, or the pass is the
 * skip-hint shadow's rerun (blind to the bits): both just stop.
 */
static unsigned int rounds_until_stop(struct compact_control *cc)
{
	unsigned int rounds = 0;

	while (rounds < 100000 && compact_check_round(cc))
		rounds++;
	return rounds;
}

START_TEST(test_round_backstop_unless_reset_or_shadow)
{
	struct vrec vr;
	struct mm_sim *sim = threads_sim(&vr);
	struct zone *zone = normal(sim);
	struct compact_control cc = pass(zone);

	ck_assert_uint_lt(rounds_until_stop(&cc), 100000);
	ck_assert(vrec_has(&vr, "INV-COMPACT-RESCAN"));

	vrec_init(&vr);
	cc = pass(zone);
	kswapd_flushes_bits(zone);
	ck_assert_uint_lt(rounds_until_stop(&cc), 100000); /* the pass stops, unjudged */
	ck_assert_uint_eq(vr.n, 0);

	cc = pass(zone);
	cc.cs->in_shadow = true;
	ck_assert_uint_lt(rounds_until_stop(&cc), 100000);
	cc.cs->in_shadow = false;
	ck_assert_uint_eq(vr.n, 0);
	mm_sim_destroy(sim);
}
END_TEST

struct setter {
	struct mm_sim *sim;
	uint64_t pfn;
};

static void *set_skip_elsewhere(void *arg)
{
	struct setter *s = arg;

	set_pageblock_skip(s->sim, s->pfn);
	return NULL;
}

/*
 * A fast-found block left unscanned is reported when only this thread set
 * skip bits since fast_find returned it (its own marking, the bug), not
 * when another thread set one (perhaps the block's: the kernel's race).
 */
START_TEST(test_fastfind_unscanned_unless_others_set)
{
	struct vrec vr;
	struct mm_sim *sim = threads_sim(&vr);
	struct zone *zone = normal(sim);
	struct compact_control cc = pass(zone);
	pthread_t tid;

	compact_check_fast_returned(&cc);
	set_pageblock_skip(sim, 96); /* as fast_find_migrateblock() marks it in the variant */
	compact_check_fast_found(&cc, 96, 0);
	ck_assert(vrec_has(&vr, "INV-COMPACT-FASTFIND-UNSCANNED"));

	vrec_init(&vr);
	clear_pageblock_skip(sim, 96);
	cc = pass(zone);
	compact_check_fast_returned(&cc);
	ck_assert_int_eq(pthread_create(&tid, NULL, set_skip_elsewhere,
					&(struct setter){.sim = sim, .pfn = 96}),
			 0);
	pthread_join(tid, NULL);
	compact_check_fast_found(&cc, 96, 0);
	ck_assert_uint_eq(vr.n, 0);
	mm_sim_destroy(sim);
}
END_TEST

/* CACHED-PFN judges only when no other pass started and no reset ran since the reset. */
START_TEST(test_cached_pfn_when_quiet)
{
	struct vrec vr;
	struct mm_sim *sim = threads_sim(&vr);
	struct zone *zone = normal(sim);
	struct compact_control cc = {.zone = zone};
	unsigned int mark;

	atomic_store(&zone->compact_in_flight, 1); /* this pass alone */
	mark = compact_quiet_begin(zone);
	reset_cached_positions(zone);
	zone->compact_cached_migrate_pfn[1] = 32; /* a reset that kept the sync scanner's pfn */
	compact_check_scanners_met(&cc, mark);
	ck_assert(vrec_has(&vr, "INV-COMPACT-CACHED-PFN"));

	vrec_init(&vr);
	mark = compact_quiet_begin(zone);
	atomic_fetch_add(&zone->compact_pass_starts, 1); /* another pass moved them since */
	compact_check_scanners_met(&cc, mark);
	ck_assert_uint_eq(vr.n, 0);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * DEFER: serial, considered within 1 << shift; under threads the kernel's
 * lockless updates may leave it above that for a while, never above
 * 1 << COMPACT_MAX_DEFER_SHIFT.
 */
START_TEST(test_defer_bounds_under_threads)
{
	struct vrec vr;
	struct mm_sim *sim = threads_sim(&vr);
	struct zone *zone = normal(sim);

	zone->compact_defer_shift = 0;
	zone->compact_considered = 1u << COMPACT_MAX_DEFER_SHIFT;
	compact_check_defer(zone);
	ck_assert_uint_eq(vr.n, 0);
	zone->compact_considered = (1u << COMPACT_MAX_DEFER_SHIFT) + 1;
	compact_check_defer(zone);
	ck_assert(vrec_has(&vr, "INV-COMPACT-DEFER"));

	vrec_init(&vr);
	sim->serial = true;
	zone->compact_considered = 2;
	compact_check_defer(zone);
	ck_assert(vrec_has(&vr, "INV-COMPACT-DEFER"));
	mm_sim_destroy(sim);
}
END_TEST

struct putbacks {
	unsigned int n;
	uint64_t old_pfn[8], new_pfn[8];
};

static void record_putback(void *arg, uint64_t old_pfn, uint64_t new_pfn)
{
	struct putbacks *p = arg;

	if (p->n < 8) {
		p->old_pfn[p->n] = old_pfn;
		p->new_pfn[p->n] = new_pfn;
	}
	p->n++;
}

/* A list of three sources, as isolate_migratepages_block() builds it: each noted isolated. */
static void list_three_sources(struct compact_control *cc, uint32_t *list)
{
	cc->migratepages = list;
	for (unsigned int i = 0; i < 3; i++) {
		cc->nr_migratepages++;
		compact_check_source_isolated(cc);
	}
}

/*
 * migrate_pages() with no free page to migrate to: -ENOMEM, and under
 * threads every isolated source goes back to the LRU once, none more (the
 * slot past the list holds a pfn no page was isolated from).
 */
START_TEST(test_enomem_puts_back_each_source_once)
{
	struct vrec vr;
	struct mm_sim *sim = threads_sim(&vr);
	struct putbacks pb = {0};
	struct mm_migrate_src src = {.putback = record_putback, .arg = &pb};
	uint32_t isolated[4] = {0, 1, 2, 0xdead}, gen;

	while (mm_alloc_pages(sim, 0, MM_GFP_HIGHUSER_MOVABLE, 0, 7, &gen) >= 0)
		; /* the whole zone taken: compaction_alloc() finds no target */
	ck_assert_uint_eq(zinfo(sim, 0, ZONE_NORMAL).nr_free_exact, 0);
	mm_set_migrate_src(sim, &src);
	struct compact_control cc = pass(normal(sim));
	list_three_sources(&cc, isolated);
	ck_assert_int_eq(migrate_pages(&cc), -12);
	ck_assert_uint_eq(pb.n, 3);
	for (unsigned int i = 0; i < 3; i++)
		ck_assert_uint_eq(pb.old_pfn[i], i);
	ck_assert_msg(vr.n == 0, "%s", vr.first);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * migrate_pages() with every source pinned (an extra reference: each
 * fails to migrate, in every mode): under threads each goes back to the
 * LRU where it was, once, and the run reports them all failed.
 */
START_TEST(test_busy_sources_go_back_where_they_were)
{
	struct vrec vr;
	struct mm_sim *sim = threads_sim(&vr);
	struct putbacks pb = {0};
	struct mm_migrate_src src = {.putback = record_putback, .arg = &pb};
	uint32_t isolated[4] = {0, 0, 0, 0xdead}, gen;

	for (unsigned int i = 0; i < 3; i++) {
		long long pfn = mm_alloc_pages(sim, 0, MM_GFP_HIGHUSER_MOVABLE, 0, 7, &gen);

		ck_assert_int_ge(pfn, 0);
		isolated[i] = (uint32_t)pfn;
		pfn_to_page(sim, (uint64_t)pfn)->spare |= PAGE_MIGRATE_BUSY;
	}
	mm_set_migrate_src(sim, &src);
	struct compact_control cc = pass(normal(sim));
	list_three_sources(&cc, isolated);
	ck_assert_int_eq(migrate_pages(&cc), 3);
	ck_assert_uint_eq(pb.n, 3);
	for (unsigned int i = 0; i < 3; i++)
		ck_assert(pb.old_pfn[i] == isolated[i] && pb.new_pfn[i] == isolated[i]);
	ck_assert_msg(vr.n == 0, "%s", vr.first);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * putback_movable_pages() likewise: under threads each isolated source
 * goes back to the LRU once, none more, and the list is empty after.
 */
START_TEST(test_putback_returns_each_source_once)
{
	struct vrec vr;
	struct mm_sim *sim = threads_sim(&vr);
	struct putbacks pb = {0};
	struct mm_migrate_src src = {.putback = record_putback, .arg = &pb};
	uint32_t isolated[4] = {5, 6, 7, 0xdead};

	mm_set_migrate_src(sim, &src);
	struct compact_control cc = pass(normal(sim));
	list_three_sources(&cc, isolated);
	putback_movable_pages(&cc);
	ck_assert_uint_eq(pb.n, 3);
	for (unsigned int i = 0; i < 3; i++)
		ck_assert_uint_eq(pb.old_pfn[i], 5 + i);
	ck_assert_uint_eq(cc.nr_migratepages, 0);
	ck_assert_msg(vr.n == 0, "%s", vr.first);
	mm_sim_destroy(sim);
}
END_TEST

/* The pfns isolate_migratepages() asked the LRU for, in order; the LRU gives each up. */
struct lru_asks {
	uint64_t pfn[64];
	unsigned int n;
};

static bool lru_give_up(void *arg, uint64_t pfn, uint32_t *owner, uint32_t *gen)
{
	struct lru_asks *a = arg;

	if (a->n < 64)
		a->pfn[a->n] = pfn;
	a->n++;
	*owner = 7;
	*gen = 0;
	return true;
}

static void lru_take_back(void *arg, uint64_t old_pfn, uint64_t new_pfn)
{
	(void)arg;
	(void)old_pfn;
	(void)new_pfn;
}

/*
 * Under threads the scanner's lockless look (PageLRU in
 * isolate_migratepages_block()) asks the LRU for every allocated order-0
 * page it passes and for nothing else: not a freed page, whatever list it
 * went to. The zone is all order-0 movable pages but 5 and 20, freed; a
 * sync light round from pfn 0 scans block [0, 32) and asks for its 30
 * allocated pages, in pfn order.
 */
START_TEST(test_lru_asked_for_allocated_pages_only)
{
	struct vrec vr;
	struct mm_sim *sim = threads_sim(&vr);
	struct lru_asks asks = {0};
	struct mm_migrate_src src = {
		.isolate = lru_give_up, .putback = lru_take_back, .arg = &asks};
	uint32_t gens[256], isolated[256], gen;
	long long pfn;
	unsigned int want = 0;

	while ((pfn = mm_alloc_pages(sim, 0, MM_GFP_HIGHUSER_MOVABLE, 0, 7, &gen)) >= 0)
		gens[pfn] = gen;
	ck_assert_uint_eq(zinfo(sim, 0, ZONE_NORMAL).nr_free_exact, 0);
	mm_free_pages(sim, 5, 0, 7, gens[5]);
	mm_free_pages(sim, 20, 0, 7, gens[20]);
	mm_set_migrate_src(sim, &src);
	struct compact_control cc = pass(normal(sim));
	cc.mode = MM_MIGRATE_SYNC_LIGHT;
	cc.direct_compaction = false;
	cc.migratepages = isolated;
	isolate_migratepages(&cc);
	for (uint64_t p = 0; p < 32; p++) {
		if (p == 5 || p == 20)
			continue;
		ck_assert_msg(want < asks.n && asks.pfn[want] == p,
			      "ask %u: pfn %llu, want %llu (%u asks)", want,
			      (unsigned long long)(want < asks.n ? asks.pfn[want] : 0),
			      (unsigned long long)p, asks.n);
		want++;
	}
	ck_assert_uint_eq(asks.n, want);
	ck_assert_uint_eq(cc.nr_migratepages, want);
	putback_movable_pages(&cc);
	ck_assert_msg(vr.n == 0, "%s", vr.first);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * A thread's compaction state belongs to the machine it was made for
 * (compact_state_thread()): the thread keeps one state per machine, found
 * again at each pass (a state per pass would grow the machine's list by
 * its lists' size every pass, on up to 1024 threads), listed on that
 * machine's compact_threads, where mm_sim_compact_stats() sums what its
 * passes counted. A second machine compacting on the same thread after the
 * first is destroyed (the executor's next input, a test's next machine)
 * gets a state of its own, not the freed one of the first.
 */
START_TEST(test_thread_state_follows_its_machine)
{
	for (int round = 0; round < 2; round++) {
		struct vrec vr;
		struct mm_sim *sim = threads_sim(&vr);
		struct compact_state *cs = compact_state_current(sim);
		struct mm_compact_stats st;

		ck_assert_ptr_nonnull(cs);
		ck_assert_ptr_ne(cs, sim->compact);
		ck_assert_msg(compact_state_current(sim) == cs,
			      "machine %d: a second pass on the thread got another state", round);
		ck_assert_msg(atomic_load(&sim->compact_threads) == cs,
			      "machine %d: the thread's state is not on the machine's list", round);
		ck_assert_ptr_null(cs->next_thread);
		compact_stats(sim)->compact_stall++;
		mm_sim_compact_stats(sim, &st);
		ck_assert_uint_eq(st.compact_stall, 1);
		ck_assert_msg(vr.n == 0, "%s", vr.first);
		mm_sim_destroy(sim);
	}
}
END_TEST

/* A whole LRU of the test's order-0 pages: the stamp each was allocated with. */
struct lru_pages {
	uint32_t gen[256];
	bool listed[256];
	unsigned int isolated, moved;
};

static bool lru_isolate_listed(void *arg, uint64_t pfn, uint32_t *owner, uint32_t *gen)
{
	struct lru_pages *l = arg;

	if (pfn >= 256 || !l->listed[pfn])
		return false;
	l->listed[pfn] = false;
	*owner = 7;
	*gen = l->gen[pfn];
	l->isolated++;
	return true;
}

static void lru_put_listed(void *arg, uint64_t old_pfn, uint64_t new_pfn)
{
	struct lru_pages *l = arg;

	l->gen[new_pfn] = l->gen[old_pfn];
	l->listed[new_pfn] = true;
	l->moved += new_pfn != old_pfn;
}

/*
 * A whole direct compaction under threads, through compact_zone() on this
 * thread's own state (compact_state_thread()), not a control built by
 * hand: every odd page of the 256-page zone is free (buddy only, so 128
 * single free pages and no free pageblock), the even ones are on the
 * run's LRU. An order-5 pass at the sync light priority must migrate
 * sources out of a pageblock onto free pages the free scanner isolated,
 * and end with the block free: the thread's migration and free lists,
 * sized for a pageblock plus a max_order block, carry the pass.
 */
START_TEST(test_threaded_pass_migrates)
{
	struct mm_config cfg;
	struct vrec vr;
	struct lru_pages lru = {0};
	struct mm_migrate_src src = {
		.isolate = lru_isolate_listed, .putback = lru_put_listed, .arg = &lru};
	struct mm_compact_stats st;
	uint32_t gen;
	long long pfn;

	cfg_tiny(&cfg, 2, 6, 5);
	cfg_zone(&cfg, 0, ZONE_NORMAL, 0, 256, 256);
	struct mm_sim *sim = sim_new_buddy_only(&cfg);
	mm_set_current_cpu(0);
	while ((pfn = mm_alloc_pages(sim, 0, MM_GFP_HIGHUSER_MOVABLE, 0, 7, &gen)) >= 0) {
		lru.gen[pfn] = gen;
		lru.listed[pfn] = true;
	}
	for (uint64_t p = 1; p < 256; p += 2) {
		mm_free_pages(sim, p, 0, 7, lru.gen[p]);
		lru.listed[p] = false;
	}
	ck_assert_uint_eq(zinfo(sim, 0, ZONE_NORMAL).nr_free_exact, 128);
	sim->serial = false;
	sim_record(sim, &vr);
	mm_set_migrate_src(sim, &src);
	int rc = mm_compact_zone(sim, 0, ZONE_NORMAL, 5, MM_COMPACT_PRIO_SYNC_LIGHT,
				 MM_MIGRATE_SYNC_LIGHT, MIGRATE_MOVABLE);
	mm_sim_compact_stats(sim, &st);
	ck_assert_ptr_ne(compact_state_current(sim), sim->compact);
	ck_assert_msg(rc == MM_COMPACT_SUCCESS, "result %d, %llu migrated, %llu isolated", rc,
		      st.pgmigrate_success, st.compact_isolated);
	ck_assert_uint_ge(st.pgmigrate_success, 16);
	ck_assert_uint_eq(lru.moved, st.pgmigrate_success);
	ck_assert_uint_ge(lru.isolated, lru.moved);
	ck_assert_msg(vr.n == 0, "%s", vr.first);
	mm_set_migrate_src(sim, NULL);
	mm_sim_destroy(sim);
}
END_TEST

static Suite *compact_threads_suite(void)
{
	Suite *s = suite_create("compact_threads");
	TCase *tc = tcase_create("checks as they judge under threads");

	tcase_add_test(tc, test_migrate_stamp_from_lru_record);
	tcase_add_test(tc, test_rescan_unless_reset);
	tcase_add_test(tc, test_thread_lists_hold_a_block_of_each);
	tcase_add_test(tc, test_round_backstop_unless_reset_or_shadow);
	tcase_add_test(tc, test_fastfind_unscanned_unless_others_set);
	tcase_add_test(tc, test_cached_pfn_when_quiet);
	tcase_add_test(tc, test_defer_bounds_under_threads);
	tcase_add_test(tc, test_enomem_puts_back_each_source_once);
	tcase_add_test(tc, test_busy_sources_go_back_where_they_were);
	tcase_add_test(tc, test_putback_returns_each_source_once);
	tcase_add_test(tc, test_lru_asked_for_allocated_pages_only);
	tcase_add_test(tc, test_thread_state_follows_its_machine);
	tcase_add_test(tc, test_threaded_pass_migrates);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(compact_threads_suite());
}
