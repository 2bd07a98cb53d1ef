/* SPDX-License-Identifier: MIT */
/*
 * stress_offline.c - what CPU hotplug and memory offlining rely on, checked
 * under threads, and the isolation ops in the mix.
 *
 * The kernel runs hotplug, the pcp disabling of memory offlining, sysctl
 * writes and kswapd's threshold switches under locks that order them
 * (cpus_write_lock, mem_hotplug_lock, pcp_batch_high_lock): here every
 * service step holds svc_lock, so each runs whole while the workers keep
 * allocating. The checker keeps its own ground truth from the ops the
 * services ran (the flight recorder hands it each op), never the model's
 * flags, and recomputes the kernel's rules itself (check_derived.c):
 *
 *   INV-PCP-OFFLINE-EMPTY  a CPU the hotplug service took offline has no
 *       page on any pcp list until it is back: after the drain of
 *       page_alloc_cpu_dead(), at each hotplug step and at quiesce points;
 *   INV-PCP-DISABLED-EMPTY a zone the pcp-disable service disabled has no
 *       page on any CPU's list until enabled: after zone_pcp_disable()'s
 *       drain, after every op of a worker (its own CPU, read under the pcp
 *       lock while a sequence count shows no pcp-disable step ran) and at
 *       quiesce points;
 *   INV-DERIVED-VMSTAT-THRESH, -DRIFT-MARK, -PCP-BATCH, -PCP-HIGH right
 *       after a CPU goes off- or online: every online CPU's threshold, the
 *       drift mark and the pcp sizing are the rule's for the CPUs online now.
 *
 * The isolation service offlines and onlines pageblocks and takes them with
 * alloc_contig_range() (src/isolation.c), so INV-ISOLATE-LEAK, -MERGE,
 * -FREELIST-TYPE and -UNDO run under threads (the NR_FREE_PAGES counts
 * stay serial: other CPUs allocate meanwhile).
 */
#include "stress.h"

#include "internal.h"

#include <string.h>

void stress_offline_init(struct stress_run *run)
{
	pthread_mutex_init(&run->svc_lock, NULL);
	/* Only hotplug and isolate take a worker's CPU; without them the lock is pure cost. */
	for (unsigned int e = 0; e < run->mix_len; e++)
		if (run->o.weights[e] &&
		    (!strcmp(run->mix[e].name, "hotplug") || !strcmp(run->mix[e].name, "isolate")))
			run->cpu_locks = true;
}

void stress_offline_destroy(struct stress_run *run)
{
	pthread_mutex_destroy(&run->svc_lock);
}

static struct zone *zone_at(const struct stress_run *run, unsigned int z)
{
	return &run->sim->node_data[run->zones[z].node]->node_zones[run->zones[z].type];
}

/* The run->zones index of (node, type); -1 if the run has no such zone. */
static int zone_index(const struct stress_run *run, int node, int type)
{
	for (unsigned int z = 0; z < run->nr_zones; z++)
		if (run->zones[z].node == node && (int)run->zones[z].type == type)
			return (int)z;
	return -1;
}

static bool is_pcp_disable_service(const struct stress_thread *t)
{
	return t->service && !strcmp(t->service->name, "pcp-disable");
}

/* Pages on cpu's lists of the zone, read under that CPU's pcp lock (no transient page). */
static int pcp_count(struct zone *zone, unsigned int cpu)
{
	int n;

	spin_lock(&zone->pcp_locks[cpu].lock);
	n = READ_ONCE(zone->per_cpu_pageset[cpu].count);
	spin_unlock(&zone->pcp_locks[cpu].lock);
	return n;
}

/* ------------------------------------------------------------------------
 * The lists hotplug and pcp disabling empty
 * ---------------------------------------------------------------------- */

