/* SPDX-License-Identifier: MIT */
/*
 * test_vmstat.c - the vmstat thresholds: calculate_normal_threshold() and
 * calculate_pressure_threshold() against values worked out by hand,
 * refresh on CPU hotplug, and the percpu_drift_mark rule. The real
 * /proc/zoneinfo samples' "vm stats threshold" lines are checked with the
 * rest of their pagesets in test_zoneinfo.c.
 */
#include "common.h"
#include "internal.h"

#include <check.h>
#include <stdlib.h>

static struct mm_sim *normal_machine(unsigned int cpus, uint64_t pages, unsigned int mfk)
{
	struct mm_config cfg;

	mm_config_init(&cfg);
	cfg.cpus_per_node[0] = cpus;
	cfg.min_free_kbytes = mfk;
	cfg.zones[0][ZONE_NORMAL] = (struct mm_zone_config){0, pages, pages, pages};
	return sim_new(&cfg);
}

static int threshold_of(const struct mm_sim *sim, int cpu)
{
	struct mm_pcp_info pi;

	ck_assert_int_eq(mm_pcp_info(sim, 0, ZONE_NORMAL, cpu, &pi), 0);
	return pi.stat_threshold;
}

/*
 * 2 * fls(cpus) * (1 + fls(managed >> 15)), at most 125:
 *   2 CPUs, 262144 pages (1 GB): mem 8, fls 4  -> 2*2*5 = 20
 *   2 CPUs, 1048576 (4 GB):      mem 32, fls 6 -> 2*2*7 = 28
 *   8 CPUs, 262144:              fls(8) 4      -> 2*4*5 = 40
 *   64 CPUs, 1048576:            fls(64) 7     -> 2*7*7 = 98 (kernel-semantics.md §1)
 *   64 CPUs, 4194304 (16 GB):    mem 128, fls 8 -> 2*7*9 = 126 -> 125
 *   1 CPU, 1024 pages:           mem 0         -> 2*1*1 = 2
 */
START_TEST(test_normal_threshold_table)
{
	static const struct {
		unsigned int cpus;
		uint64_t pages;
		int want;
	} t[] = {{2, 262144, 20},   {2, 1048576, 28},	{8, 262144, 40},
		 {64, 1048576, 98}, {64, 4194304, 125}, {1, 1024, 2}};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct mm_sim *sim = normal_machine(t[i].cpus, t[i].pages, 0);
		for (unsigned int cpu = 0; cpu < t[i].cpus; cpu++)
			ck_assert_msg(threshold_of(sim, (int)cpu) == t[i].want,
				      "%u CPUs, %llu pages: cpu %u threshold %d, want %d",
				      t[i].cpus, (unsigned long long)t[i].pages, cpu,
				      threshold_of(sim, (int)cpu), t[i].want);
		mm_sim_destroy(sim);
	}
}
END_TEST

/*
 * (low - min) / online CPUs, clamped to [1, 125]. min_free_kbytes 4096 on
 * one 262144-page zone: min = 1024, gap = max(1024 >> 2, 262144 * 10 / 10000)
 * = 262, so low - min = 262: 2 CPUs -> 131 -> 125; 8 CPUs -> 32; 64 -> 4.
 */
START_TEST(test_pressure_threshold)
{
	static const struct {
		unsigned int cpus;
		int want;
	} t[] = {{2, 125}, {8, 32}, {64, 4}};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct mm_sim *sim = normal_machine(t[i].cpus, 262144, 4096);
		struct zone *z = &sim->node_data[0]->node_zones[ZONE_NORMAL];
		ck_assert_int_eq(calculate_pressure_threshold(z), t[i].want);
		mm_sim_destroy(sim);
	}
}
END_TEST

/*
 * The drift mark is set when online CPUs * threshold > low - min: on 64
 * CPUs and 1048576 pages with min_free_kbytes 4096, threshold 98, max drift
 * 6272; min = 1024, gap = max(256, 1048) = 1048: high = 3120, mark = 9392.
 * On 2 CPUs the drift (2 * 28 = 56) fits in the gap: no mark.
 */
START_TEST(test_drift_mark)
{
	struct mm_sim *sim = normal_machine(64, 1048576, 4096);

	ck_assert_uint_eq(mm_zone_drift_mark(sim, 0, ZONE_NORMAL), 3120 + 64 * 98);
	mm_sim_destroy(sim);
	sim = normal_machine(2, 1048576, 4096);
	ck_assert_uint_eq(mm_zone_drift_mark(sim, 0, ZONE_NORMAL), 0);
	mm_sim_destroy(sim);
}
END_TEST

/* vmstat_cpu_dead(): fewer CPUs, smaller thresholds: 4 -> 3 CPUs is fls 3 -> 2. */
START_TEST(test_refresh_on_hotplug)
{
	struct mm_sim *sim = normal_machine(4, 262144, 0);

	ck_assert_int_eq(threshold_of(sim, 0), 2 * 3 * 5);
	ck_assert_int_eq(mm_cpu_offline(sim, 3), 0);
	ck_assert_int_eq(threshold_of(sim, 0), 2 * 2 * 5);
	ck_assert_int_eq(mm_cpu_online(sim, 3), 0);
	ck_assert_int_eq(threshold_of(sim, 3), 2 * 3 * 5);
	mm_sim_destroy(sim);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("vmstat");
	TCase *tc = tcase_create("thresholds");

	tcase_add_test(tc, test_normal_threshold_table);
	tcase_add_test(tc, test_pressure_threshold);
	tcase_add_test(tc, test_drift_mark);
	tcase_add_test(tc, test_refresh_on_hotplug);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
