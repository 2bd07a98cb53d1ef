/* SPDX-License-Identifier: MIT */
/*
 * cmd_explore.c - mmfuzz explore KNOB: for a numeric policy knob, the
 * largest value that keeps the invariants under a fixed budget per value.
 * A value is probed by running P deterministic random programs on the
 * machine: a fixed prefix (the zone allocated down to its high mark,
 * kswapd woken and stepped: the watermarks are where policies matter)
 * then random bytes through the shared decoder, mm_decode_ops(). Unsafe:
 * any program violated an invariant. Bisection between a safe and an
 * unsafe value assumes unsafety grows with the value; the table shows
 * every value tried, so a reader can see where it does not. percpu-batch
 * (vm_committed_as's batch) has a workload of its own: seed 003's machine
 * under OVERCOMMIT_NEVER, brk and munmap of one mm instead of the prefix
 * and the order-0 allocations.
 */
#include "../bench/seed_loops.h"
#include "cli.h"
#include "results.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TRIED 64

static const char usage_line[] =
	"mmfuzz explore pressure-threshold|normal-threshold|pcp-batch|pcp-high|percpu-batch "
	"[--zoneinfo F --cpus N | --cpus N] [--probes P] [--ops K] [--seed S] "
	"[--range LO,HI] [--values V,...] [--json FILE]";

struct probe {
	long value;
	unsigned int failed, probes;
	double folds_per_1000, locks_per_1000;
	long max_drift, vs_min;
	char first[256];
};

struct explore {
	const char *knob;
	bool counters; /* percpu-batch: seed 003's machine and brk workload */
	struct mm_config cfg;
	int node;
	enum zone_type zt;
	unsigned int probes, ops;
	uint64_t seed;
	struct mm_exec *ex;
	struct mm_prog prog;
	uint8_t *bytes;
	uint32_t *live; /* the workload's allocations not yet freed */
	struct probe tried[MAX_TRIED];
	unsigned int nr_tried;
};

static void first_violation(const struct mm_violation *v, void *arg)
{
	struct probe *r = arg;

	if (!r->first[0])
		mm_violation_format(v, r->first, sizeof(r->first));
}

static int push(struct mm_prog *p, struct mm_op op)
{
	return mm_prog_push(p, &op);
}

/* The prefix: the zone down to its high mark, kswapd woken and stepped */
static int build_prefix(struct explore *e, const struct mm_zone_info *zi)
{
	struct mm_prog *p = &e->prog;
	unsigned int order = e->cfg.pageblock_order;
	unsigned long over =
		zi->managed > zi->wmark[WMARK_HIGH] ? zi->managed - zi->wmark[WMARK_HIGH] : 0;
	int err = 0;

	mm_prog_free(p);
	mm_prog_init(p);
	p->cfg = e->cfg;
	if (e->counters) { /* seed 003: OVERCOMMIT_NEVER and one mm, m0 */
		err |= push(p, (struct mm_op){.kind = MM_OP_SET_OVERCOMMIT,
					      .sysctl.value = MM_OVERCOMMIT_NEVER});
		err |= push(p, (struct mm_op){.kind = MM_OP_FORK, .mm.mm = 0});
		return err ? -1 : 0;
	}
	if (strstr(e->knob, "threshold")) /* every page moves a vmstat diff */
		err |= push(p, (struct mm_op){
				       .kind = MM_OP_PCP_DISABLE,
				       .pcp = {.node = (int16_t)e->node, .zone = (uint8_t)e->zt}});
	for (unsigned long i = 0; i < (over + (1UL << order) - 1) >> order; i++)
		err |= push(p, (struct mm_op){.kind = MM_OP_ALLOC,
					      .alloc = {.order = (uint8_t)order,
							.node = (int8_t)e->node,
							.gfp = MM_GFP_KERNEL | MM_GFP_MOVABLE |
							       MM_GFP_THISNODE}});
	err |= push(p,
		    (struct mm_op){.kind = MM_OP_KSWAPD_WAKE,
				   .vmstat = {.node = (int16_t)e->node, .zone = (uint8_t)e->zt}});
	err |= push(
		p, (struct mm_op){.kind = MM_OP_KSWAPD_STEP, .vmstat = {.node = (int16_t)e->node}});
	return err ? -1 : 0;
}

