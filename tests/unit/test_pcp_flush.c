/* SPDX-License-Identifier: MIT */
/*
 * test_pcp_flush.c - the checks of a pcp flush (free_pcppages_bulk()) at
 * their edges, where no correct flush goes:
 *
 *   INV-PCP-FLUSH: asked for expect pages, a flush frees whole blocks of
 *   order <= PAGE_ALLOC_COSTLY_ORDER until expect is met: at least expect,
 *   at most expect + 7 (a last order-3 block taken for one page).
 */
#include "common.h"
#include "internal.h"

/* The bound over a grid: ok iff expect <= freed <= expect + 2^3 - 1. */
START_TEST(test_flush_count_bound)
{
	static const int expects[] = {1, 2, 7, 8, 31, 63, 1000};

	for (size_t i = 0; i < ARRAY_SIZE(expects); i++) {
		int expect = expects[i];

		for (int freed = expect - 2; freed <= expect + 10; freed++) {
			bool want = freed >= expect && freed <= expect + 7;

			ck_assert_msg(_mm_pcp_flush_count_ok(expect, freed) == want,
				      "asked %d, freed %d: %s, want %s", expect, freed,
				      want ? "refused" : "accepted", want ? "accepted" : "refused");
		}
	}
}
END_TEST

static Suite *pcp_flush_suite(void)
{
	Suite *s = suite_create("pcp_flush");
	TCase *tc = tcase_create("checks");

	tcase_add_test(tc, test_flush_count_bound);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(pcp_flush_suite());
}
