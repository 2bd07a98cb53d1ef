/* SPDX-License-Identifier: MIT */
/*
 * test_lockdep.c - INV-LOCK-HELD: unlocking a lock the thread does not
 * hold, or calling a function the kernel runs only under zone->lock
 * without it, aborts (each in a forked child: Check's raise_signal). A
 * thread that runs a machine alone (mm_locks_up) keeps the ownership
 * checks without the mutex, and reports a lock taken twice. INV-LOCK-LEAK:
 * the last machine's teardown leaves as many locks alive as there were
 * before the first came up. Memory that is no live lock is not taken.
 */
#include "common.h"
#include "internal.h"

#include <signal.h>

static spinlock_t lk;

/* Held by the other thread: this one may not unlock it. */
static void *lock_and_stay(void *arg)
{
	(void)arg;
	spin_lock(&lk);
	return NULL;
}

static struct mm_sim *tiny_sim(void)
{
	struct mm_config cfg;

	cfg_tiny(&cfg, 1, 3, 2);
	cfg_zone(&cfg, 0, ZONE_NORMAL, 0, 64, 64);
	return sim_new(&cfg);
}

START_TEST(test_balanced_is_silent)
{
	spin_lock_init(&lk);
	spin_lock(&lk);
	lockdep_assert_held(&lk);
	spin_unlock(&lk);
	spin_lock_destroy(&lk);
}
END_TEST

START_TEST(test_unlock_unheld_aborts)
{
	spin_lock_init(&lk);
	spin_unlock(&lk);
}
END_TEST

START_TEST(test_unlock_other_threads_aborts)
{
	pthread_t t;

	spin_lock_init(&lk);
	ck_assert_int_eq(pthread_create(&t, NULL, lock_and_stay, NULL), 0);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	spin_unlock(&lk);
}
END_TEST

START_TEST(test_assert_unheld_aborts)
{
	spin_lock_init(&lk);
	lockdep_assert_held(&lk);
}
END_TEST

START_TEST(test_kswapd_lock_unlock_unheld_aborts)
{
	struct mm_sim *sim = tiny_sim();

	mutex_unlock(&sim->kswapd_lock);
}
END_TEST

START_TEST(test_up_balanced_leaves_the_mutex_alone)
{
	spin_lock_init(&lk);
	mm_locks_up = true;
	spin_lock(&lk);
	lockdep_assert_held(&lk);
	/* the uniprocessor lock: ownership recorded, the mutex never taken */
	ck_assert_int_eq(pthread_mutex_trylock(&lk.m), 0);
	ck_assert_int_eq(pthread_mutex_unlock(&lk.m), 0);
	spin_unlock(&lk);
	ck_assert(!spin_is_held_by_me(&lk));
	mm_locks_up = false;
	spin_lock_destroy(&lk);
}
END_TEST

/* With the mutex this would hang; alone on the machine it is a report. */
START_TEST(test_up_recursive_aborts)
{
	spin_lock_init(&lk);
	mm_locks_up = true;
	spin_lock(&lk);
	spin_lock(&lk);
}
END_TEST

START_TEST(test_up_unlock_unheld_aborts)
{
	spin_lock_init(&lk);
	mm_locks_up = true;
	spin_unlock(&lk);
}
END_TEST

/* zone_pcp_update()'s resize of every CPU's pageset wants pcp_batch_high_lock. */
START_TEST(test_pageset_resize_unlocked_aborts)
{
	struct mm_sim *sim = tiny_sim();

	zone_set_pageset_high_and_batch(&sim->node_data[0]->node_zones[ZONE_NORMAL], -1);
}
END_TEST

START_TEST(test_pageset_resize_locked_is_silent)
{
	struct mm_sim *sim = tiny_sim();

	mutex_lock(&sim->pcp_batch_high_lock);
	zone_set_pageset_high_and_batch(&sim->node_data[0]->node_zones[ZONE_NORMAL], -1);
	mutex_unlock(&sim->pcp_batch_high_lock);
	mm_sim_destroy(sim);
}
END_TEST

/* The hotplug and sysctl lock is a lock with an owner too. */
START_TEST(test_hotplug_unlock_unheld_aborts)
{
	struct mm_sim *sim = tiny_sim();

	mutex_unlock(&sim->hotplug_lock);
}
END_TEST

START_TEST(test_destroy_twice_aborts)
{
	spin_lock_init(&lk);
	spin_lock_destroy(&lk);
	spin_lock_destroy(&lk);
}
END_TEST

/* Zeroed memory is no lock: lockdep's "bad magic". */
START_TEST(test_lock_never_initialised_aborts)
{
	static spinlock_t never;

	spin_lock(&never);
}
END_TEST

START_TEST(test_lock_destroyed_aborts)
{
	spin_lock_init(&lk);
	spin_lock_destroy(&lk);
	spin_lock(&lk);
}
END_TEST