/*
 * Drops the decoded ops from index from on that change the machine's
 * shape (hotplug, sysctls, deferred init, the pcp lists back on): the
 * value is explored for this machine. Allocations stay, so the handles
 * of the frees keep their numbers.
 */
static void keep_shape(struct mm_prog *p, unsigned int from)
{
	unsigned int to = from;

	for (unsigned int i = from; i < p->nr_ops; i++) {
		switch (p->ops[i].kind) {
		case MM_OP_CPU_OFFLINE:
		case MM_OP_CPU_ONLINE:
		case MM_OP_SET_MIN_FREE_KBYTES:
		case MM_OP_SET_WSF:
		case MM_OP_DEFERRED_STEP:
		case MM_OP_DEFERRED_COMPLETE:
		case MM_OP_PCP_ENABLE:
		case MM_OP_SET_HIGH_FRACTION:
		case MM_OP_SET_OVERCOMMIT:
			continue;
		default:
			p->ops[to++] = p->ops[i];
		}
	}
	p->nr_ops = to;
}

/*
 * One op of seed 003's workload, from random bits r: a brk or munmap of
 * 1..S3_BRK_PAGES pages of m0 on cpu, the mapping kept between 0 and 64
 * brks' worth so that the locals end the program holding what the batch
 * lets them.
 */
static int push_brk(struct explore *e, uint64_t r, unsigned int cpu, unsigned long *mapped)
{
	uint16_t pages = (uint16_t)(1 + (r >> 8) % S3_BRK_PAGES);
	bool grow = *mapped < pages || ((r & 1) && *mapped < 64ul * S3_BRK_PAGES);

	*mapped = grow ? *mapped + pages : *mapped - pages;
	if (grow)
		return push(
			&e->prog,
			(struct mm_op){.kind = MM_OP_BRK, .cpu = (uint16_t)cpu, .mm.pages = pages});
	return push(&e->prog, (struct mm_op){.kind = MM_OP_MUNMAP,
					     .cpu = (uint16_t)cpu,
					     .mm = {.pages = pages, .type = MM_ANONPAGES}});
}

/*
 * Probe i's program: the prefix, then K ops of two kinds, interleaved:
 * random bytes through the shared decoder (any op), and order-0
 * allocations and frees on CPUs in turn (seed 002's workload, what reaches
 * the watermarks from every CPU at once), a kswapd step every 64.
 */
static int build_probe(struct explore *e, const struct mm_zone_info *zi, unsigned int i)
{
	uint64_t rng = e->seed + i * UINT64_C(0x9e3779b97f4a7c15);
	unsigned int ncpus = mm_config_nr_cpus(&e->cfg), nr_live = 0;
	unsigned long mapped = 0;
	int err;

	if (build_prefix(e, zi))
		return -1;
	err = 0;
	for (unsigned int k = 0; !err && k < e->ops; k++) {
		uint64_t r = mm_splitmix64(&rng);
		if (k % 64 == 31) { /* a few decoded ops */
			unsigned int from = e->prog.nr_ops;
			memcpy(e->bytes, &r, 8);
			err |= mm_decode_ops(e->bytes, 8, &e->prog);
			keep_shape(&e->prog, from);
			continue;
		}
		unsigned int cpu = (unsigned int)(r >> 32) % ncpus;
		if (e->counters) {
			err |= push_brk(e, r, cpu, &mapped);
			continue;
		}
		if ((r & 7) < 5 || !nr_live) {
			e->live[nr_live++] = e->prog.nr_allocs;
			err |= push(&e->prog, (struct mm_op){.kind = MM_OP_ALLOC,
							     .cpu = (uint16_t)cpu,
							     .alloc = {.order = 0,
								       .node = (int8_t)e->node,
								       .gfp = MM_GFP_KERNEL |
									      MM_GFP_RECLAIMABLE}});
		} else {
			unsigned int j = (unsigned int)((r >> 8) % nr_live);
			err |= push(&e->prog, (struct mm_op){.kind = MM_OP_FREE,
							     .cpu = (uint16_t)cpu,
							     .free.handle = e->live[j]});
			e->live[j] = e->live[--nr_live];
		}
		if (k % 64 == 63)
			err |= push(&e->prog, (struct mm_op){.kind = MM_OP_KSWAPD_STEP,
							     .vmstat = {.node = (int16_t)e->node}});
	}
	return err ? -1 : 0;
}

