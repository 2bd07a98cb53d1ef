/* SPDX-License-Identifier: MIT */
/*
 * test_threads.c - one shared machine, several threads each running as
 * its own simulated CPU: random allocations and frees of their own blocks,
 * with CPU hotplug and sysctl writes racing them. Afterwards the machine
 * must pass the full check and account for every page. Run under the
 * tsan preset (ctest --preset tsan -R threads) it must also be free of
 * data races; the sim is not serial (the default), as under stress.
 */
#include "common.h"
#include "internal.h" /* sim->serial: must stay false */

#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>

#define NR_CPUS	    4
#define NR_OPS	    3000 /* per worker, run while its CPU is online */
#define MAX_LIVE    160	 /* blocks a worker holds at most: ~2400 pages of 4096 for 4 */
#define DMA32_PAGES 2048
#define TOTAL_PAGES 4096

struct blk {
	long long pfn;
	unsigned int order;
	uint32_t owner, gen;
};

struct worker {
	pthread_t thread;
	struct mm_sim *sim;
	pthread_barrier_t *go; /* every thread starts together */
	int cpu;
	struct blk live[MAX_LIVE];
	unsigned int nr_live;
	unsigned long allocs, frees, failed, skipped;
};

/* 1 node, 4 CPUs, DMA32 [0, 2048) + Normal [2048, 4096); kernel defaults otherwise. */
static struct mm_sim *shared_sim(void)
{
	struct mm_config cfg;

	memset(&cfg, 0, sizeof(cfg));
	cfg.nr_nodes = 1;
	cfg.cpus_per_node[0] = NR_CPUS;
	cfg.max_order = 10;
	cfg.pageblock_order = 9;
	cfg.watermark_scale_factor = 10;
	cfg_zone(&cfg, 0, ZONE_DMA32, 0, DMA32_PAGES, DMA32_PAGES);
	cfg_zone(&cfg, 0, ZONE_NORMAL, DMA32_PAGES, TOTAL_PAGES - DMA32_PAGES,
		 TOTAL_PAGES - DMA32_PAGES);
	return sim_new(&cfg);
}

static void *worker_fn(void *arg)
{
	struct worker *w = arg;
	struct rng r = {UINT64_C(0x7468726561640000) + (uint64_t)w->cpu};

	mm_set_current_cpu(w->cpu);
	pthread_barrier_wait(w->go);
	for (uint32_t i = 0; i < NR_OPS; i++) {
		/* An offline CPU runs nothing: wait for the hotplug thread to bring it back. */
		while (!mm_cpu_is_online(w->sim, w->cpu)) {
			w->skipped++;
			sched_yield();
		}
		if (w->nr_live < MAX_LIVE && (!w->nr_live || rng_below(&r, 100) < 60)) {
			struct blk *b = &w->live[w->nr_live];
			unsigned int gfp = mm_gfp_common[rng_below(&r, MM_NR_GFP_COMMON)];

			b->order = rng_below(&r, 4);
			b->owner = ((uint32_t)w->cpu << 24) | i;
			b->pfn = mm_alloc_pages(w->sim, b->order, gfp, -1, b->owner, &b->gen);
			if (b->pfn < 0) {
				w->failed++;
				continue;
			}
			w->nr_live++;
			w->allocs++;
		} else {
			unsigned int k = rng_below(&r, w->nr_live);
			struct blk *b = &w->live[k];

			mm_free_pages(w->sim, (uint64_t)b->pfn, b->order, b->owner, b->gen);
			*b = w->live[--w->nr_live];
			w->frees++;
		}
	}
	return NULL;
}

#define MIN_ROUNDS 64 /* chaos rounds even if the workers finish first */

struct chaos {
	pthread_t thread;
	struct mm_sim *sim;
	pthread_barrier_t *go;
	atomic_bool *stop;
	unsigned long rounds;
};

