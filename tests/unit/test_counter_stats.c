/* SPDX-License-Identifier: MIT */
/*
 * test_counter_stats.c - mm_sim_counter_stats() against a ledger the test
 * keeps itself. Seeds 003 and 004 are judged by these figures (folds per
 * brk, allocations and list locks per fork), so every field must count
 * what mmcore.h says it counts: a script of counter ops on a 2-CPU,
 * 1024-page machine, each step adding to the test's own tally what the
 * kernel's rules make that step do:
 *
 *   percpu_counter_add_batch() folds when |local + amount| >= batch
 *   percpu_counter_batch = max(32, 2 * online CPUs) = 32
 *   vm_committed_as_batch under GUESS = max(32, 2 * 2, 1024 / 2 / 4) = 128
 *   __percpu_counter_sum() reads the online (and dying) CPUs
 *   fork = mm_alloc_cid() + one init_many (one list lock); exit = a
 *   check_mm() sum per rss counter, one destroy_many (one list lock)
 *
 * Every field is compared after every step, so a figure that stops
 * counting, counts twice or counts the wrong event fails at the step that
 * shows it.
 */
#include "common.h"
#include "internal.h"

static struct mm_sim *stats_sim(void)
{
	struct mm_config cfg;

	cfg_tiny(&cfg, 2, 10, 9);
	cfg_zone(&cfg, 0, ZONE_NORMAL, 0, 1024, 1024);
	return sim_new(&cfg);
}

#define FIELD(f)                                                                                   \
	{                                                                                          \
#f, offsetof(struct mm_counter_stats, f)                                           \
	}
static const struct {
	const char *name;
	size_t off;
} fields[] = {
	FIELD(pcpu_adds),
	FIELD(pcpu_folds),
	FIELD(pcpu_sums),
	FIELD(pcpu_sum_cpus_read),
	FIELD(committed_adds),
	FIELD(committed_folds),
	FIELD(vm_enough_refused),
	FIELD(pcpu_allocs),
	FIELD(pcpu_frees),
	FIELD(list_lock_acquisitions),
	FIELD(forks),
	FIELD(forks_failed),
	FIELD(exits),
	FIELD(fork_pcpu_allocs),
	FIELD(fork_list_locks),
};
#undef FIELD

static unsigned long long field(const struct mm_counter_stats *st, size_t i)
{
	return *(const unsigned long long *)((const char *)st + fields[i].off);
}

static void expect(const struct mm_sim *sim, const struct mm_counter_stats *want, const char *step)
{
	struct mm_counter_stats got;

	mm_sim_counter_stats(sim, &got);
	for (size_t i = 0; i < ARRAY_SIZE(fields); i++)
		ck_assert_msg(field(&got, i) == field(want, i), "after %s: %s = %llu, want %llu",
			      step, fields[i].name, field(&got, i), field(want, i));
}

/* Every field is an unsigned long long of the struct, listed once above. */
START_TEST(test_stats_fields_listed)
{
	ck_assert_uint_eq(ARRAY_SIZE(fields) * sizeof(unsigned long long),
			  sizeof(struct mm_counter_stats));
}
END_TEST

/* One add of amount with the default batch (32), its fold decided by the rule. */
static void add_rss(struct mm_counter_stats *w, long long *local, long long amount)
{
	w->pcpu_adds++;
	*local += amount;
	if (*local >= 32 || -*local >= 32) {
		w->pcpu_folds++;
		*local = 0;
	}
}

/* One vm_acct_memory() with the GUESS batch (128). */
static void acct(struct mm_counter_stats *w, long long *local, long long pages)
{
	w->committed_adds++;
	w->pcpu_adds++;
	*local += pages;
	if (*local >= 128 || -*local >= 128) {
		w->committed_folds++;
		w->pcpu_folds++;
		*local = 0;
	}
}

/* A fork's mm_init(): the cid and the four rss counters at once, listed under one lock. */
static void forked(struct mm_counter_stats *w)
{
	w->forks++;
	w->pcpu_allocs += 2;
	w->fork_pcpu_allocs += 2;
	w->list_lock_acquisitions++;
	w->fork_list_locks++;
}

/* mmput() of an mm on 2 online CPUs: check_mm() sums each rss counter, one destroy_many, the cid.
 */
static void mm_freed(struct mm_counter_stats *w)
{
	w->pcpu_sums += NR_MM_COUNTERS;
	w->pcpu_sum_cpus_read += NR_MM_COUNTERS * 2;
	w->list_lock_acquisitions++;
	w->pcpu_frees += 2;
}

