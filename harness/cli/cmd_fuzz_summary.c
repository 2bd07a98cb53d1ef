/* SPDX-License-Identifier: MIT */
/*
 * cmd_fuzz_summary.c - mmfuzz fuzz-summary ROWS.tsv: ci/fuzz's summary
 * (fuzz-out/summary.json, docs/ci.md) built through libjansson from the
 * rows the script collected, one a target or a crash, tab-separated:
 *
 *   target NAME RUNS EXEC/S COV FEATURES CORPUS CRASHES   ("-": not printed)
 *   crash TARGET FILE INV-LINE REPRODUCE|flaky SIGNATURE SEEN MINIMIZED
 *
 * so that no shell or python string building stands between the fuzzers'
 * figures and the JSON.
 */
#include "cli.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NR_FIELDS 8

static const char usage_line[] =
	"mmfuzz fuzz-summary ROWS.tsv --mode M --engine E --seconds S --jobs J "
	"[--variant V] [--policy P]";

/* A count, or null for "-" (a figure the fuzzer did not print); -1 if neither */
static int count(const char *s, json_t **out)
{
	uint64_t v;

	if (!strcmp(s, "-")) {
		*out = json_null();
		return 0;
	}
	if (!cli_parse_u64(s, 0, INT64_MAX, &v))
		return -1;
	*out = json_integer((json_int_t)v);
	return 0;
}

static json_t *string_or_null(const char *s)
{
	return s[0] ? json_string(s) : json_null();
}

/* Splits line at tabs into f[NR_FIELDS] (missing fields ""); the count of fields */
static int split(char *line, char **f)
{
	int n = 0;

	for (char *p = line; n < NR_FIELDS; n++) {
		f[n] = p;
		p = strchr(p, '\t');
		if (!p) {
			n++;
			break;
		}
		*p++ = 0;
	}
	for (int i = n; i < NR_FIELDS; i++)
		f[i] = "";
	return n;
}

static int target_row(char **f, json_t *targets)
{
	static const char *const keys[] = {"runs",     "exec_per_sec", "cov",
					   "features", "corpus",       "crashes"};
	json_t *t = json_pack("{s:s}", "name", f[1]);

	for (int i = 0; t && i < 6; i++) {
		json_t *v;
		if (count(f[2 + i], &v)) {
			json_decref(t);
			return -1;
		}
		json_object_set_new(t, keys[i], v);
	}
	return t ? json_array_append_new(targets, t) : -1;
}

static int crash_row(char **f, json_t *crashes)
{
	bool flaky = !strcmp(f[4], "flaky");

	return json_array_append_new(
		crashes, json_pack("{s:s, s:s, s:o, s:o, s:o, s:b, s:o, s:o}", "target", f[1],
				   "file", f[2], "violation", string_or_null(f[3]), "signature",
				   string_or_null(f[5]), "seen", string_or_null(f[6]), "flaky",
				   flaky, "minimized", string_or_null(f[7]), "reproduce",
				   flaky ? json_null() : string_or_null(f[4])));
}

static int read_rows(const char *path, json_t *doc)
{
	json_t *targets = json_object_get(doc, "targets"),
	       *crashes = json_object_get(doc, "crashes");
	size_t len;
	char *z = (char *)cli_read_file(path, &len), *line; /* NUL-terminated */
	unsigned int nr = 0;
	int ret = EXIT_CLEAN;

	if (!z)
		return EXIT_USAGE;
	if (memchr(z, 0, len)) {
		free(z);
		return cli_usage_error("%s: a NUL byte: not ci/fuzz's rows", path);
	}
	for (line = z; ret == EXIT_CLEAN && *line;) {
		char *end = strchr(line, '\n'), *f[NR_FIELDS];
		nr++;
		if (end)
			*end = 0;
		if (split(line, f) >= 8 && !strcmp(f[0], "target") && f[1][0]) {
			if (target_row(f, targets))
				ret = cli_usage_error("%s: line %u: a count that is not a "
						      "number, or text not UTF-8",
						      path, nr);
		} else if (!strcmp(f[0], "crash") && f[1][0] && f[2][0]) {
			if (crash_row(f, crashes))
				ret = cli_usage_error("%s: line %u: text that is not UTF-8", path,
						      nr);
		} else {
			ret = cli_usage_error("%s: line %u: not a target or crash row", path, nr);
		}
		line = end ? end + 1 : line + strlen(line);
	}
	free(z);
	return ret;
}

int cmd_fuzz_summary(int argc, char **argv)
{
	const char *rows = NULL, *mode = NULL, *engine = NULL, *variant = "", *policy = "";
	unsigned int seconds = 0, jobs = 0;
	bool have_seconds = false, have_jobs = false;
	json_t *doc;
	int ret;

	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i], *v;
		bool missing = false;

		if (!strcmp(arg, "-h") || !strcmp(arg, "--help"))
			return cli_command_help(argv[0]);
		else if ((v = cli_flag_value(argc, argv, &i, "--mode", &missing)))
			mode = v;
		else if ((v = cli_flag_value(argc, argv, &i, "--engine", &missing)))
			engine = v;
		else if ((v = cli_flag_value(argc, argv, &i, "--variant", &missing)))
			variant = v;
		else if ((v = cli_flag_value(argc, argv, &i, "--policy", &missing)))
			policy = v;
		else if ((v = cli_flag_value(argc, argv, &i, "--seconds", &missing))) {
			if (!(have_seconds = cli_parse_uint(v, 0, 1u << 30, &seconds)))
				return cli_usage_error("fuzz-summary: --seconds takes a number, "
						       "not '%s'",
						       v);
		} else if ((v = cli_flag_value(argc, argv, &i, "--jobs", &missing))) {
			if (!(have_jobs = cli_parse_uint(v, 1, 4096, &jobs)))
				return cli_usage_error(
					"fuzz-summary: --jobs takes 1..4096, not '%s'", v);
		} else if (missing)
			return cli_usage_error("fuzz-summary: %s needs a value", arg);
		else if (arg[0] == '-' || rows)
			return cli_usage_error("fuzz-summary: unexpected '%s' (%s)", arg,
					       usage_line);
		else
			rows = arg;
	}
	if (!rows || !mode || !engine || !have_seconds || !have_jobs)
		return cli_usage_error("fuzz-summary: %s", usage_line);
	doc = json_pack("{s:s, s:s, s:s, s:I, s:I, s:o, s:o, s:[], s:[]}", "schema",
			"mmfuzz-fuzz-summary/1", "mode", mode, "engine", engine,
			"seconds_per_target", (json_int_t)seconds, "jobs", (json_int_t)jobs,
			"variant", string_or_null(variant), "policy", string_or_null(policy),
			"targets", "crashes");
	if (!doc)
		return cli_usage_error("fuzz-summary: out of memory");
	ret = read_rows(rows, doc);
	if (ret == EXIT_CLEAN && (json_dumpf(doc, stdout, JSON_INDENT(1) | JSON_PRESERVE_ORDER) ||
				  putchar('\n') == EOF || fflush(stdout)))
		ret = cli_usage_error("fuzz-summary: cannot write the summary");
	json_decref(doc);
	return ret;
}