/* Takes CPUs offline and back, as cpu_hotplug would, until the workers are done. */
static void *hotplug_fn(void *arg)
{
	struct chaos *c = arg;
	struct rng r = {0x686f74ULL};

	pthread_barrier_wait(c->go);
	while (!atomic_load(c->stop) || c->rounds < MIN_ROUNDS) {
		int cpu = (int)rng_below(&r, NR_CPUS);

		if (mm_cpu_is_online(c->sim, cpu))
			mm_cpu_offline(c->sim, cpu);
		else
			mm_cpu_online(c->sim, cpu);
		c->rounds++;
		sched_yield();
	}
	for (int cpu = 0; cpu < NR_CPUS; cpu++)
		mm_cpu_online(c->sim, cpu);
	return NULL;
}

/* Rewrites min_free_kbytes and watermark_scale_factor until the workers are done. */
static void *sysctl_fn(void *arg)
{
	static const unsigned int kbytes[] = {128, 256, 724, 1024, 2048, 4096};
	static const unsigned int wsf[] = {1, 10, 100, 1000, 3000};
	struct chaos *c = arg;
	struct rng r = {0x737973ULL};

	pthread_barrier_wait(c->go);
	while (!atomic_load(c->stop) || c->rounds < MIN_ROUNDS) {
		if (rng_below(&r, 2))
			mm_set_min_free_kbytes(c->sim, kbytes[rng_below(&r, ARRAY_SIZE(kbytes))]);
		else
			mm_set_watermark_scale_factor(c->sim, wsf[rng_below(&r, ARRAY_SIZE(wsf))]);
		c->rounds++;
		sched_yield();
	}
	return NULL;
}

/* Pages the workers hold in zone zi, by pfn. */
static long held_in(const struct worker *w, unsigned int nr, const struct mm_zone_info *zi)
{
	long n = 0;

	for (unsigned int t = 0; t < nr; t++)
		for (unsigned int i = 0; i < w[t].nr_live; i++) {
			uint64_t pfn = (uint64_t)w[t].live[i].pfn;
			if (pfn >= zi->start_pfn && pfn < zi->start_pfn + zi->spanned)
				n += 1L << w[t].live[i].order;
		}
	return n;
}

/*
 * The accounting after the run: the full check passes, every zone's
 * NR_FREE_PAGES plus the pages the workers hold in it is its managed
 * pages; after freeing everything, free == managed.
 */
static void check_and_drain(struct mm_sim *sim, struct worker *w, unsigned int nr, struct vrec *vr)
{
	unsigned long allocs = 0, frees = 0;
	struct mm_stats st;

	ck_assert_msg(mm_check_full(sim) == 0, "after the run: %s", vr->first);
	for (enum zone_type zt = ZONE_DMA32; zt <= ZONE_NORMAL; zt++) {
		struct mm_zone_info zi = zinfo(sim, 0, zt);
		long held = held_in(w, nr, &zi);
		ck_assert_msg(zi.nr_free_exact + zi.nr_pcp_pages + held == (long)zi.managed,
			      "%s: free %ld + pcp %ld + held %ld != managed %llu", mm_zone_name(zt),
			      zi.nr_free_exact, zi.nr_pcp_pages, held,
			      (unsigned long long)zi.managed);
	}
	for (unsigned int t = 0; t < nr; t++) {
		allocs += w[t].allocs;
		frees += w[t].frees;
	}
	mm_sim_stats(sim, &st);
	ck_assert_uint_eq(st.alloc_success, allocs);
	ck_assert_uint_eq(st.frees, frees);
	ck_assert_uint_gt(allocs, (unsigned long)nr * NR_OPS / 4);

	mm_set_current_cpu(0);
	for (unsigned int t = 0; t < nr; t++)
		while (w[t].nr_live) {
			struct blk *b = &w[t].live[--w[t].nr_live];
			mm_free_pages(sim, (uint64_t)b->pfn, b->order, b->owner, b->gen);
		}
	/* Everything back in the buddy once every CPU's pcp lists are drained. */
	mm_drain_all_pages(sim);
	for (enum zone_type zt = ZONE_DMA32; zt <= ZONE_NORMAL; zt++) {
		struct mm_zone_info zi = zinfo(sim, 0, zt);
		ck_assert_int_eq(zi.nr_free_exact, (long)zi.managed);
	}
	ck_assert_msg(mm_check_full(sim) == 0, "after draining: %s", vr->first);
	ck_assert_msg(vr->n == 0, "%u violations; first: %s", vr->n, vr->first);
}