/* Runs the probes of one value (or of the model's rule: value 0) */
static int probe_value(struct explore *e, const struct mm_zone_info *zi, long value,
		       struct probe *r)
{
	unsigned long long folds = 0, updates = 0, locks = 0, ops = 0;

	memset(r, 0, sizeof(*r));
	r->value = value;
	r->vs_min = LONG_MAX;
	if (value && mm_policy_knob_set(e->knob, value))
		return cli_usage_error("explore: %s: %ld is out of its range", e->knob, value);
	for (unsigned int i = 0; i < e->probes; i++) {
		struct mm_exec_opts o;
		struct mm_stats st;
		struct mm_zone_info now;
		long failed_op, n;

		if (build_probe(e, zi, i))
			return cli_usage_error("explore: out of memory");
		mm_exec_opts_default(&o);
		o.stop_on_violation = true;
		o.on_violation = first_violation;
		o.arg = r;
		n = mm_exec_run(e->ex, &e->prog, &o, &failed_op);
		if (n < 0)
			return cli_usage_error("explore: cannot build the machine");
		r->failed += n > 0;
		r->probes++;
		if (e->counters) { /* vm_committed_as: folds per charge, |exact - read| */
			struct mm_counter_stats c;
			struct mm_sim *sim = mm_exec_sim(e->ex);
			mm_sim_counter_stats(sim, &c);
			folds += c.committed_folds;
			updates += c.committed_adds;
			locks += c.pcpu_folds + c.pcpu_sums + c.list_lock_acquisitions;
			ops += e->prog.nr_ops;
			long long d = mm_vm_committed_sum(sim) - mm_vm_committed_read(sim);
			if ((d < 0 ? -d : d) > r->max_drift)
				r->max_drift = (long)(d < 0 ? -d : d);
			continue;
		}
		mm_sim_stats(mm_exec_sim(e->ex), &st);
		mm_zone_info(mm_exec_sim(e->ex), e->node, e->zt, &now);
		folds += st.vmstat_folds;
		updates += st.vmstat_updates;
		locks += st.zone_lock_acquisitions;
		ops += e->prog.nr_ops;
		if (now.max_drift > r->max_drift)
			r->max_drift = now.max_drift;
		if (now.min_exact_free - (long)now.wmark[WMARK_MIN] < r->vs_min)
			r->vs_min = now.min_exact_free - (long)now.wmark[WMARK_MIN];
	}
	r->folds_per_1000 = updates ? 1000.0 * (double)folds / (double)updates : 0;
	r->locks_per_1000 = ops ? 1000.0 * (double)locks / (double)ops : 0;
	return 0;
}

/* The knob's value under the model's own rule, read after the prefix */
static long model_value(struct explore *e, const struct mm_zone_info *zi)
{
	struct mm_exec_opts o;
	struct mm_pcp_info pi;
	long failed_op;

	if (mm_policy_knob_set(e->knob, 0) || build_prefix(e, zi))
		return -1;
	mm_exec_opts_default(&o);
	o.stop_on_violation = false;
	if (mm_exec_run(e->ex, &e->prog, &o, &failed_op) < 0)
		return -1;
	if (e->counters) /* under NEVER, after the prefix */
		return mm_vm_committed_as_batch(mm_exec_sim(e->ex));
	if (mm_pcp_info(mm_exec_sim(e->ex), e->node, e->zt, 0, &pi) < 0)
		return -1;
	if (!strcmp(e->knob, "pcp-batch"))
		return pi.batch;
	if (!strcmp(e->knob, "pcp-high"))
		return pi.high_min;
	return pi.stat_threshold; /* kswapd stepped: the pressure threshold */
}

