/* SPDX-License-Identifier: MIT */
/*
 * test_counter_locals.c - the public reads of one CPU's local
 * (mm_pcpu_local, mm_vm_committed_local, mm_rss_local) over every CPU of
 * the machine and one past each end. The harness and the tests judge the
 * fold rules through them, so a read that drops a CPU (the first, the
 * last) or answers for one that is not there would blind them: each CPU
 * is given a local of its own (cpu + 1, never folded), each read must
 * return exactly it, and -1 and nr_cpus must read 0.
 */
#include "common.h"
#include "internal.h"

#define NR_CPUS 4

static struct mm_sim *locals_sim(void)
{
	struct mm_config cfg;

	cfg_tiny(&cfg, NR_CPUS, 10, 9);
	cfg_zone(&cfg, 0, ZONE_NORMAL, 0, 1024, 1024);
	return sim_new(&cfg);
}

/* What CPU cpu's local must read: its own cpu + 1, nothing for a CPU that is not there. */
static long long want_local(int cpu)
{
	return cpu >= 0 && cpu < NR_CPUS ? cpu + 1 : 0;
}

START_TEST(test_locals_every_cpu)
{
	struct mm_sim *sim = locals_sim();

	ck_assert_int_eq(mm_fork(sim, 2, -1, 0), 0);
	for (int cpu = 0; cpu < NR_CPUS; cpu++) {
		mm_set_current_cpu(cpu);
		ck_assert_int_eq(mm_pcpu_add(sim, 7, cpu + 1, 32), 0);
		/* GUESS's batch here is 1024 / 4 / 4 = 64, the rss batch 32: no fold */
		ck_assert_int_eq(mm_mmap(sim, 2, (unsigned long)cpu + 1, MM_SHMEMPAGES, 0), 0);
	}
	mm_set_current_cpu(0);
	for (int cpu = -1; cpu <= NR_CPUS; cpu++) {
		ck_assert_msg(mm_pcpu_local(sim, 7, cpu) == want_local(cpu), "c7 cpu %d: %lld", cpu,
			      mm_pcpu_local(sim, 7, cpu));
		ck_assert_msg(mm_vm_committed_local(sim, cpu) == want_local(cpu),
			      "vm_committed_as cpu %d: %lld", cpu, mm_vm_committed_local(sim, cpu));
		ck_assert_msg(mm_rss_local(sim, 2, MM_SHMEMPAGES, cpu) == want_local(cpu),
			      "m2 shmem cpu %d: %lld", cpu,
			      mm_rss_local(sim, 2, MM_SHMEMPAGES, cpu));
	}
	/* the other counters and types hold nothing */
	ck_assert_int_eq(mm_pcpu_local(sim, 6, 0), 0);
	ck_assert_int_eq(mm_rss_local(sim, 2, MM_ANONPAGES, 0), 0);
	ck_assert_int_eq(mm_pcpu_sum(sim, 7), 10);
	ck_assert_int_eq(mm_vm_committed_sum(sim), 10);
	ck_assert_int_eq(mm_rss_sum(sim, 2, MM_SHMEMPAGES), 10);
	ck_assert_uint_eq(mm_sim_violations(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

static Suite *counter_locals_suite(void)
{
	Suite *s = suite_create("counter_locals");
	TCase *tc = tcase_create("locals");

	tcase_add_test(tc, test_locals_every_cpu);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(counter_locals_suite());
}
