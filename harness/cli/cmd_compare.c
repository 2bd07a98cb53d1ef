/* SPDX-License-Identifier: MIT */
/*
 * cmd_compare.c - mmfuzz compare A.json B.json: two sets of repeated runs
 * (mmfuzz bench --json --repeat; stress or explore --json, one file a run:
 * A1.json A2.json -- B1.json B2.json pools each side's files) side by
 * side in mmtests' compare layout:
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

/* One side: its files' runs pooled into the first file's document; the tools must agree */
static json_t *load_side(char **files, int n)
{
	json_t *side = load(files[0]);
	const char *tool = side ? json_string_value(json_object_get(side, "tool")) : NULL;

	for (int i = 1; side && i < n; i++) {
		json_t *more = load(files[i]);
		const char *t = more ? json_string_value(json_object_get(more, "tool")) : NULL;

		if (more && (!tool || !t || strcmp(tool, t)))
			cli_usage_error("compare: %s holds %s results, %s %s results", files[0],
					tool ? tool : "unnamed", files[i], t ? t : "unnamed");
		else if (more && !json_array_extend(json_object_get(side, "runs"),
						    json_object_get(more, "runs"))) {
			json_decref(more);
			continue;
		}
		json_decref(more);
		json_decref(side);
		side = NULL;
	}
	return side;
}

/* "A.json" or "A1.json +2" (the first file's name and how many more were pooled) */
static const char *side_name(char *buf, size_t len, char **files, int n)
{
	if (n == 1)
		return files[0];
	snprintf(buf, len, "%s +%d", files[0], n - 1);
	return buf;
}

int cmd_compare(int argc, char **argv)
{
	char name_a[256], name_b[256];
	json_t *a, *b;
	int split = 0, na, b0, ret;

	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")))
		return cli_command_help(argv[0]);
	for (int i = 1; i < argc && !split; i++)
		if (!strcmp(argv[i], "--"))
			split = i;
	na = split ? split - 1 : 1;
	b0 = split ? split + 1 : 2;
	if (split ? na < 1 || b0 >= argc : argc != 3)
		return cli_usage_error("compare: two results files (mmfuzz compare A.json B.json, "
				       "or A1.json A2.json -- B1.json B2.json)");
	if (!(a = load_side(argv + 1, na)))
		return EXIT_USAGE;
	if (!(b = load_side(argv + b0, argc - b0))) {
		json_decref(a);
		return EXIT_USAGE;
	}
	const char *ta = json_string_value(json_object_get(a, "tool")),
		   *tb = json_string_value(json_object_get(b, "tool"));
	if (!ta || !tb || strcmp(ta, tb)) {
		ret = cli_usage_error("compare: %s holds %s results, %s %s results: nothing "
				      "to compare",
				      argv[1], ta ? ta : "unnamed", argv[b0], tb ? tb : "unnamed");
		json_decref(a);
		json_decref(b);
		return ret;
	}
	ret = compare(a, b, side_name(name_a, sizeof(name_a), argv + 1, na),
		      side_name(name_b, sizeof(name_b), argv + b0, argc - b0));
	json_decref(a);
	json_decref(b);
	return ret;
}