static struct probe *tried(struct explore *e, long value, const struct mm_zone_info *zi, int *err)
{
	for (unsigned int i = 0; i < e->nr_tried; i++)
		if (e->tried[i].value == value)
			return &e->tried[i];
	if (e->nr_tried == MAX_TRIED) {
		*err = cli_usage_error("explore: more than %d values", MAX_TRIED);
		return NULL;
	}
	struct probe *r = &e->tried[e->nr_tried];
	if ((*err = probe_value(e, zi, value, r)))
		return NULL;
	e->nr_tried++;
	return r;
}

static int by_value(const void *a, const void *b)
{
	const struct probe *x = a, *y = b;
	return (x->value > y->value) - (x->value < y->value);
}

/* The value's figures as one row of the --json results (docs/results-json.md) */
static void record(const struct explore *e, const struct probe *r)
{
	char row[32];

	snprintf(row, sizeof(row), "value %ld", r->value);
	results_metric(e->knob, row, "failed_fraction", (double)r->failed / r->probes);
	results_metric(e->knob, row, "folds_per_1000", r->folds_per_1000);
	results_metric(e->knob, row, "locks_per_1000", r->locks_per_1000);
	results_metric(e->knob, row, "max_drift", (double)r->max_drift);
	if (!e->counters)
		results_metric(e->knob, row, "vs_min", (double)r->vs_min);
}

static void print_table(struct explore *e, long model, long answer, bool have_answer)
{
	qsort(e->tried, e->nr_tried, sizeof(e->tried[0]), by_value);
	printf("%8s %-7s %9s %11s %11s %10s %13s\n", "value", "verdict", "failed", "folds/1000",
	       "locks/1000", e->counters ? "end drift" : "max drift", "exact-min");
	for (unsigned int i = 0; i < e->nr_tried; i++) {
		const struct probe *r = &e->tried[i];
		char vs_min[24] = "-"; /* no watermark in the counters' workload */
		if (!e->counters)
			snprintf(vs_min, sizeof(vs_min), "%ld", r->vs_min);
		printf("%8ld %-7s %4u/%-4u %11.1f %11.1f %10ld %13s%s\n", r->value,
		       r->failed ? "UNSAFE" : "safe", r->failed, r->probes, r->folds_per_1000,
		       r->locks_per_1000, r->max_drift, vs_min,
		       r->value == model ? "  <- the model's rule" : "");
		record(e, r);
	}
	for (unsigned int i = 0; i < e->nr_tried; i++)
		if (e->tried[i].failed) {
			printf("first unsafe value %ld: %s\n", e->tried[i].value,
			       e->tried[i].first);
			break;
		}
	if (have_answer)
		printf("largest safe value: %ld (the model's rule gives %ld)\n", answer, model);
	else
		printf("no safe value in the range (the model's rule gives %ld)\n", model);
	printf("confidence: %u probes per value of %u random ops each after the prefix (seed "
	       "%#llx), %u values, %u programs in all; safe means no violation in those "
	       "programs, not a proof\n",
	       e->probes, e->ops, (unsigned long long)e->seed, e->nr_tried,
	       e->nr_tried * e->probes);
}

/* Seed 002's machine (mmfuzz bench's): one node, Normal 1 GiB (min 1024, low 1286, high 1548) */
#define SEED002_PAGES 262144u

static int parse_pair(const char *s, long *lo, long *hi)
{
	char *end;

	*lo = strtol(s, &end, 10);
	if (end == s || *end != ',' || *lo < 1)
		return -1;
	s = end + 1;
	*hi = strtol(s, &end, 10);
	return end == s || *end || *hi < *lo ? -1 : 0;
}

