/* SPDX-License-Identifier: MIT */
/*
 * stress_json.c - mmfuzz stress --json FILE: what the summary prints (the
 * machine, ops and ops/s in all and per thread, the quiesce checks, the
 * result) as one run of results data through results.c, so that
 * `mmfuzz compare` reads stress runs as it reads bench runs. Kept apart
 * from cmd_stress.c, which only calls in.
 */
#include "stress_json.h"

#include "results.h"
#include "stress.h"

#include <stdio.h>

static bool collecting;

int stress_json_begin(const char *path)
{
	int ret = results_begin("stress", path);

	collecting = ret == EXIT_CLEAN;
	return ret;
}

/* A fact of the run's setup, as "config": {key: "value"} */
static void config(const char *key, const char *fmt, unsigned long long a, unsigned long long b)
{
	char buf[128];

	snprintf(buf, sizeof(buf), fmt, a, b);
	results_config(key, buf);
}

static void thread_figures(const struct stress_thread *t, double el)
{
	unsigned long long ops = atomic_load_explicit(&t->ops, memory_order_relaxed);
	char row[64];

	if (t->service)
		snprintf(row, sizeof(row), "thread %u %s", t->idx, t->service->name);
	else
		snprintf(row, sizeof(row), "thread %u worker cpu %d", t->idx, t->cpu);
	results_metric("stress", row, "ops", (double)ops);
	results_metric("stress", row, "ops_per_s", (double)ops / el);
	results_metric("stress", row, "skipped", (double)atomic_load(&t->skipped));
	results_metric("stress", row, "alloc_fail", (double)atomic_load(&t->alloc_fail));
	results_metric("stress", row, "remote_sent", (double)atomic_load(&t->remote_sent));
	results_metric("stress", row, "remote_freed", (double)atomic_load(&t->remote_freed));
	results_metric("stress", row, "offline_waits", (double)atomic_load(&t->offline_waits));
}

void stress_json_record(const struct stress_run *run, const struct stress_json_summary *s)
{
	double el = s->elapsed > 0 ? s->elapsed : 1e-9;
	char host[256];

	if (!collecting)
		return;
	stress_host_describe(run->host, host, sizeof(host));
	results_config("host", host);
	results_config("variant",
		       run->o.variant >= 0 ? mm_variant_at((size_t)run->o.variant)->name : "none");
	config("seed", "%#llx", (unsigned long long)run->o.seed, 0);
	config("machine", "%llu worker CPUs on %llu node(s)", run->nr_workers, run->cfg.nr_nodes);
	config("zones", "%llu zones of %llu pages", run->nr_zones,
	       (unsigned long long)run->o.zone_pages);
	results_metric("stress", "workers", "threads", run->nr_workers);
	results_metric("stress", "workers", "ops", (double)s->worker_ops);
	results_metric("stress", "workers", "ops_per_s", (double)s->worker_ops / el);
	results_metric("stress", "workers", "ops_per_s_per_thread",
		       (double)s->worker_ops / el / run->nr_workers);
	results_metric("stress", "run", "elapsed_s", s->elapsed);
	results_metric("stress", "quiesce", "checks", (double)s->checks);
	results_metric("stress", "quiesce", "passed", (double)s->checks_passed);
	results_metric("stress", "quiesce", "longest_ms", run->quiesce_longest * 1000);
	results_metric("stress", "result", "violations", (double)s->violations);
	if (s->final_checked)
		results_metric("stress", "result", "final_check_passed", s->final_passed);
	results_metric("stress", "result", "exit", s->exit_code);
	for (unsigned int i = 0; i < run->nr_threads; i++)
		thread_figures(run->t[i], el);
	results_next_run();
}

int stress_json_end(int ret)
{
	int w;

	if (!collecting)
		return ret;
	collecting = false;
	w = results_write();
	return w != EXIT_CLEAN ? w : ret;
}
