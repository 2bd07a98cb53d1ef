/* SPDX-License-Identifier: MIT */
/*
 * test_counter_threads.c - the percpu counters, vm_committed_as and the
 * mms' rss counters with one thread per simulated CPU: adds with random
 * batches, mmaps and munmaps, while a hotplug thread takes CPUs down (the
 * dead-CPU fold) and brings them back and a sysctl thread switches the
 * overcommit policy (its sync on each CPU). The test keeps its own ledger
 * of what it added and what each mm was charged (from the calls'
 * outcomes), and at the end the model's exact sums must equal it: a fold
 * that races an add, or a sum that skips a dying CPU, loses or doubles
 * an amount. Under the tsan preset the run must also be free of races.
 */
#include "common.h"
#include "internal.h" /* sim->serial: must stay false */

#include <sched.h>
#include <stdatomic.h>
#include <time.h>

#define NR_CPUS	   4
#define NR_OPS	   20000 /* per worker at least */
#define NR_SHARED  4	 /* counters c0..c3, added to by every CPU */
#define MIN_ROUNDS 100	 /* hotplug and sysctl rounds that must overlap the workers */

struct cworker {
	pthread_t thread;
	struct mm_sim *sim;
	pthread_barrier_t *go;
	atomic_llong *ledger; /* NR_SHARED: what every CPU added */
	atomic_bool *enough;  /* the chaos threads did their rounds */
	int cpu;	      /* and its mm: slot cpu, forked at the start */
	long long committed, mapped;
	unsigned long skipped;
};

struct chaos {
	pthread_t thread;
	struct mm_sim *sim;
	pthread_barrier_t *go;
	atomic_bool *stop;
	atomic_ulong rounds;
};

static struct mm_sim *counter_sim(void)
{
	struct mm_config cfg;

	cfg_tiny(&cfg, NR_CPUS, 10, 9);
	cfg_zone(&cfg, 0, ZONE_NORMAL, 0, 1 << 16, 1 << 16);
	return sim_new(&cfg);
}

static void run_op(struct cworker *w, struct rng *r)
{
	static const int batches[] = {0, 0, 1, 4, 32, 1000};
	unsigned int pages = 1 + rng_below(r, 64);

	switch (rng_below(r, 4)) {
	case 0:
	case 1: {
		unsigned int c = rng_below(r, NR_SHARED);
		long long amount = (long long)rng_below(r, 200) - 100;
		if (mm_pcpu_add(w->sim, c, amount, batches[rng_below(r, 6)]))
			w->skipped++;
		else
			atomic_fetch_add(&w->ledger[c], amount);
		break;
	}
	case 2:
		if (mm_mmap(w->sim, w->cpu, pages, MM_ANONPAGES, 0)) {
			w->skipped++;
		} else if (!mm_vm_enough_last()) {
			w->committed += pages;
			w->mapped += pages;
		}
		break;
	default: {
		/* munmap takes what is mapped, and gives back what was charged */
		long long n = pages < w->mapped ? pages : w->mapped;
		if (mm_munmap(w->sim, w->cpu, pages, MM_ANONPAGES)) {
			w->skipped++;
		} else {
			w->mapped -= n;
			w->committed -= n < w->committed ? n : w->committed;
		}
		break;
	}
	}
}

static void *cworker_fn(void *arg)
{
	struct cworker *w = arg;
	struct rng r = {UINT64_C(0x636f756e74657200) + (uint64_t)w->cpu};

	mm_set_current_cpu(w->cpu);
	ck_assert_int_eq(mm_fork(w->sim, w->cpu, -1, 0), 0);
	pthread_barrier_wait(w->go);
	for (unsigned int i = 0; i < NR_OPS || !atomic_load(w->enough); i++) {
		while (!mm_cpu_is_online(w->sim, w->cpu))
			sched_yield();
		run_op(w, &r);
	}
	return NULL;
}

/* CPUs 1..3 down and up again, one at a time; CPU 0 stays. */
static void *hotplug_fn(void *arg)
{
	struct chaos *c = arg;
	struct rng r = {UINT64_C(0x686f74706c756700)};

	mm_set_current_cpu(0);
	pthread_barrier_wait(c->go);
	while (!atomic_load(c->stop)) {
		int cpu = 1 + (int)rng_below(&r, NR_CPUS - 1);
		if (!mm_cpu_offline(c->sim, cpu)) {
			sched_yield();
			ck_assert_int_eq(mm_cpu_online(c->sim, cpu), 0);
			c->rounds++;
		}
		sched_yield();
	}
	return NULL;
}

/* vm.overcommit_memory through its three values: NEVER syncs every CPU. */
static void *overcommit_fn(void *arg)
{
	struct chaos *c = arg;

	mm_set_current_cpu(0);
	pthread_barrier_wait(c->go);
	while (!atomic_load(c->stop)) {
		int policy = (int)(atomic_load(&c->rounds) % 3);
		ck_assert_int_eq(mm_set_overcommit_memory(c->sim, policy), 0);
		c->rounds++;
		sched_yield();
	}
	ck_assert_int_eq(mm_set_overcommit_memory(c->sim, MM_OVERCOMMIT_GUESS), 0);
	return NULL;
}