static int machine(struct explore *e, const char *zoneinfo, unsigned int cpus)
{
	mm_config_init(&e->cfg);
	if (zoneinfo) {
		size_t len;
		char err[256], *z = (char *)cli_read_file(zoneinfo, &len); /* NUL-terminated */

		if (!z)
			return EXIT_USAGE;
		int r = mm_config_from_zoneinfo(z, cpus, NULL, 0, &e->cfg, err, sizeof(err));
		free(z);
		if (r)
			return cli_usage_error("explore: %s: %s", zoneinfo, err);
	} else if (e->counters) {
		bench_brk_config(&e->cfg, cpus);
	} else {
		e->cfg.cpus_per_node[0] = cpus;
		e->cfg.zones[0][ZONE_NORMAL] =
			(struct mm_zone_config){0, SEED002_PAGES, SEED002_PAGES, SEED002_PAGES};
	}
	return 0;
}

/* The zone the probes fill: the largest */
static int pick_zone(struct explore *e, struct mm_zone_info *zi)
{
	struct mm_exec_opts o;
	long failed_op;
	unsigned long best = 0;

	mm_prog_free(&e->prog);
	mm_prog_init(&e->prog);
	e->prog.cfg = e->cfg;
	mm_exec_opts_default(&o);
	if (mm_exec_run(e->ex, &e->prog, &o, &failed_op) < 0)
		return cli_usage_error("explore: cannot build the machine");
	for (unsigned int n = 0; n < e->cfg.nr_nodes; n++)
		for (int zt = 0; zt < MAX_NR_ZONES; zt++) {
			struct mm_zone_info z;
			if (!mm_zone_info(mm_exec_sim(e->ex), (int)n, (enum zone_type)zt, &z) &&
			    z.managed > best) {
				best = z.managed;
				*zi = z;
				e->node = (int)n;
				e->zt = (enum zone_type)zt;
			}
		}
	return best ? 0 : cli_usage_error("explore: the machine has no managed zone");
}

static int search(struct explore *e, const struct mm_zone_info *zi, long lo, long hi,
		  const char *values)
{
	long model = model_value(e, zi), answer = 0;
	bool have = false;
	struct probe *r;
	int err = 0;

	if (model < 0)
		return cli_usage_error("explore: cannot build the machine");
	if (values) { /* the listed values only */
		for (const char *s = values; *s;) {
			char *end;
			long v = strtol(s, &end, 10);
			if (end == s || (*end && *end != ','))
				return cli_usage_error(
					"explore: --values takes numbers like 4,125");
			if (!(r = tried(e, v, zi, &err)))
				return err;
			if (!r->failed && (!have || v > answer))
				answer = v, have = true;
			s = *end ? end + 1 : end;
		}
	} else if (!(r = tried(e, hi, zi, &err))) {
		return err;
	} else if (!r->failed) {
		answer = hi, have = true;
	} else if (!(r = tried(e, lo, zi, &err))) {
		return err;
	} else if (!r->failed) {
		answer = lo, have = true;
		while (hi - lo > 1) { /* lo safe, hi unsafe */
			long mid = lo + (hi - lo) / 2;
			if (!(r = tried(e, mid, zi, &err)))
				return err;
			if (r->failed)
				hi = mid;
			else
				lo = answer = mid;
		}
	}
	if (!values && model >= 1 && !tried(e, model, zi, &err))
		return err;
	mm_policy_knob_set(e->knob, 0);
	print_table(e, model, answer, have);
	return EXIT_CLEAN;
}