START_TEST(test_stats_follow_the_ops)
{
	struct mm_sim *sim = stats_sim();
	struct mm_counter_stats w = {0};
	/* CPU 0's locals: c0, vm_committed_as, m0's anon and file, m1's anon and file */
	long long c0 = 0, vc = 0, m0a = 0, m0f = 0, m1a = 0, m1f = 0;

	mm_set_current_cpu(0);
	expect(sim, &w, "boot"); /* boot's allocations are not counted */

	ck_assert_int_eq(mm_pcpu_add(sim, 0, 5, 0), 0);
	add_rss(&w, &c0, 5);
	expect(sim, &w, "c0 += 5");
	ck_assert_int_eq(mm_pcpu_add(sim, 0, 40, 0), 0); /* 45 >= 32: folds */
	add_rss(&w, &c0, 40);
	expect(sim, &w, "c0 += 40");
	ck_assert_int_eq(mm_pcpu_add(sim, 0, -3, 4), 0); /* its own batch: |-3| < 4 */
	w.pcpu_adds++;
	expect(sim, &w, "c0 -= 3, batch 4");
	ck_assert_int_eq(mm_pcpu_sum(sim, 0), 42);
	w.pcpu_sums++;
	w.pcpu_sum_cpus_read += 2;
	expect(sim, &w, "sum c0");

	/* CPU 1 dead: its locals fold under the list lock, a sum reads CPU 0 alone */
	ck_assert_int_eq(mm_cpu_offline(sim, 1), 0);
	w.list_lock_acquisitions++;
	expect(sim, &w, "cpu1 offline");
	ck_assert_int_eq(mm_pcpu_sum(sim, 0), 42);
	w.pcpu_sums++;
	w.pcpu_sum_cpus_read += 1;
	expect(sim, &w, "sum c0 on one CPU");
	ck_assert_int_eq(mm_cpu_online(sim, 1), 0);
	expect(sim, &w, "cpu1 online");

	ck_assert_int_eq(mm_fork(sim, 0, -1, 0), 0);
	forked(&w);
	expect(sim, &w, "fork m0");

	ck_assert_int_eq(mm_mmap(sim, 0, 10, MM_ANONPAGES, 0), 0);
	acct(&w, &vc, 10);
	add_rss(&w, &m0a, 10);
	expect(sim, &w, "mmap m0 10 anon");
	ck_assert_int_eq(mm_mmap(sim, 0, 200, MM_FILEPAGES, 0), 0);
	acct(&w, &vc, 200);
	add_rss(&w, &m0f, 200);
	expect(sim, &w, "mmap m0 200 file");

	/* dup_mmap(): the parent's 210 pages charged, its rss copied per type */
	ck_assert_int_eq(mm_fork(sim, 1, 0, 0), 0);
	forked(&w);
	acct(&w, &vc, 210);
	add_rss(&w, &m1f, 200);
	add_rss(&w, &m1a, 10);
	expect(sim, &w, "fork m1 from m0");

	ck_assert_int_eq(mm_munmap(sim, 1, 4, MM_ANONPAGES), 0);
	add_rss(&w, &m1a, -4);
	acct(&w, &vc, -4);
	expect(sim, &w, "munmap m1 4 anon");

	ck_assert_int_eq(mm_exit(sim, 1), 0);
	w.exits++;
	add_rss(&w, &m1f, -200);
	add_rss(&w, &m1a, -6);
	acct(&w, &vc, -206);
	mm_freed(&w);
	expect(sim, &w, "exit m1");

	/* GUESS refuses more than RAM at once: charged, then given back */
	ck_assert_int_eq(mm_vm_enough_memory(sim, 0, 1025, false), -12);
	acct(&w, &vc, 1025);
	acct(&w, &vc, -1025);
	w.vm_enough_refused++;
	expect(sim, &w, "GUESS refusal");

	/* mm_alloc_cid() fails: nothing allocated */
	ck_assert_int_eq(mm_fork(sim, 2, 0, MM_FORK_FAIL_ALLOC1), 0);
	w.forks++;
	w.forks_failed++;
	expect(sim, &w, "fork m2, cid fails");
	/* init_many fails: the cid allocated and freed again */
	ck_assert_int_eq(mm_fork(sim, 2, 0, MM_FORK_FAIL_ALLOC1 + 1), 0);
	w.forks++;
	w.forks_failed++;
	w.pcpu_allocs++;
	w.fork_pcpu_allocs++;
	w.pcpu_frees++;
	expect(sim, &w, "fork m2, init_many fails");
	/* dup_mmap fails before it charges: mmput() frees the child in the fork */
	ck_assert_int_eq(mm_fork(sim, 2, 0, MM_FORK_FAIL_DUP_MMAP), 0);
	forked(&w);
	w.forks_failed++;
	w.fork_list_locks++; /* mmput()'s destroy_many, inside the fork */
	mm_freed(&w);
	expect(sim, &w, "fork m2, dup_mmap fails");

	ck_assert_int_eq(mm_exit(sim, 0), 0);
	w.exits++;
	add_rss(&w, &m0f, -200);
	add_rss(&w, &m0a, -10);
	acct(&w, &vc, -210);
	mm_freed(&w);
	expect(sim, &w, "exit m0");

	/* nothing mapped, nothing charged: no add of 0 anywhere */
	ck_assert_int_eq(mm_fork(sim, 0, -1, 0), 0);
	forked(&w);
	expect(sim, &w, "fork m0 again");
	ck_assert_int_eq(mm_fork(sim, 1, 0, 0), 0);
	forked(&w);
	expect(sim, &w, "fork m1 from an m0 with nothing charged");
	ck_assert_int_eq(mm_munmap(sim, 1, 4, MM_SWAPENTS), 0);
	expect(sim, &w, "munmap m1 4 swap, none mapped");
	for (int m = 0; m < 2; m++) {
		ck_assert_int_eq(mm_exit(sim, m), 0);
		w.exits++;
		mm_freed(&w);
	}
	expect(sim, &w, "exit m0 and m1, nothing charged");
	ck_assert_uint_eq(mm_sim_violations(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * The per-input reset (mm_sim_init() on a used sim): the figures start
 * again with the machine built, as on a fresh one, every field at 0
 * whatever the last machine counted, then count the new machine's ops
 * alone. The last machine forks (allocations and a list lock made by
 * mm_init()), charges, adds and exits; the next one has 1, 2 or 4 CPUs.
 */
START_TEST(test_stats_start_again_at_a_reset)
{
	static const unsigned int cpus[] = {2, 1, 4};
	struct mm_sim *sim = stats_sim();
	struct mm_counter_stats zero = {0};
	struct mm_config cfg;

	mm_set_current_cpu(0);
	for (unsigned int r = 0; r < ARRAY_SIZE(cpus); r++) {
		struct mm_counter_stats w = {0};
		char step[64];

		ck_assert_int_eq(mm_fork(sim, 0, -1, 0), 0);
		ck_assert_int_eq(mm_fork(sim, 1, -1, MM_FORK_FAIL_ALLOC1), 0);
		ck_assert_int_eq(mm_mmap(sim, 0, 300, MM_ANONPAGES, 0), 0);
		ck_assert_int_eq(mm_pcpu_add(sim, 3, 100, 0), 0);
		ck_assert_int_eq(mm_pcpu_sum(sim, 3), 100);
		ck_assert_int_eq(mm_fork(sim, 2, 0, 0), 0);
		ck_assert_int_eq(mm_exit(sim, 2), 0);

		cfg_tiny(&cfg, cpus[r], 10, 9);
		cfg_zone(&cfg, 0, ZONE_NORMAL, 0, 1024, 1024);
		ck_assert_int_eq(mm_sim_init(sim, &cfg, -1), 0);
		snprintf(step, sizeof(step), "the reset to %u CPUs", cpus[r]);
		expect(sim, &zero, step);

		ck_assert_int_eq(mm_fork(sim, 0, -1, 0), 0);
		forked(&w);
		snprintf(step, sizeof(step), "a fork after the reset to %u CPUs", cpus[r]);
		expect(sim, &w, step);
		ck_assert_int_eq(mm_exit(sim, 0), 0);
	}
	ck_assert_uint_eq(mm_sim_violations(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

static Suite *counter_stats_suite(void)
{
	Suite *s = suite_create("counter_stats");
	TCase *tc = tcase_create("ledger");

	tcase_add_test(tc, test_stats_fields_listed);
	tcase_add_test(tc, test_stats_follow_the_ops);
	tcase_add_test(tc, test_stats_start_again_at_a_reset);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(counter_stats_suite());
}