START_TEST(test_destroy_held_aborts)
{
	spin_lock_init(&lk);
	spin_lock(&lk);
	spin_lock_destroy(&lk);
}
END_TEST

static bool up_at_boot;

static void note_up(void *arg)
{
	(void)arg;
	up_at_boot = mm_locks_up;
}

/* The executor runs its machine with uniprocessor locks, and gives them back. */
START_TEST(test_exec_runs_up)
{
	struct mm_exec *ex = mm_exec_create();
	struct mm_exec_opts o;
	struct vrec vr;
	long failed_op;

	ck_assert_ptr_nonnull(ex);
	mm_exec_opts_default(&o);
	o.on_boot = note_up;
	up_at_boot = false;
	ck_assert_int_eq(exec_text(ex,
				   "config nodes=1 cpus=2\n"
				   "zone 0 Normal start=0 spanned=1024 present=1024 managed=1024\n"
				   "cpu0 alloc a0 order=0\ncpu1 free a0\ncheck\n",
				   &o, &vr, &failed_op),
			 0);
	ck_assert(up_at_boot);
	ck_assert(!mm_locks_up);
	mm_exec_destroy(ex);
}
END_TEST

/* mm/page_alloc.c's account_freepages() asserts zone->lock. */
START_TEST(test_account_freepages_unlocked_aborts)
{
	struct mm_sim *sim = tiny_sim();

	account_freepages(&sim->node_data[0]->node_zones[ZONE_NORMAL], 1, MIGRATE_MOVABLE);
}
END_TEST

/*
 * INV-LOCK-LEAK: the last teardown of machines whose lives overlap finds
 * every lock initialised since the first came up destroyed. Two machines,
 * an mm's counters (their locks come and go with the mm), and a lock of
 * the test's own destroyed while the second machine still lives: silent,
 * and the ledger back where it was.
 */
START_TEST(test_overlapping_teardowns_leave_no_lock)
{
	long before = atomic_load(&mm_locks_live);
	struct mm_sim *a = tiny_sim(), *b = tiny_sim();
	spinlock_t extra;

	ck_assert_int_gt(atomic_load(&mm_locks_live), before);
	mm_set_current_cpu(0);
	ck_assert_int_eq(mm_fork(a, 0, -1, 0), 0);
	spin_lock_init(&extra);
	mm_sim_destroy(a); /* b lives: not judged yet */
	spin_lock_destroy(&extra);
	mm_sim_destroy(b);
	ck_assert_int_eq(atomic_load(&mm_locks_live), before);
}
END_TEST

/* A lock initialised while a machine lives and never destroyed: the teardown aborts. */
START_TEST(test_leaked_lock_aborts_at_teardown)
{
	struct mm_sim *sim = tiny_sim();
	static spinlock_t leaked;

	spin_lock_init(&leaked);
	mm_sim_destroy(sim);
}
END_TEST

static Suite *lockdep_suite(void)
{
	Suite *s = suite_create("lockdep");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_balanced_is_silent);
	tcase_add_test_raise_signal(tc, test_unlock_unheld_aborts, SIGABRT);
	tcase_add_test_raise_signal(tc, test_unlock_other_threads_aborts, SIGABRT);
	tcase_add_test_raise_signal(tc, test_assert_unheld_aborts, SIGABRT);
	tcase_add_test_raise_signal(tc, test_kswapd_lock_unlock_unheld_aborts, SIGABRT);
	tcase_add_test_raise_signal(tc, test_account_freepages_unlocked_aborts, SIGABRT);
	tcase_add_test_raise_signal(tc, test_pageset_resize_unlocked_aborts, SIGABRT);
	tcase_add_test(tc, test_pageset_resize_locked_is_silent);
	tcase_add_test_raise_signal(tc, test_hotplug_unlock_unheld_aborts, SIGABRT);
	tcase_add_test_raise_signal(tc, test_destroy_twice_aborts, SIGABRT);
	tcase_add_test_raise_signal(tc, test_destroy_held_aborts, SIGABRT);
	tcase_add_test_raise_signal(tc, test_lock_never_initialised_aborts, SIGABRT);
	tcase_add_test_raise_signal(tc, test_lock_destroyed_aborts, SIGABRT);
	tcase_add_test(tc, test_up_balanced_leaves_the_mutex_alone);
	tcase_add_test_raise_signal(tc, test_up_recursive_aborts, SIGABRT);
	tcase_add_test_raise_signal(tc, test_up_unlock_unheld_aborts, SIGABRT);
	tcase_add_test(tc, test_exec_runs_up);
	suite_add_tcase(s, tc);

	tc = tcase_create("leak");
	tcase_add_test(tc, test_overlapping_teardowns_leave_no_lock);
	tcase_add_test_raise_signal(tc, test_leaked_lock_aborts_at_teardown, SIGABRT);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(lockdep_suite());
}
