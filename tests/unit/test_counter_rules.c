/* SPDX-License-Identifier: MIT */
/*
 * test_counter_rules.c - decision tables for the counters' kernel rules,
 * each over its input grid, with the rule written out here rather than
 * asked of the model:
 *
 *   mm_compute_batch() (mm/util.c):  nr = num_present_cpus() (never 0: the
 *     boot CPU), max(2 * nr, 32, min(ram / nr / (NEVER ? 256 : 4), INT_MAX))
 *   __vm_enough_memory() under OVERCOMMIT_NEVER (mm/util.c): admitted iff
 *     the counter's read stays below ram * 50 / 100, less the admin reserve
 *     min(ram / 32, 2048) unless CAP_SYS_ADMIN, less min(total_vm / 32,
 *     the user reserve min(ram / 32, 32768))
 *   percpu_counter_add_batch() (lib/percpu_counter.c): the local takes the
 *     amount unless |local + amount| >= batch, then all of it is folded; a
 *     local of batch - 1 is within every bound the checks hold it to
 */
#include "common.h"
#include "internal.h"

#include <errno.h>
#include <limits.h>
#include <string.h>

/* ------------------------------------------------------------------------
 * mm_compute_batch()
 * ---------------------------------------------------------------------- */

static int rule_commit_batch(unsigned int cpus, unsigned long ram, int policy)
{
	unsigned long long nr = cpus ? cpus : 1;
	unsigned long long floor = 2 * nr > 32 ? 2 * nr : 32;
	unsigned long long memsized = ram / nr / (policy == MM_OVERCOMMIT_NEVER ? 256 : 4);

	if (memsized > INT_MAX)
		memsized = INT_MAX;
	return (int)(memsized > floor ? memsized : floor);
}

/*
 * Per CPU count, the RAM at each edge of the rule: where 2 * nr passes 32,
 * where RAM per CPU passes the floor under each divisor, where it passes
 * INT_MAX; one page either side of each.
 */
START_TEST(test_commit_batch_rule_grid)
{
	static const unsigned int cpus[] = {0, 1, 2, 3, 15, 16, 17, 33, 64, 255, 256};
	static const int policies[] = {MM_OVERCOMMIT_GUESS, MM_OVERCOMMIT_ALWAYS,
				       MM_OVERCOMMIT_NEVER};
	unsigned long n_checked = 0;

	for (size_t c = 0; c < ARRAY_SIZE(cpus); c++) {
		unsigned long nr = cpus[c] ? cpus[c] : 1;
		unsigned long floor = 2 * nr > 32 ? 2 * nr : 32;
		unsigned long edges[] = {
			0,
			1,
			nr * 4 * floor,
			nr * 256 * floor,
			nr * 4 * 32,
			nr * 256 * 32,
			nr * 4 * (unsigned long)INT_MAX,
			nr * 256 * (unsigned long)INT_MAX,
			nr * 4 * ((unsigned long)INT_MAX + 1),
			nr * 256 * ((unsigned long)INT_MAX + 1),
		};
		for (size_t e = 0; e < ARRAY_SIZE(edges); e++) {
			for (long d = -(long)nr * 256 - 1; d <= (long)nr * 256; d++) {
				unsigned long ram = edges[e] + (unsigned long)d;

				/* each step of ram / nr / 4, and the page before it */
				if ((d < 0 && edges[e] < (unsigned long)-d) ||
				    ((d + 1) % (long)(4 * nr) != 0 && d % (long)(4 * nr) != 0))
					continue;
				for (size_t p = 0; p < ARRAY_SIZE(policies); p++) {
					int got = mm_compute_batch_for(cpus[c], ram, policies[p]);
					int want = rule_commit_batch(cpus[c], ram, policies[p]);

					ck_assert_msg(got == want,
						      "%u CPUs, %lu pages, policy %d: %d, want %d",
						      cpus[c], ram, policies[p], got, want);
					n_checked++;
				}
			}
		}
	}
	ck_assert_uint_gt(n_checked, 10000);
}
END_TEST

