/* SPDX-License-Identifier: MIT */
/*
 * test_reset_bytes.c - what one more CPU adds to the per-input reset's
 * cost, mm_sim_reset_bytes(): the bytes mm_sim_init() wrote.
 *
 * The rule, per CPU the machine has: one per_cpu_pages and one
 * per_cpu_zonestat for each zone with a pageset (setup_per_cpu_pageset()),
 * its event counters (struct mm_cpu_stats), and for each percpu_counter
 * (the ops' MM_MAX_PCPU_COUNTERS, then vm_committed_as) its int32 local
 * and the checker's int32 batch shadow beside it, the area
 * __alloc_percpu_gfp() zeroes for that CPU. Nothing else the reset writes
 * (the zones, the memmap, the pageblock bits, the counters' state) grows
 * with the CPUs, so two machines that differ by one CPU differ by exactly
 * that. Each figure is of one mm_sim_init(): a machine rebuilt in the
 * same sim (the fuzz targets' per-input reset) counts as a fresh one.
 */
#include "common.h"
#include "internal.h"

/* Machines of 1 to MAX_CPUS CPUs, one node. */
#define MAX_CPUS 6u

static size_t per_cpu_bytes(unsigned int nr_pageset_zones)
{
	size_t pcp = sizeof(struct per_cpu_pages) + sizeof(struct per_cpu_zonestat);
	/* a local and its batch shadow, each an int32, per counter */
	size_t counters = (MM_MAX_PCPU_COUNTERS + 1) * 2 * sizeof(int32_t);

	return nr_pageset_zones * pcp + sizeof(struct mm_cpu_stats) + counters;
}

/* One node: zones DMA32 and Normal (two pagesets), or Normal alone. */
static void cfg_machine(struct mm_config *cfg, unsigned int nr_cpus, bool two_zones)
{
	cfg_tiny(cfg, nr_cpus, 3, 2);
	if (two_zones)
		cfg_zone(cfg, 0, ZONE_DMA32, 0, 256, 256);
	cfg_zone(cfg, 0, ZONE_NORMAL, two_zones ? 256 : 0, 512, 512);
}

static size_t fresh_bytes(unsigned int nr_cpus, bool two_zones)
{
	struct mm_config cfg;
	struct mm_sim *sim;
	size_t bytes;

	cfg_machine(&cfg, nr_cpus, two_zones);
	sim = sim_new(&cfg);
	bytes = mm_sim_reset_bytes(sim);
	mm_sim_destroy(sim);
	return bytes;
}

START_TEST(test_one_more_cpu)
{
	for (int two = 0; two <= 1; two++) {
		size_t want = per_cpu_bytes(two ? 2 : 1);

		for (unsigned int n = 1; n < MAX_CPUS; n++) {
			size_t a = fresh_bytes(n, two), b = fresh_bytes(n + 1, two);

			ck_assert_msg(b > a && b - a == want,
				      "%s: %u CPUs cost %zu bytes, %u cost %zu: %zd more, want %zu",
				      two ? "DMA32+Normal" : "Normal", n, a, n + 1, b,
				      (ssize_t)(b - a), want);
		}
	}
}
END_TEST

/* The per-input reset: one sim rebuilt up and down in CPUs, each figure a fresh one's. */
START_TEST(test_rebuilt_machine_counts_alike)
{
	static const unsigned int cpus[] = {1, 4, 2, 6, 1, 3};
	struct mm_config cfg;
	struct mm_sim *sim = mm_sim_create();

	ck_assert_ptr_nonnull(sim);
	for (unsigned int i = 0; i < ARRAY_SIZE(cpus); i++) {
		size_t base = fresh_bytes(1, true);

		cfg_machine(&cfg, cpus[i], true);
		ck_assert_int_eq(mm_sim_init(sim, &cfg, -1), 0);
		ck_assert_msg(mm_sim_reset_bytes(sim) == base + (cpus[i] - 1) * per_cpu_bytes(2),
			      "rebuilt with %u CPUs: %zu bytes, want %zu", cpus[i],
			      mm_sim_reset_bytes(sim), base + (cpus[i] - 1) * per_cpu_bytes(2));
	}
	mm_sim_destroy(sim);
}
END_TEST

static Suite *reset_bytes_suite(void)
{
	Suite *s = suite_create("reset_bytes");
	TCase *tc = tcase_create("mm_sim_init");

	tcase_add_test(tc, test_one_more_cpu);
	tcase_add_test(tc, test_rebuilt_machine_counts_alike);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(reset_bytes_suite());
}
