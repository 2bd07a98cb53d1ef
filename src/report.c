/* SPDX-License-Identifier: MIT */
/*
 * report.c - the one way a violated invariant leaves the core. The core
 * never prints or exits: the harness's handler decides (abort under
 * libFuzzer, record in the CLI, count under stress).
 */
#include "internal.h"

#include <stdio.h>
#include <string.h>

void mm_violation_format(const struct mm_violation *v, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s", v->id);
	if (n < 0 || (size_t)n >= len)
		return;
	if (v->node >= 0)
		n += snprintf(buf + n, len - (size_t)n, " node=%d", v->node);
	if ((size_t)n < len && v->zone >= 0)
		n += snprintf(buf + n, len - (size_t)n, " zone=%s", mm_zone_name(v->zone));
	if ((size_t)n < len && v->cpu >= 0)
		n += snprintf(buf + n, len - (size_t)n, " cpu=%d", v->cpu);
	if ((size_t)n < len && v->pfn >= 0)
		n += snprintf(buf + n, len - (size_t)n, " pfn=%lld", v->pfn);
	if ((size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, " expected=%lld actual=%lld", v->expected,
			      v->actual);
	if ((size_t)n < len && v->detail[0])
		snprintf(buf + n, len - (size_t)n, ": %s", v->detail);
}

void mm_report_violation(struct mm_sim *sim, const char *id, int node, int zone, int cpu,
			 long long pfn, long long expected, long long actual, const char *fmt, ...)
{
	struct mm_violation v = {
		.id = id,
		.node = node,
		.zone = zone,
		.cpu = cpu,
		.pfn = pfn,
		.expected = expected,
		.actual = actual,
	};
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(v.detail, sizeof(v.detail), fmt, ap);
	va_end(ap);
	atomic_fetch_add_explicit(&sim->nr_violations, 1, memory_order_relaxed);
	if (sim->on_violation)
		sim->on_violation(&v, sim->violation_arg);
}