/* INV-PCP-OFFLINE-EMPTY for every CPU the truth says is offline. Services held still. */
static void check_offline_cpus(struct stress_run *run, const char *when)
{
	for (unsigned int cpu = 0; cpu < run->nr_workers; cpu++) {
		if (!run->cpu_off[cpu])
			continue;
		for (unsigned int z = 0; z < run->nr_zones; z++) {
			struct zone *zone = zone_at(run, z);
			int n;
			if (!zone->per_cpu_pageset || !(n = pcp_count(zone, cpu)))
				continue;
			mm_report_violation(run->sim, "INV-PCP-OFFLINE-EMPTY", zone->node,
					    (int)zone->type, (int)cpu, -1, 0, n,
					    "offline CPU %u has %d pages on its pcp lists %s", cpu,
					    n, when);
			return;
		}
	}
}

/* INV-PCP-DISABLED-EMPTY for zone z on the CPUs [lo, hi); false once reported. */
static bool check_disabled_zone(struct stress_run *run, unsigned int z, unsigned int lo,
				unsigned int hi, unsigned int seq, const char *when)
{
	struct zone *zone = zone_at(run, z);

	for (unsigned int cpu = lo; cpu < hi; cpu++) {
		int n = pcp_count(zone, cpu);
		/* seq: a pcp-disable step (an enable) ran meanwhile; the truth moved */
		if (!n || atomic_load(&run->pcp_off_seq) != seq)
			continue;
		mm_report_violation(
			run->sim, "INV-PCP-DISABLED-EMPTY", zone->node, (int)zone->type, (int)cpu,
			-1, 0, n,
			"CPU %u has %d pages on the pcp lists of a zone whose pcp lists "
			"are disabled, %s",
			cpu, n, when);
		return false;
	}
	return true;
}

/* Every disabled zone, on the CPUs [lo, hi), if no pcp-disable step is running. */
static void check_disabled_zones(struct stress_run *run, unsigned int lo, unsigned int hi,
				 const char *when)
{
	unsigned int seq = atomic_load(&run->pcp_off_seq);

	if (seq & 1)
		return;
	for (unsigned int z = 0; z < run->nr_zones; z++)
		if (atomic_load(&run->pcp_off[z]) &&
		    !check_disabled_zone(run, z, lo, hi, seq, when))
			return;
}

void stress_offline_check_quiesced(struct stress_run *run)
{
	check_offline_cpus(run, "at a quiesce point");
	check_disabled_zones(run, 0, run->nr_workers, "at a quiesce point");
}

/* ------------------------------------------------------------------------
 * The derived values a hotplug event recomputes
 * ---------------------------------------------------------------------- */

static void report_derived(struct zone *zone, const char *id, int cpu, long long want,
			   long long have, const char *what)
{
	mm_report_violation(zone->sim, id, zone->node, (int)zone->type, cpu, -1, want, have,
			    "%s is not the rule's for the %u CPUs online after a hotplug event",
			    what, mm_num_online_cpus(zone->sim));
}

/* The pcp sizing of cpu's pageset against the rule (0/0/1 while the zone is disabled). */
static bool check_pcp_sizing(struct zone *zone, unsigned int cpu, bool disabled,
			     const struct derived_hotplug_rules *r)
{
	const struct per_cpu_pages *pcp = &zone->per_cpu_pageset[cpu];
	int batch = disabled ? 1 : r->batch, lo = disabled ? 0 : r->high_min,
	    hi = disabled ? 0 : r->high_max;

	if (READ_ONCE(pcp->batch) != batch) {
		report_derived(zone, "INV-DERIVED-PCP-BATCH", (int)cpu, batch,
			       READ_ONCE(pcp->batch), "the pcp batch");
		return false;
	}
	if (READ_ONCE(pcp->high_min) != lo || READ_ONCE(pcp->high_max) != hi) {
		bool min = READ_ONCE(pcp->high_min) != lo;
		report_derived(zone, "INV-DERIVED-PCP-HIGH", (int)cpu, min ? lo : hi,
			       min ? READ_ONCE(pcp->high_min) : READ_ONCE(pcp->high_max),
			       min ? "pcp high_min" : "pcp high_max");
		return false;
	}
	return true;
}

/*
 * Right after a CPU went off- or online, with every service held still:
 * refresh_zone_stat_thresholds() set every online CPU's normal threshold
 * and the drift mark, zone_pcp_update() the sizing (not while deferred
 * init is pending: the seed-000 window, INV-PCP-SIZING's precondition).
 */