START_TEST(test_counters_under_threads)
{
	struct mm_sim *sim = counter_sim();
	atomic_llong ledger[NR_SHARED] = {0};
	atomic_bool stop = false, enough = false;
	pthread_barrier_t go;
	struct chaos hp = {.sim = sim, .go = &go, .stop = &stop};
	struct chaos oc = {.sim = sim, .go = &go, .stop = &stop};
	struct cworker w[NR_CPUS];
	long long committed = 0;
	struct vrec vr;

	ck_assert(!sim->serial);
	vrec_init(&vr);
	mm_sim_set_violation_handler(sim, vrec_handler, &vr);
	ck_assert_int_eq(pthread_barrier_init(&go, NULL, NR_CPUS + 2), 0);
	ck_assert_int_eq(pthread_create(&hp.thread, NULL, hotplug_fn, &hp), 0);
	ck_assert_int_eq(pthread_create(&oc.thread, NULL, overcommit_fn, &oc), 0);
	for (int t = 0; t < NR_CPUS; t++) {
		w[t] = (struct cworker){
			.sim = sim, .go = &go, .ledger = ledger, .enough = &enough, .cpu = t};
		ck_assert_int_eq(pthread_create(&w[t].thread, NULL, cworker_fn, &w[t]), 0);
	}
	while (atomic_load(&hp.rounds) < MIN_ROUNDS || atomic_load(&oc.rounds) < MIN_ROUNDS)
		sched_yield();
	atomic_store(&enough, true);
	for (int t = 0; t < NR_CPUS; t++)
		ck_assert_int_eq(pthread_join(w[t].thread, NULL), 0);
	atomic_store(&stop, true);
	ck_assert_int_eq(pthread_join(hp.thread, NULL), 0);
	ck_assert_int_eq(pthread_join(oc.thread, NULL), 0);

	for (unsigned int c = 0; c < NR_SHARED; c++)
		ck_assert_int_eq(mm_pcpu_sum(sim, c), atomic_load(&ledger[c]));
	for (int t = 0; t < NR_CPUS; t++) {
		ck_assert_int_eq(mm_rss_sum(sim, t, MM_ANONPAGES), w[t].mapped);
		committed += w[t].committed;
	}
	ck_assert_int_eq(mm_vm_committed_sum(sim), committed);
	/* The model's own full check: its shadows, the ledger, no offline local. */
	ck_assert_msg(mm_check_full(sim) == 0, "full check: %s", vr.first);
	ck_assert_msg(vr.n == 0, "%u violations; first: %s", vr.n, vr.first);
	for (int t = 0; t < NR_CPUS; t++) {
		mm_set_current_cpu(t);
		ck_assert_int_eq(mm_exit(sim, t), 0);
	}
	ck_assert_int_eq(mm_vm_committed_sum(sim), 0);
	ck_assert_uint_eq(vr.n, 0);
	pthread_barrier_destroy(&go);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * fork holds two mms' locks, the lower slot's first (mm_struct.c), so
 * that forks in opposite directions cannot deadlock. The test holds the
 * lower slot's lock itself while a CPU forks: the forking thread must wait
 * for it holding nothing, and the higher slot's lock stays free all the
 * while. A fork that took the child's lock first would hold it and wait
 * (one from slot 0 into slot 1 does: lock 1, then 0), and the probe finds
 * it held.
 */
struct forker {
	struct mm_sim *sim;
	int child, parent;
	atomic_bool started;
};

static void *forker_fn(void *arg)
{
	struct forker *f = arg;

	mm_set_current_cpu(1);
	atomic_store(&f->started, true);
	mm_fork(f->sim, f->child, f->parent, 0);
	return NULL;
}

START_TEST(test_fork_lock_order)
{
	static const int pairs[][2] = {{1, 0}, {0, 1}, {3, 2}, {2, 3}, {5, 0}};
	struct mm_sim *sim = counter_sim();

	mm_set_current_cpu(0);
	for (int m = 0; m < 4; m++)
		ck_assert_int_eq(mm_fork(sim, m, -1, 0), 0);
	for (size_t i = 0; i < ARRAY_SIZE(pairs); i++) {
		struct forker f = {.sim = sim, .child = pairs[i][0], .parent = pairs[i][1]};
		int lo = f.child < f.parent ? f.child : f.parent;
		int hi = f.child < f.parent ? f.parent : f.child;
		mm_mutex_t *lock_hi = &sim->pcc->mm_lock[hi];
		pthread_t t;
		int held = 0;

		spin_lock(&sim->pcc->mm_lock[lo]);
		ck_assert_int_eq(pthread_create(&t, NULL, forker_fn, &f), 0);
		while (!atomic_load(&f.started))
			sched_yield();
		/* 300 ms for the fork to reach its first lock and show which it took */
		for (int k = 0; k < 300 && !held; k++) {
			struct timespec ms = {0, 1000 * 1000};
			if (pthread_mutex_trylock(&lock_hi->m))
				held = 1;
			else
				pthread_mutex_unlock(&lock_hi->m);
			nanosleep(&ms, NULL);
		}
		spin_unlock(&sim->pcc->mm_lock[lo]);
		ck_assert_int_eq(pthread_join(t, NULL), 0);
		ck_assert_msg(!held,
			      "fork of slot %d from %d held slot %d's lock while it waited for "
			      "slot %d's",
			      f.child, f.parent, hi, lo);
		if (f.child == 5)
			ck_assert_int_eq(mm_exit(sim, 5), 0);
	}
	for (int m = 0; m < 4; m++)
		ck_assert_int_eq(mm_exit(sim, m), 0);
	ck_assert_int_eq(mm_vm_committed_sum(sim), 0);
	ck_assert_uint_eq(mm_sim_violations(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

static Suite *counter_threads_suite(void)
{
	Suite *s = suite_create("counter_threads");
	TCase *tc = tcase_create("threads");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_counters_under_threads);
	tcase_add_test(tc, test_fork_lock_order);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(counter_threads_suite());
}
