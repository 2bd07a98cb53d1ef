/* SPDX-License-Identifier: MIT */
/*
 * stress_json.h - mmfuzz stress --json FILE: the summary of a stress run
 * as results data (docs/results-json.md), beside the printed summary.
 */
#ifndef MMFUZZ_STRESS_JSON_H
#define MMFUZZ_STRESS_JSON_H

#include <stdbool.h>

struct stress_run;

/* What the printed summary says beyond the run's own state */
struct stress_json_summary {
	double elapsed;
	unsigned long long worker_ops;
	unsigned long checks, checks_passed, violations;
	bool final_checked, final_passed; /* no final check after a violation */
	int exit_code;
};

/* Creates path now (never overwrites it); EXIT_CLEAN or EXIT_USAGE after one line */
int stress_json_begin(const char *path);
/* Records one run's summary; a no-op without stress_json_begin() */
void stress_json_record(const struct stress_run *run, const struct stress_json_summary *s);
/* Writes the file: ret, or EXIT_USAGE when the write failed */
int stress_json_end(int ret);

#endif
