/* SPDX-License-Identifier: MIT */
/*
 * stats.h - the statistics of mmfuzz compare: mean, sample standard
 * deviation and Welch's unequal-variances t-test.
 */
#ifndef MMFUZZ_STATS_H
#define MMFUZZ_STATS_H

#include <stddef.h>

double stats_mean(const double *x, size_t n);
/* The sample standard deviation (n - 1); 0 for n < 2 */
double stats_stddev(const double *x, size_t n);
/* The regularized incomplete beta function I_x(a, b), x in [0, 1] */
double stats_betai(double a, double b, double x);
/* P(|T| >= |t|) for Student's t with df degrees of freedom */
double stats_t_two_sided(double t, double df);
/*
 * Welch's t-test of two samples: the two-sided p-value that their means
 * are equal; 1 when either has fewer than 2 values.
 */
double stats_welch_p(const double *a, size_t na, const double *b, size_t nb);

#endif