/* A machine with none present has no batch: num_present_cpus() counts the boot CPU. */
START_TEST(test_commit_batch_no_cpus_is_one)
{
	for (unsigned long ram = 0; ram < (1UL << 22); ram = ram * 3 + 1)
		for (int policy = MM_OVERCOMMIT_GUESS; policy <= MM_OVERCOMMIT_NEVER; policy++)
			ck_assert_int_eq(mm_compute_batch_for(0, ram, policy),
					 mm_compute_batch_for(1, ram, policy));
}
END_TEST

/* ------------------------------------------------------------------------
 * __vm_enough_memory() under NEVER
 * ---------------------------------------------------------------------- */

static long rule_never_allowed(unsigned long ram, unsigned long total_vm, bool cap_sys_admin)
{
	long allowed = (long)(ram * 50 / 100);
	long admin = (long)(ram / 32 < 2048 ? ram / 32 : 2048);
	long user = (long)(ram / 32 < 32768 ? ram / 32 : 32768);
	long vm = (long)(total_vm / 32);

	if (!cap_sys_admin)
		allowed -= admin;
	return allowed - (vm < user ? vm : user);
}

/* One Normal zone of ram managed pages (spanned rounded up to a max_order block) on 2 CPUs. */
static struct mm_sim *ram_sim(unsigned long ram)
{
	struct mm_config cfg;
	uint64_t spanned = (ram + 1023) & ~UINT64_C(1023);

	cfg_tiny(&cfg, 2, 10, 9);
	cfg_zone(&cfg, 0, ZONE_NORMAL, 0, spanned, ram);
	return sim_new(&cfg);
}

/*
 * The admission's edge for RAM around each reserve's cap (2048 pages at
 * 65536, 32768 at 1048576), total_vm none, below and past the user
 * reserve, with and without CAP_SYS_ADMIN: the charge of allowed pages is
 * refused (and given back), one page less is admitted. Each charge is a
 * batch or more, so it folds and the read is exact.
 */
START_TEST(test_never_admission_edge)
{
	static const unsigned long rams[] = {65504, 65536, 65568, 1048544, 1048576, 1048608};
	unsigned long ram = rams[_i];
	unsigned long user = ram / 32 < 32768 ? ram / 32 : 32768;
	/* total_vm: none, rounded down, either side of the user reserve, past any */
	unsigned long vms[] = {0,	  32 * 1000 + 31, 32 * user - 1,
			       32 * user, 32 * user + 32, 1UL << 40};

	for (size_t v = 0; v < ARRAY_SIZE(vms); v++) {
		for (int cap = 0; cap < 2; cap++) {
			struct mm_sim *sim = ram_sim(ram);
			long allowed = rule_never_allowed(ram, vms[v], cap);

			sim->serial = true;
			mm_set_current_cpu(0);
			ck_assert_uint_eq(mm_vm_commit_limit(sim), ram / 2);
			ck_assert_int_eq(mm_set_overcommit_memory(sim, MM_OVERCOMMIT_NEVER), 0);
			ck_assert_int_le(mm_vm_committed_as_batch(sim), allowed - 1);
			ck_assert_msg(mm_vm_enough_memory(sim, vms[v], allowed, cap) == -ENOMEM,
				      "%lu pages, total_vm %lu, admin %d: %ld pages admitted", ram,
				      vms[v], cap, allowed);
			ck_assert_int_eq(mm_vm_committed_sum(sim), 0);
			ck_assert_msg(mm_vm_enough_memory(sim, vms[v], allowed - 1, cap) == 0,
				      "%lu pages, total_vm %lu, admin %d: %ld pages refused", ram,
				      vms[v], cap, allowed - 1);
			ck_assert_int_eq(mm_vm_committed_sum(sim), allowed - 1);
			ck_assert_uint_eq(mm_sim_violations(sim), 0);
			mm_sim_destroy(sim);
		}
	}
}
END_TEST

