/* SPDX-License-Identifier: MIT */
/*
 * cmd_compare.c - mmfuzz compare A.json B.json: two sets of repeated runs
 * (mmfuzz bench --json, --repeat) side by side in mmtests' compare layout:
 * per figure the mean (Amean), Stddev and CoeffVar of each, B's % change
 * from A, and '*' around it where Welch's t-test finds the means differ
 * (two-sided p < 0.05).
 */
#include "cli.h"
#include "stats.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SIGNIFICANT 0.05

/* A results file, checked: its runs, each an object of numbers */
static json_t *load(const char *path)
{
	json_error_t err;
	json_t *doc = json_load_file(path, 0, &err), *runs, *run;
	size_t i;

	if (!doc) {
		cli_usage_error("%s: %s (line %d)", path, err.text, err.line);
		return NULL;
	}
	runs = json_object_get(doc, "runs");
	if (!json_is_string(json_object_get(doc, "schema")) ||
	    strcmp(json_string_value(json_object_get(doc, "schema")), "mmfuzz-results/1") ||
	    !json_is_array(runs) || !json_array_size(runs)) {
		cli_usage_error("%s: not mmfuzz results (schema mmfuzz-results/1 with runs)", path);
		json_decref(doc);
		return NULL;
	}
	json_array_foreach(runs, i, run)
	{
		const char *key;
		json_t *v;

		if (!json_is_object(run)) {
			cli_usage_error("%s: run %zu is not an object", path, i);
			json_decref(doc);
			return NULL;
		}
		json_object_foreach(run, key, v)
		{
			if (!json_is_number(v) || !isfinite(json_number_value(v))) {
				cli_usage_error("%s: run %zu: %s is not a number", path, i, key);
				json_decref(doc);
				return NULL;
			}
		}
	}
	return doc;
}

/* The values of key over the runs that have it */
static size_t values(json_t *doc, const char *key, double *out, size_t max)
{
	json_t *runs = json_object_get(doc, "runs"), *run;
	size_t i, n = 0;

	json_array_foreach(runs, i, run)
	{
		json_t *v = json_object_get(run, key);
		if (v && n < max)
			out[n++] = json_number_value(v);
	}
	return n;
}

static double pct(double base, double x)
{
	if (base == 0)
		return x == 0 ? 0 : NAN;
	return 100.0 * (x - base) / fabs(base);
}

static void row(const char *label, const char *key, double a, double b, bool mark)
{
	printf("%-9s %-44s %12.2f (%7.2f%%) %12.2f %c%7.2f%%%c\n", label, key, a, 0.0, b,
	       mark ? '*' : '(', pct(a, b), mark ? '*' : ')');
}

static int compare(json_t *a, json_t *b, const char *name_a, const char *name_b)
{
	json_t *first = json_array_get(json_object_get(a, "runs"), 0);
	size_t cap = json_array_size(json_object_get(a, "runs")) +
		     json_array_size(json_object_get(b, "runs"));
	double *xa = malloc(cap * sizeof(double)), *xb = malloc(cap * sizeof(double));
	const char **keys = malloc((json_object_size(first) + 1) * sizeof(char *));
	size_t nk = 0, nsig = 0, missing = 0;
	const char *key;
	json_t *v;

	if (!xa || !xb || !keys) {
		free(xa);
		free(xb);
		free(keys);
		return cli_usage_error("compare: out of memory");
	}
	json_object_foreach(first, key, v) keys[nk++] = key;
	printf("%-9s %-44s %23s %23s\n", "", "", name_a, name_b);
	for (size_t k = 0; k < nk; k++) {
		size_t na = values(a, keys[k], xa, cap), nb = values(b, keys[k], xb, cap);
		if (!nb) {
			missing++;
			continue;
		}
		double ma = stats_mean(xa, na), mb = stats_mean(xb, nb);
		double sa = stats_stddev(xa, na), sb = stats_stddev(xb, nb);
		double p = stats_welch_p(xa, na, xb, nb);
		bool sig = p < SIGNIFICANT;

		nsig += sig;
		row("Amean", keys[k], ma, mb, sig);
		row("Stddev", keys[k], sa, sb, false);
		row("CoeffVar", keys[k], ma ? 100 * sa / fabs(ma) : 0, mb ? 100 * sb / fabs(mb) : 0,
		    false);
	}
	printf("\n%zu of %zu figures differ significantly (Welch's t-test, two-sided p < %.2f; "
	       "runs: %zu vs %zu)%s\n",
	       nsig, nk - missing, SIGNIFICANT, json_array_size(json_object_get(a, "runs")),
	       json_array_size(json_object_get(b, "runs")),
	       missing ? "; figures only in A are left out" : "");
	free(xa);
	free(xb);
	free(keys);
	return EXIT_CLEAN;
}

int cmd_compare(int argc, char **argv)
{
	json_t *a, *b;
	int ret;

	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")))
		return cli_command_help(argv[0]);
	if (argc != 3)
		return cli_usage_error("compare: two results files (mmfuzz compare A.json B.json)");
	if (!(a = load(argv[1])))
		return EXIT_USAGE;
	if (!(b = load(argv[2]))) {
		json_decref(a);
		return EXIT_USAGE;
	}
	ret = compare(a, b, argv[1], argv[2]);
	json_decref(a);
	json_decref(b);
	return ret;
}