int cmd_explore(int argc, char **argv)
{
	struct explore *e = calloc(1, sizeof(*e));
	const char *zoneinfo = NULL, *range = NULL, *values = NULL, *json = NULL;
	unsigned int cpus = 64;
	long lo = 1, hi;
	int ret = 0;

	if (!e)
		return cli_usage_error("explore: out of memory");
	e->probes = 8;
	e->ops = 20000;
	e->seed = 1;
	for (int i = 1; i < argc && !ret; i++) {
		const char *arg = argv[i], *v;
		bool missing = false;

		if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
			free(e);
			return cli_command_help(argv[0]);
		} else if ((v = cli_flag_value(argc, argv, &i, "--zoneinfo", &missing))) {
			zoneinfo = v;
		} else if ((v = cli_flag_value(argc, argv, &i, "--cpus", &missing))) {
			if (!cli_parse_uint(v, 1, 1024, &cpus))
				ret = cli_usage_error("explore: --cpus takes 1..1024, not '%s'", v);
		} else if ((v = cli_flag_value(argc, argv, &i, "--probes", &missing))) {
			if (!cli_parse_uint(v, 1, 100000, &e->probes))
				ret = cli_usage_error("explore: --probes takes 1..100000, not '%s'",
						      v);
		} else if ((v = cli_flag_value(argc, argv, &i, "--ops", &missing))) {
			if (!cli_parse_uint(v, 1, 1000000, &e->ops))
				ret = cli_usage_error("explore: --ops takes 1..1000000, not '%s'",
						      v);
		} else if ((v = cli_flag_value(argc, argv, &i, "--seed", &missing))) {
			if (!cli_parse_u64(v, 0, UINT64_MAX, &e->seed))
				ret = cli_usage_error("explore: --seed takes a number, not '%s'",
						      v);
		} else if ((v = cli_flag_value(argc, argv, &i, "--range", &missing))) {
			range = v;
		} else if ((v = cli_flag_value(argc, argv, &i, "--values", &missing))) {
			values = v;
		} else if ((v = cli_flag_value(argc, argv, &i, "--json", &missing))) {
			json = v;
		} else if (missing) {
			ret = cli_usage_error("explore: %s needs a value", arg);
		} else if (arg[0] == '-' || e->knob) {
			ret = cli_usage_error("explore: unexpected '%s' (%s)", arg, usage_line);
		} else {
			e->knob = arg;
		}
	}
	if (!ret && !e->knob)
		ret = cli_usage_error("explore: which knob? (%s)", usage_line);
	if (!ret && mm_policy_knob_set(e->knob, 1))
		ret = cli_usage_error("explore: unknown knob '%s' (%s)", e->knob, usage_line);
	hi = e->knob && strstr(e->knob, "threshold") ? 125 : 4096;
	if (!ret && range && parse_pair(range, &lo, &hi))
		ret = cli_usage_error("explore: --range takes LO,HI with 1 <= LO <= HI, not '%s'",
				      range);
	e->counters = e->knob && !strcmp(e->knob, "percpu-batch");
	if (!ret)
		ret = machine(e, zoneinfo, cpus);
	if (!ret && json)
		ret = results_begin("explore", json);
	if (!ret) {
		struct mm_zone_info zi;
		e->ex = mm_exec_create();
		e->bytes = malloc(8);
		e->live = calloc(e->ops, sizeof(*e->live));
		mm_prog_init(&e->prog);
		if (!e->ex || !e->bytes || !e->live)
			ret = cli_usage_error("explore: out of memory");
		if (!ret)
			ret = pick_zone(e, &zi);
		if (!ret) {
			printf("explore %s: node %d zone %d, %llu managed pages (min %lu, low %lu, "
			       "high %lu), %u CPUs\n",
			       e->knob, e->node, (int)e->zt, (unsigned long long)zi.managed,
			       zi.wmark[WMARK_MIN], zi.wmark[WMARK_LOW], zi.wmark[WMARK_HIGH],
			       mm_config_nr_cpus(&e->cfg));
			if (e->counters)
				printf("workload: OVERCOMMIT_NEVER, m0's brk and munmap of 1..%u "
				       "pages on random CPUs (seed 003); folds: vm_committed_as's "
				       "per 1000 charges; locks: percpu_counter locks per 1000 "
				       "ops; end drift: |exact - read| of vm_committed_as\n",
				       S3_BRK_PAGES);
			ret = search(e, &zi, lo, hi, values);
		}
		if (json && !ret)
			ret = results_write();
		mm_prog_free(&e->prog);
		mm_exec_destroy(e->ex);
		free(e->bytes);
		free(e->live);
	}
	free(e);
	return ret;
}