static struct worker *start_workers(struct mm_sim *sim, unsigned int nr, pthread_barrier_t *go)
{
	struct worker *w = calloc(nr, sizeof(*w));

	ck_assert_ptr_nonnull(w);
	for (unsigned int t = 0; t < nr; t++) {
		w[t].sim = sim;
		w[t].go = go;
		w[t].cpu = (int)t;
		ck_assert_int_eq(pthread_create(&w[t].thread, NULL, worker_fn, &w[t]), 0);
	}
	return w;
}

static void join_workers(struct worker *w, unsigned int nr)
{
	for (unsigned int t = 0; t < nr; t++)
		ck_assert_int_eq(pthread_join(w[t].thread, NULL), 0);
}

/* 2, 3 and 4 workers on one machine, nothing else going on. */
START_TEST(test_threads_alloc_free)
{
	unsigned int nr = (unsigned int)_i;
	struct mm_sim *sim = shared_sim();
	pthread_barrier_t go;
	struct worker *w;
	struct vrec vr;

	ck_assert(!sim->serial);
	vrec_init(&vr);
	mm_sim_set_violation_handler(sim, vrec_handler, &vr);
	ck_assert_int_eq(pthread_barrier_init(&go, NULL, nr), 0);
	w = start_workers(sim, nr, &go);
	join_workers(w, nr);
	check_and_drain(sim, w, nr, &vr);
	pthread_barrier_destroy(&go);
	free(w);
	mm_sim_destroy(sim);
}
END_TEST

/* 4 workers, with CPU hotplug and the watermark sysctls changing under them. */
START_TEST(test_threads_with_hotplug_and_sysctl)
{
	struct mm_sim *sim = shared_sim();
	atomic_bool stop = false;
	pthread_barrier_t go;
	struct chaos hp = {.sim = sim, .go = &go, .stop = &stop};
	struct chaos sc = {.sim = sim, .go = &go, .stop = &stop};
	struct worker *w;
	struct vrec vr;

	vrec_init(&vr);
	mm_sim_set_violation_handler(sim, vrec_handler, &vr);
	ck_assert_int_eq(pthread_barrier_init(&go, NULL, NR_CPUS + 2), 0);
	ck_assert_int_eq(pthread_create(&hp.thread, NULL, hotplug_fn, &hp), 0);
	ck_assert_int_eq(pthread_create(&sc.thread, NULL, sysctl_fn, &sc), 0);
	w = start_workers(sim, NR_CPUS, &go);
	join_workers(w, NR_CPUS);
	atomic_store(&stop, true);
	ck_assert_int_eq(pthread_join(hp.thread, NULL), 0);
	ck_assert_int_eq(pthread_join(sc.thread, NULL), 0);
	ck_assert_uint_ge(hp.rounds, MIN_ROUNDS);
	ck_assert_uint_ge(sc.rounds, MIN_ROUNDS);
	ck_assert_uint_eq(mm_num_online_cpus(sim), NR_CPUS);

	check_and_drain(sim, w, NR_CPUS, &vr);
	pthread_barrier_destroy(&go);
	free(w);
	mm_sim_destroy(sim);
}
END_TEST

static Suite *threads_suite(void)
{
	Suite *s = suite_create("threads");
	TCase *tc = tcase_create("stress");

	tcase_add_loop_test(tc, test_threads_alloc_free, 2, NR_CPUS + 1);
	tcase_add_test(tc, test_threads_with_hotplug_and_sysctl);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(threads_suite());
}
