/* SPDX-License-Identifier: MIT */
/*
 * results.h - results as data (docs/results-json.md): the figures a
 * command printed, as JSON through libjansson, one object per run of
 * the measurement so that mmfuzz compare can test repeated runs.
 */
#ifndef MMFUZZ_RESULTS_H
#define MMFUZZ_RESULTS_H

#include <stdbool.h>

/*
 * Starts collecting for tool ("bench", "stress", "explore") into path, created now
 * (never overwritten) so a bad path fails before the measuring; returns
 * EXIT_CLEAN or EXIT_USAGE after one line.
 */
int results_begin(const char *tool, const char *path);
/* Ends the current run (the next metric starts a new one) */
void results_next_run(void);
/* One figure of the current run: "table/row/name"; a no-op when not collecting */
void results_metric(const char *table, const char *row, const char *name, double value);
/*
 * A fact about the whole file, not a figure ("variant", "machine"):
 * "config": {key: value} beside "runs"; a no-op when not collecting
 */
void results_config(const char *key, const char *value);
/* Writes the collected runs; EXIT_CLEAN or EXIT_USAGE after one line */
int results_write(void);

#endif