/*
 * INV-COMMIT-NEVER's bound is tight: an admission leaves the exact total
 * at most allowed - 1 + (batch - 1) per online CPU, and a run can sit on
 * it. CPU 0 charges allowed - 1 pages (they fold: read = allowed - 1),
 * then each CPU charges batch - 1 (they stay in its local): each is
 * admitted (the read stays below allowed), and the last leaves the exact
 * total at the bound itself, which is no violation.
 */
START_TEST(test_never_bound_reached_exactly)
{
	unsigned long ram = 65536;
	struct mm_sim *sim = ram_sim(ram);
	long allowed = rule_never_allowed(ram, 0, false);

	sim->serial = true;
	mm_set_current_cpu(0);
	ck_assert_int_eq(mm_set_overcommit_memory(sim, MM_OVERCOMMIT_NEVER), 0);
	long batch = mm_vm_committed_as_batch(sim);
	ck_assert_int_eq(mm_vm_enough_memory(sim, 0, allowed - 1, false), 0);
	for (int cpu = 0; cpu < 2; cpu++) {
		mm_set_current_cpu(cpu);
		ck_assert_int_eq(mm_vm_enough_memory(sim, 0, batch - 1, false), 0);
		ck_assert_int_eq(mm_vm_committed_local(sim, cpu), batch - 1);
	}
	ck_assert_int_eq(mm_vm_committed_sum(sim), allowed - 1 + 2 * (batch - 1));
	ck_assert_uint_eq(mm_sim_violations(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

/* ------------------------------------------------------------------------
 * percpu_counter_add_batch() and the drift bounds
 * ---------------------------------------------------------------------- */

static struct mm_sim *serial_sim(void)
{
	struct mm_config cfg;
	struct mm_sim *sim;

	cfg_tiny(&cfg, 2, 10, 9);
	cfg_zone(&cfg, 0, ZONE_NORMAL, 0, 1024, 1024);
	sim = sim_new(&cfg);
	sim->serial = true; /* the per-op checks judge serial runs */
	return sim;
}

/*
 * Every (batch, local, amount) with the local and the amount within two
 * of the batch either way: the add folds exactly when |local + amount|
 * reaches the batch, leaves the sum exact, and the serial per-op check
 * (INV-PCPU-DRIFT, -SUM) finds nothing in a local the rule allows, the
 * edge batch - 1 included.
 */
START_TEST(test_add_batch_rule_grid)
{
	static const int batches[] = {1, 2, 3, 8, 32, 1000};
	struct mm_sim *sim = serial_sim();
	struct vrec vr;

	sim_record(sim, &vr);
	for (size_t b = 0; b < ARRAY_SIZE(batches); b++) {
		int batch = batches[b];

		for (int local = -(batch - 1); local <= batch - 1; local++) {
			if (batch > 8 && local > -(batch - 3) && local < batch - 3 && local != 0)
				continue; /* the edges and 0 are what the rule turns on */
			for (int amount = -batch - 2; amount <= batch + 2; amount++) {
				long long sum = local + amount;
				bool fold = sum >= batch || -sum >= batch;

				mm_set_current_cpu(0);
				mm_pcpu_set(sim, 3, 1000);
				mm_set_current_cpu(1);
				if (local)
					ck_assert_int_eq(mm_pcpu_add(sim, 3, local, batch), 0);
				ck_assert_int_eq(mm_pcpu_local(sim, 3, 1), local);
				ck_assert_int_eq(mm_pcpu_read(sim, 3), 1000);
				ck_assert_int_eq(mm_pcpu_add(sim, 3, amount, batch), 0);
				ck_assert_msg(mm_pcpu_local(sim, 3, 1) == (fold ? 0 : sum) &&
						      mm_pcpu_read(sim, 3) ==
							      1000 + (fold ? sum : 0),
					      "batch %d, local %d, + %d: local %lld read %lld",
					      batch, local, amount, mm_pcpu_local(sim, 3, 1),
					      mm_pcpu_read(sim, 3));
				ck_assert_int_eq(mm_pcpu_local(sim, 3, 0), 0);
				ck_assert_int_eq(mm_pcpu_sum(sim, 3), 1000 + sum);
				ck_assert_msg(vr.n == 0, "batch %d, local %d, + %d: %s", batch,
					      local, amount, vr.first);
			}
		}
	}
	mm_sim_destroy(sim);
}
END_TEST

/*
 * Under NEVER (batch 32 on 2 CPUs, 1024 pages) the switch's sync promises
 * each local of vm_committed_as at most 31: one CPU holding +31 and the
 * other -31 is the edge, no INV-COMMIT-DRIFT (nor INV-PCPU-DRIFT of the
 * rss counters holding the same); one page more on CPU 0 folds.
 */
START_TEST(test_commit_drift_edge)
{
	struct mm_sim *sim = serial_sim();
	struct vrec vr;

	sim_record(sim, &vr);
	mm_set_current_cpu(0);
	ck_assert_int_eq(mm_set_overcommit_memory(sim, MM_OVERCOMMIT_NEVER), 0);
	ck_assert_int_eq(mm_vm_committed_as_batch(sim), 32);
	ck_assert_int_eq(mm_fork(sim, 0, -1, 0), 0);
	ck_assert_int_eq(mm_mmap(sim, 0, 31, MM_ANONPAGES, 0), 0);
	mm_set_current_cpu(1);
	ck_assert_int_eq(mm_munmap(sim, 0, 31, MM_ANONPAGES), 0);
	ck_assert_int_eq(mm_vm_committed_local(sim, 0), 31);
	ck_assert_int_eq(mm_vm_committed_local(sim, 1), -31);
	ck_assert_int_eq(mm_rss_local(sim, 0, MM_ANONPAGES, 0), 31);
	ck_assert_int_eq(mm_rss_local(sim, 0, MM_ANONPAGES, 1), -31);
	ck_assert_uint_eq(_mm_committed_check(sim), 0);
	sim->pcc->touched = true;
	ck_assert_uint_eq(mm_check_counters_full(sim), 0);
	ck_assert_msg(vr.n == 0, "%s", vr.first);
	/* one more page on CPU 0 folds its local: 32 reaches the batch */
	mm_set_current_cpu(0);
	ck_assert_int_eq(mm_mmap(sim, 0, 1, MM_ANONPAGES, 0), 0);
	ck_assert_int_eq(mm_vm_committed_local(sim, 0), 0);
	ck_assert_int_eq(mm_vm_committed_read(sim), 32);
	ck_assert_int_eq(mm_vm_committed_sum(sim), 1);
	ck_assert_uint_eq(mm_check_counters_full(sim), 0);
	ck_assert_msg(vr.n == 0, "%s", vr.first);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * An add that read the GUESS batch (128 here) before the switch to NEVER
 * published its batch of 32, and charges after the switch: its local may
 * hold up to 127, and INV-COMMIT-DRIFT's bound follows the largest batch
 * added with since the switch, not the NEVER batch alone. That window is
 * a race between threads; the test opens it by putting the GUESS batch
 * back for one add, run as under threads (no per-op check sees the batch
 * out of place), and closes it before checking. 100 pages stay in CPU 0's
 * local, which no check may report; an add with the NEVER batch folds.
 */
START_TEST(test_never_bound_follows_an_old_batch)
{
	struct mm_sim *sim = serial_sim();
	struct vrec vr;
	int guess = mm_vm_committed_as_batch(sim);

	sim_record(sim, &vr);
	mm_set_current_cpu(0);
	ck_assert_int_eq(guess, rule_commit_batch(2, 1024, MM_OVERCOMMIT_GUESS));
	ck_assert_int_eq(mm_set_overcommit_memory(sim, MM_OVERCOMMIT_NEVER), 0);
	ck_assert_int_eq(mm_vm_committed_as_batch(sim),
			 rule_commit_batch(2, 1024, MM_OVERCOMMIT_NEVER));
	ck_assert_int_eq(mm_fork(sim, 0, -1, 0), 0);
	sim->serial = false;
	sim->pcc->vm_committed_as_batch = guess;
	ck_assert_int_eq(mm_mmap(sim, 0, 100, MM_ANONPAGES, 0), 0);
	sim->pcc->vm_committed_as_batch = rule_commit_batch(2, 1024, MM_OVERCOMMIT_NEVER);
	sim->serial = true;
	ck_assert_int_eq(mm_vm_committed_local(sim, 0), 100);
	ck_assert_uint_eq(_mm_committed_check(sim), 0);
	ck_assert_msg(vr.n == 0, "%s", vr.first);
	ck_assert_int_eq(mm_mmap(sim, 0, 1, MM_ANONPAGES, 0), 0);
	ck_assert_int_eq(mm_vm_committed_local(sim, 0), 0);
	ck_assert_uint_eq(_mm_committed_check(sim), 0);
	ck_assert_msg(vr.n == 0, "%s", vr.first);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * INV-PCPU-DRIFT's bound over its grid: a CPU that added with batch b
 * since its last fold (b = 0: none) may hold |local| <= b - 1, never
 * more. Counter c5's local on CPU 1 is set to every value within two of
 * the bound, the count moved the other way so the sum stays exact: the
 * per-counter check reports exactly the locals past the bound (one
 * INV-PCPU-DRIFT, on CPU 1), and the grouped check of the ops' counters
 * passes exactly the others, so neither a looser nor a tighter bound, nor
 * a group that falls back to the slow check on a good state, goes unseen.
 */
START_TEST(test_drift_bound_grid)
{
	static const int batches[] = {0, 1, 2, 32};
	struct mm_sim *sim = serial_sim();
	struct percpu_counter *c = sim->pcc->ctr, *fbc = &c[5];
	int32_t *local = &fbc->counters[1 * fbc->stride];
	struct vrec vr;

	sim_record(sim, &vr);
	mm_set_current_cpu(1);
	for (size_t b = 0; b < ARRAY_SIZE(batches); b++) {
		int batch = batches[b];

		mm_pcpu_set(sim, 5, 0);
		if (batch)
			ck_assert_int_eq(mm_pcpu_add(sim, 5, batch > 1 ? 1 : 0, batch), 0);
		for (int l = -batch - 2; l <= batch + 2; l++) {
			bool over = (l < 0 ? -l : l) > (batch ? batch - 1 : 0);
			int32_t keep = *local;

			*local = l;
			fbc->count += keep - l;
			vrec_init(&vr);
			ck_assert_msg(_mm_pcpu_group_ok(sim, c, MM_MAX_PCPU_COUNTERS) == !over,
				      "batch %d, local %d: grouped check says %s", batch, l,
				      over ? "good" : "bad");
			ck_assert_msg(_mm_pcpu_check_counter(sim, fbc, "c", 5) == (over ? 1u : 0u),
				      "batch %d, local %d: %u reports", batch, l, vr.n);
			if (over)
				ck_assert_msg(!strcmp(vr.id[0], "INV-PCPU-DRIFT") &&
						      strstr(vr.first, "cpu=1"),
					      "batch %d, local %d: %s", batch, l, vr.first);
			*local = keep;
			fbc->count -= keep - l;
		}
	}
	mm_sim_destroy(sim);
}
END_TEST

static Suite *counter_rules_suite(void)
{
	Suite *s = suite_create("counter_rules");
	TCase *tc = tcase_create("rules");

	tcase_add_test(tc, test_commit_batch_rule_grid);
	tcase_add_test(tc, test_commit_batch_no_cpus_is_one);
	tcase_add_loop_test(tc, test_never_admission_edge, 0, 6);
	tcase_add_test(tc, test_never_bound_reached_exactly);
	tcase_add_test(tc, test_add_batch_rule_grid);
	tcase_add_test(tc, test_commit_drift_edge);
	tcase_add_test(tc, test_never_bound_follows_an_old_batch);
	tcase_add_test(tc, test_drift_bound_grid);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(counter_rules_suite());
}
