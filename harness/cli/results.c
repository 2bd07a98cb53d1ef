/* SPDX-License-Identifier: MIT */
/*
 * results.c - the collector behind --json: {"schema": "mmfuzz-results/1",
 * "tool", "policy", "runs": [{"TABLE/ROW/NAME": number, ...}, ...]}, and
 * "config": {"key": "string", ...} when the tool states its setup.
 */
#include "results.h"

#include "cli.h"

#include <jansson.h>
#include <stdio.h>

static json_t *doc, *runs, *run;
static FILE *out;
static const char *out_path;

int results_begin(const char *tool, const char *path)
{
	const char *policy = mm_policy_plugin_path();

	doc = json_pack("{s:s, s:s, s:o, s:[]}", "schema", "mmfuzz-results/1", "tool", tool,
			"policy", policy ? json_string(policy) : json_null(), "runs");
	if (!doc)
		return cli_usage_error("%s: out of memory", path);
	out = cli_create_new(path);
	if (!out) {
		json_decref(doc);
		doc = NULL;
		return EXIT_USAGE;
	}
	out_path = path;
	runs = json_object_get(doc, "runs");
	run = NULL;
	return EXIT_CLEAN;
}

void results_next_run(void)
{
	run = NULL;
}

void results_config(const char *key, const char *value)
{
	json_t *config;

	if (!doc)
		return;
	config = json_object_get(doc, "config");
	if (!config) {
		config = json_object();
		if (!config || json_object_set_new(doc, "config", config))
			return;
	}
	json_object_set_new(config, key, json_string(value));
}

void results_metric(const char *table, const char *row, const char *name, double value)
{
	char key[256];

	if (!doc)
		return;
	if (!run) {
		run = json_object();
		if (!run || json_array_append_new(runs, run))
			return;
	}
	snprintf(key, sizeof(key), "%s/%s/%s", table, row, name);
	json_object_set_new(run, key, json_real(value));
}

int results_write(void)
{
	int ret = EXIT_CLEAN;

	if (!doc)
		return EXIT_CLEAN;
	if (json_dumpf(doc, out, JSON_INDENT(1) | JSON_SORT_KEYS) || fputc('\n', out) == EOF)
		ret = cli_usage_error("%s: cannot write the results", out_path);
	if (fclose(out))
		ret = cli_usage_error("%s: cannot write the results", out_path);
	json_decref(doc);
	doc = runs = run = NULL;
	out = NULL;
	return ret;
}
