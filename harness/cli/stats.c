/* SPDX-License-Identifier: MIT */
/*
 * stats.c - Welch's t-test with the t distribution's tail from the
 * regularized incomplete beta function: P(|T| >= t) = I_{df/(df+t^2)}(df/2, 1/2),
 * I evaluated by its continued fraction (modified Lentz), on the side
 * where it converges fast (x < (a+1)/(a+b+2)), else by symmetry.
 */
#include "stats.h"

#include <math.h>

double stats_mean(const double *x, size_t n)
{
	double s = 0;

	for (size_t i = 0; i < n; i++)
		s += x[i];
	return n ? s / (double)n : 0;
}

double stats_stddev(const double *x, size_t n)
{
	double m = stats_mean(x, n), s = 0;

	if (n < 2)
		return 0;
	for (size_t i = 0; i < n; i++)
		s += (x[i] - m) * (x[i] - m);
	return sqrt(s / (double)(n - 1));
}

/* The continued fraction of I_x(a, b) without its prefactor */
static double beta_cf(double a, double b, double x)
{
	const double tiny = 1e-300, eps = 1e-15;
	double c = 1, d = 1 - (a + b) * x / (a + 1), h;

	if (fabs(d) < tiny)
		d = tiny;
	d = 1 / d;
	h = d;
	for (int m = 1; m <= 1000; m++) {
		double m2 = 2.0 * m;
		/* the even step, then the odd one */
		double num = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
		for (int odd = 0; odd < 2; odd++) {
			d = 1 + num * d;
			c = 1 + num / c;
			if (fabs(d) < tiny)
				d = tiny;
			if (fabs(c) < tiny)
				c = tiny;
			d = 1 / d;
			h *= d * c;
			num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
		}
		if (fabs(d * c - 1) < eps)
			break;
	}
	return h;
}

double stats_betai(double a, double b, double x)
{
	double front;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
	if (x < (a + 1) / (a + b + 2))
		return front * beta_cf(a, b, x) / a;
	return 1 - front * beta_cf(b, a, 1 - x) / b;
}

double stats_t_two_sided(double t, double df)
{
	return stats_betai(df / 2, 0.5, df / (df + t * t));
}

double stats_welch_p(const double *a, size_t na, const double *b, size_t nb)
{
	double ma, mb, va, vb, se2, df;

	if (na < 2 || nb < 2)
		return 1;
	ma = stats_mean(a, na);
	mb = stats_mean(b, nb);
	va = stats_stddev(a, na);
	vb = stats_stddev(b, nb);
	va = va * va / (double)na;
	vb = vb * vb / (double)nb;
	se2 = va + vb;
	if (se2 == 0) /* both constant: equal or certainly different */
		return ma == mb ? 1 : 0;
	df = se2 * se2 / (va * va / (double)(na - 1) + vb * vb / (double)(nb - 1));
	return stats_t_two_sided((ma - mb) / sqrt(se2), df);
}