static void check_hotplug_rules(struct stress_run *run)
{
	struct mm_sim *sim = run->sim;
	bool sizing = !mm_deferred_init_pending(sim);

	for (unsigned int z = 0; z < run->nr_zones; z++) {
		struct zone *zone = zone_at(run, z);
		struct derived_hotplug_rules r;

		if (!zone->per_cpu_zonestats || !zone->per_cpu_pageset)
			continue;
		_mm_derived_hotplug_rules(sim, zone, run->drift_before[z], &r);
		/*
		 * The workers run on: a fallback steal boosts the zone's marks, and
		 * refresh_zone_stat_thresholds() reads the boost in low, min and
		 * high separately, as the kernel does. With a boost at either end
		 * of the step the mark the refresh saw cannot be recomputed here.
		 */
		bool boosted = READ_ONCE(zone->watermark_boost) || run->boost_before[z];
		if (!boosted && READ_ONCE(zone->percpu_drift_mark) != r.drift_mark) {
			report_derived(zone, "INV-DERIVED-DRIFT-MARK", -1, (long long)r.drift_mark,
				       (long long)READ_ONCE(zone->percpu_drift_mark),
				       "percpu_drift_mark");
			return;
		}
		for (unsigned int cpu = 0; cpu < run->nr_workers; cpu++) {
			if (run->cpu_off[cpu])
				continue;
			int8_t t = READ_ONCE(zone->per_cpu_zonestats[cpu].stat_threshold);
			if (t != (int8_t)r.threshold) {
				report_derived(zone, "INV-DERIVED-VMSTAT-THRESH", (int)cpu,
					       r.threshold, t, "stat_threshold");
				return;
			}
			if (sizing &&
			    !check_pcp_sizing(zone, cpu, atomic_load(&run->pcp_off[z]), &r))
				return;
		}
	}
}

/* ------------------------------------------------------------------------
 * --test-break: the bugs these checks exist for, planted
 * ---------------------------------------------------------------------- */

static const char *const break_names[] = {
	[BREAK_TAKEDOWN] = "takedown",
	[BREAK_PCP_DISABLE] = "pcp-disable",
	[BREAK_HOTPLUG_THRESH] = "hotplug-thresh",
	[BREAK_HOTPLUG_MARK] = "hotplug-mark",
};

int stress_break_parse(const char *name)
{
	for (int b = BREAK_TAKEDOWN; b <= BREAK_HOTPLUG_MARK; b++)
		if (!strcmp(name, break_names[b]))
			return b;
	return -1;
}

const char *stress_break_names(void)
{
	return "takedown, pcp-disable, hotplug-thresh or hotplug-mark";
}

void stress_takedown_begin(struct stress_run *run, int cpu)
{
	if (run->o.test_break != BREAK_TAKEDOWN)
		pthread_mutex_lock(&run->t[cpu]->cpu_lock);
}

void stress_takedown_end(struct stress_run *run, int cpu)
{
	if (run->o.test_break != BREAK_TAKEDOWN)
		pthread_mutex_unlock(&run->t[cpu]->cpu_lock);
}

/* BREAK_PCP_DISABLE: a sizing write that ignores the disable, on every CPU's pageset. */
static void break_pcp_disable(struct zone *zone)
{
	mutex_lock(&zone->sim->pcp_batch_high_lock);
	for (unsigned int cpu = 0; cpu < zone->sim->nr_cpus; cpu++) {
		struct per_cpu_pages *pcp = &zone->per_cpu_pageset[cpu];
		WRITE_ONCE(pcp->high_min, zone->pageset_high_min);
		WRITE_ONCE(pcp->high_max, zone->pageset_high_max);
		WRITE_ONCE(pcp->batch, zone->pageset_batch);
	}
	mutex_unlock(&zone->sim->pcp_batch_high_lock);
}

/*
 * BREAK_HOTPLUG_THRESH / _MARK: the thresholds, or the drift marks, from
 * before the event put back. One each, so that each check is proven by a
 * bug only it can see: both at once raced for which ID a run reported.
 */
