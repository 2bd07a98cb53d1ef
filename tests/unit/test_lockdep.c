/* SPDX-License-Identifier: MIT */
/*
 * test_lockdep.c - INV-LOCK-HELD: unlocking a lock the thread does not
 * hold, or calling a function the kernel runs only under zone->lock
 * without it, aborts (each in a forked child: Check's raise_signal).
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

/* mm/page_alloc.c's account_freepages() asserts zone->lock. */
START_TEST(test_account_freepages_unlocked_aborts)
{
	struct mm_sim *sim = tiny_sim();

	account_freepages(&sim->node_data[0]->node_zones[ZONE_NORMAL], 1, MIGRATE_MOVABLE);
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
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(lockdep_suite());
}
