/* SPDX-License-Identifier: MIT */
/*
 * test_stats.c - mmfuzz compare's statistics (harness/cli/stats.c)
 * against tabled values of Student's t and the incomplete beta function.
 */
#include "common.h"
#include "stats.h"

#include <check.h>
#include <math.h>

/* Two-sided 5% critical values: t(0.975, df) from the standard tables */
START_TEST(test_t_critical_values)
{
	static const struct {
		double df, t;
	} tab[] = {{1, 12.7062}, {2, 4.3027},  {5, 2.5706},
		   {10, 2.2281}, {30, 2.0423}, {1e6, 1.9600}};

	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++) {
		double p = stats_t_two_sided(tab[i].t, tab[i].df);
		ck_assert_msg(fabs(p - 0.05) < 2e-5, "df %g t %g: p %.6f", tab[i].df, tab[i].t, p);
	}
	ck_assert(fabs(stats_t_two_sided(0, 7) - 1) < 1e-12);
	/* t(0.995, 10) = 3.1693: 1% two-sided */
	ck_assert(fabs(stats_t_two_sided(3.1693, 10) - 0.01) < 1e-5);
}
END_TEST

START_TEST(test_betai)
{
	/* I_x(1, 1) = x; I_x(a, 1) = x^a; I_0.5(a, a) = 0.5 */
	ck_assert(fabs(stats_betai(1, 1, 0.3) - 0.3) < 1e-12);
	ck_assert(fabs(stats_betai(3, 1, 0.7) - pow(0.7, 3)) < 1e-12);
	ck_assert(fabs(stats_betai(4.5, 4.5, 0.5) - 0.5) < 1e-12);
	ck_assert(stats_betai(2, 3, 0) == 0 && stats_betai(2, 3, 1) == 1);
}
END_TEST

START_TEST(test_welch)
{
	/*
	 * Welch's statistic t = -2.0740 with df = 10.209 for these samples; the
	 * tail, by Simpson's rule over the t density (200000 steps): p = 0.064280
	 */
	static const double a[] = {19.8, 20.4, 19.6, 17.8, 18.5, 18.9, 18.3, 18.9, 19.5, 22.0};
	static const double b[] = {28.2, 26.6, 20.1, 23.3, 25.2, 22.1, 17.7, 27.6, 20.6, 13.7};
	double p = stats_welch_p(a, 10, b, 10);
	double same[] = {1, 2, 3}, c1[] = {5, 5}, c2[] = {6, 6};

	ck_assert_msg(fabs(p - 0.064280) < 1e-5, "p %.6f", p);
	ck_assert(stats_welch_p(same, 3, same, 3) > 0.99);
	ck_assert(stats_welch_p(c1, 2, c2, 2) == 0);
	ck_assert(stats_welch_p(c1, 2, c1, 2) == 1);
	ck_assert(stats_welch_p(same, 1, same, 3) == 1);
	ck_assert(fabs(stats_stddev(same, 3) - 1) < 1e-12);
}
END_TEST

static Suite *stats_suite(void)
{
	Suite *s = suite_create("stats");
	TCase *tc = tcase_create("t");

	tcase_add_test(tc, test_t_critical_values);
	tcase_add_test(tc, test_betai);
	tcase_add_test(tc, test_welch);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(stats_suite());
}