static void break_hotplug_refresh(struct stress_run *run)
{
	bool thresh = run->o.test_break == BREAK_HOTPLUG_THRESH;

	mutex_lock(&run->sim->hotplug_lock);
	for (unsigned int z = 0; z < run->nr_zones; z++) {
		struct zone *zone = zone_at(run, z);
		if (!zone->per_cpu_zonestats)
			continue;
		for (unsigned int cpu = 0; thresh && cpu < run->nr_workers; cpu++)
			WRITE_ONCE(zone->per_cpu_zonestats[cpu].stat_threshold,
				   run->threshold_before[z]);
		if (!thresh)
			WRITE_ONCE(zone->percpu_drift_mark, run->drift_before[z]);
	}
	mutex_unlock(&run->sim->hotplug_lock);
}

/* ------------------------------------------------------------------------
 * Service steps and the ops they run
 * ---------------------------------------------------------------------- */

void stress_service_step_begin(struct stress_thread *t)
{
	struct stress_run *run = t->run;

	pthread_mutex_lock(&run->svc_lock);
	run->step_hotplug = false;
	for (unsigned int z = 0; z < run->nr_zones; z++) {
		struct zone *zone = zone_at(run, z);
		run->drift_before[z] = READ_ONCE(zone->percpu_drift_mark);
		run->boost_before[z] = READ_ONCE(zone->watermark_boost);
		if (run->o.test_break == BREAK_HOTPLUG_THRESH && zone->per_cpu_zonestats)
			run->threshold_before[z] =
				READ_ONCE(zone->per_cpu_zonestats[0].stat_threshold);
	}
	if (is_pcp_disable_service(t))
		atomic_fetch_add(&run->pcp_off_seq, 1); /* odd: the truth may move */
}

void stress_service_step_end(struct stress_thread *t)
{
	struct stress_run *run = t->run;

	if (run->step_hotplug) {
		check_offline_cpus(run, "after a hotplug event");
		check_hotplug_rules(run);
	}
	if (is_pcp_disable_service(t))
		atomic_fetch_add(&run->pcp_off_seq, 1);
	pthread_mutex_unlock(&run->svc_lock);
}

/* A service's op changed the truth: note it (under svc_lock, inside the step). */
static void note_service_op(struct stress_thread *t, const struct mm_op *op)
{
	struct stress_run *run = t->run;
	int z;

	switch (op->kind) {
	case MM_OP_CPU_OFFLINE:
	case MM_OP_CPU_ONLINE:
		run->cpu_off[op->cpu] = op->kind == MM_OP_CPU_OFFLINE;
		run->step_hotplug = true;
		if (run->o.test_break == BREAK_HOTPLUG_THRESH ||
		    run->o.test_break == BREAK_HOTPLUG_MARK)
			break_hotplug_refresh(run);
		break;
	case MM_OP_PCP_DISABLE:
	case MM_OP_PCP_ENABLE:
		z = zone_index(run, op->pcp.node, op->pcp.zone);
		if (z < 0 || atomic_load(&run->pcp_off[z]) == (op->kind == MM_OP_PCP_DISABLE))
			break;
		atomic_store(&run->pcp_off[z], op->kind == MM_OP_PCP_DISABLE);
		if (op->kind == MM_OP_PCP_DISABLE) {
			atomic_fetch_add(&run->pcp_off_nr, 1);
			if (run->o.test_break == BREAK_PCP_DISABLE)
				break_pcp_disable(zone_at(run, (unsigned int)z));
			/* zone_pcp_disable() drained every CPU's lists of the zone */
			check_disabled_zone(run, (unsigned int)z, 0, run->nr_workers,
					    atomic_load(&run->pcp_off_seq),
					    "after zone_pcp_disable()");
		} else {
			atomic_fetch_sub(&run->pcp_off_nr, 1);
		}
		break;
	default:
		break;
	}
}

