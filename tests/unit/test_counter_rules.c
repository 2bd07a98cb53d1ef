/* SPDX-License-Identifier: MIT */
/*
 * test_counter_rules.c - decision tables for the counters' kernel rules,
 * each over its input grid, with the rule written out here rather than
 * asked of the model:
 *
 *   mm_compute_batch() (mm/util.c):  nr = num_present_cpus() (never 0: the
 *     boot CPU), max(2 * nr, 32, min(ram / nr / (NEVER ? 256 : 4), INT_MAX))
 */
#include "common.h"
#include "internal.h"

#include <limits.h>

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

				/* every 4 * nr pages one step of the rule, and the page before it
				 */
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

static Suite *counter_rules_suite(void)
{
	Suite *s = suite_create("counter_rules");
	TCase *tc = tcase_create("rules");

	tcase_add_test(tc, test_commit_batch_rule_grid);
	tcase_add_test(tc, test_commit_batch_no_cpus_is_one);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(counter_rules_suite());
}