void stress_offline_op(struct stress_thread *t, const struct mm_op *op)
{
	struct stress_run *run = t->run;

	if (t->service) {
		note_service_op(t, op);
		return;
	}
	/*
	 * A worker's admission: its own lists of the disabled zones (cheap when
	 * none is). Not in the final free, which enables every zone without
	 * the service (stress_free_all()).
	 */
	if (atomic_load_explicit(&run->pcp_off_nr, memory_order_relaxed) &&
	    !atomic_load_explicit(&run->stop, memory_order_relaxed))
		check_disabled_zones(run, (unsigned int)t->cpu, (unsigned int)t->cpu + 1,
				     "after this CPU's op");
}

/* ------------------------------------------------------------------------
 * The isolation service
 * ---------------------------------------------------------------------- */

static unsigned int rand_below(struct stress_thread *t, unsigned int n)
{
	return n ? (unsigned int)(mm_splitmix64(&t->rng) % n) : 0;
}

/* An online CPU to run the op as, from a random start; -1 if none. */
static int online_cpu(struct stress_thread *t)
{
	unsigned int n = t->run->nr_workers, start = rand_below(t, n);

	for (unsigned int k = 0; k < n; k++)
		if (mm_cpu_is_online(t->run->sim, (int)((start + k) % n)))
			return (int)((start + k) % n);
	return -1;
}

static bool range_op(struct stress_thread *t, uint8_t kind, int cpu, unsigned int z, uint64_t start,
		     uint64_t pages)
{
	struct stress_run *run = t->run;
	struct mm_op op = {.kind = kind, .cpu = (uint16_t)cpu};

	op.range.node = (int16_t)run->zones[z].node;
	op.range.zone = (uint8_t)run->zones[z].type;
	op.range.start = (uint32_t)start;
	op.range.pages = (uint16_t)pages;
	/* It runs as cpu: that CPU's worker waits (its per-CPU counts are its own). */
	pthread_mutex_lock(&run->t[cpu]->cpu_lock);
	bool done = stress_apply(t, &op) != 0;
	pthread_mutex_unlock(&run->t[cpu]->cpu_lock);
	return done;
}

/*
 * One step: online one of the ranges it offlined, or offline one or two
 * pageblocks of a random zone, or take them with alloc_contig_range() and
 * give them back with free_contig_range() in the same step (so no quiesce
 * point sees pages only this thread holds). Ranges holding a worker's page
 * fail: nothing lends the model a handle to migrate it (as a pinned page
 * makes offlining fail).
 */
int stress_run_isolate(struct stress_thread *t, struct mm_op *unused, struct stress_block *b)
{
	struct stress_run *run = t->run;
	uint64_t pb = UINT64_C(1) << run->cfg.pageblock_order;
	int cpu = online_cpu(t);
	unsigned int z, what = rand_below(t, 4);

	(void)unused;
	(void)b;
	if (cpu < 0)
		return 1;
	if (run->nr_offlined && (what == 0 || run->nr_offlined == STRESS_OFFLINED_MAX)) {
		unsigned int i = rand_below(t, run->nr_offlined);
		bool ok = range_op(t, MM_OP_ONLINE_PAGES, cpu, run->offlined[i].z,
				   run->offlined[i].start, run->offlined[i].pages);
		run->offlined[i] = run->offlined[--run->nr_offlined];
		return ok ? 0 : 1;
	}
	z = rand_below(t, run->nr_zones);
	uint64_t first = (run->zones[z].start + pb - 1) & ~(pb - 1);
	uint64_t blocks = run->zones[z].end > first ? (run->zones[z].end - first) / pb : 0;
	uint64_t pages = pb * (1 + rand_below(t, 2));
	if (blocks < 4 || pages > 65535)
		return 1;
	uint64_t start = first + pb * rand_below(t, (unsigned int)(blocks - pages / pb + 1));
	if (what < 2) {
		if (!range_op(t, MM_OP_OFFLINE_PAGES, cpu, z, start, pages))
			return 1;
		run->offlined[run->nr_offlined].z = z;
		run->offlined[run->nr_offlined].start = start;
		run->offlined[run->nr_offlined++].pages = pages;
		return 0;
	}
	if (!range_op(t, MM_OP_ALLOC_CONTIG, cpu, z, start, pages))
		return 1;
	range_op(t, MM_OP_FREE_CONTIG, cpu, z, start, pages);
	return 0;
}
