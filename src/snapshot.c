/* SPDX-License-Identifier: MIT */
/*
 * snapshot.c - a quiesced machine as bytes, and back: the stress
 * harness's flight recorder keeps one at each quiesce point, so the
 * deterministic executor can replay a failure's window from the state it
 * started in rather than from a freshly booted machine.
 *
 * One walk over the machine's state serves all three directions: taking a
 * snapshot appends every region's bytes to a buffer; restoring builds the
 * machine from its config with mm_sim_init() (buffers, locks, zonelists,
 * the variant's policy, the boot counters) and then reads every region
 * back over it. Structs are copied whole, so a field added later is
 * carried without a change here; only their links (pointers, locks,
 * buffer capacities: what the restoring machine built for itself) are
 * put back afterwards, by the *_keep_links() functions below.
 *
 * The file (mm_snapshot_write/read): a text line naming the format, its
 * version, the build's struct layout, the payload's size and its FNV-1a
 * checksum; then the payload: the config, the variant, the blocks held
 * outside the machine (mm_snapshot.handles) and the state.
 */
#include "internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define SNAPSHOT_MAGIC	 "mmfuzz-snapshot"
#define SNAPSHOT_VERSION 1u

/* ------------------------------------------------------------------------
 * The walk: one region at a time, out to a buffer or in from one
 * ---------------------------------------------------------------------- */

struct snap_io {
	bool load;
	uint8_t *buf;
	size_t len, cap, pos;
};

static int io_bytes(struct snap_io *io, void *p, size_t n)
{
	if (io->load) {
		if (n > io->len - io->pos)
			return -1;
		memcpy(p, io->buf + io->pos, n);
		io->pos += n;
		return 0;
	}
	if (n > io->cap - io->len) {
		size_t cap = io->cap ? io->cap : 4096;
		while (n > cap - io->len)
			cap *= 2;
		uint8_t *b = realloc(io->buf, cap);
		if (!b)
			return -1;
		io->buf = b;
		io->cap = cap;
	}
	memcpy(io->buf + io->len, p, n);
	io->len += n;
	return 0;
}

typedef void keep_links_fn(void *obj, const void *own);

/*
 * A struct, whole. Out: with its links zeroed, so the bytes depend on the
 * state alone (two snapshots of equal machines are equal). In: read over
 * the live struct, whose own links are then put back.
 */
static int io_struct(struct snap_io *io, void *obj, size_t size, keep_links_fn *keep)
{
	void *copy = malloc(size), *zero = calloc(1, size);
	int ret = -1;

	if (!copy || !zero)
		goto out;
	memcpy(copy, obj, size);
	if (!io->load) {
		keep(copy, zero);
		ret = io_bytes(io, copy, size);
	} else if (!io_bytes(io, obj, size)) {
		keep(obj, copy);
		ret = 0;
	}
out:
	free(copy);
	free(zero);
	return ret;
}

/* What the restoring machine built for itself; the snapshot's values are not its own. */
static void sim_keep_links(void *obj, const void *own_)
{
	struct mm_sim *sim = obj;
	const struct mm_sim *own = own_;

	sim->cfg = own->cfg;
	sim->policy = own->policy;
	sim->variant = own->variant;
	memcpy(sim->node_data, own->node_data, sizeof(sim->node_data));
	sim->pgdat_buf = own->pgdat_buf;
	sim->pgdat_cap = own->pgdat_cap;
	sim->mem_map = own->mem_map;
	sim->memmap_cap = own->memmap_cap;
	sim->pageblock_flags = own->pageblock_flags;
	sim->pb_cap = own->pb_cap;
	memcpy(&sim->hotplug_lock, &own->hotplug_lock, sizeof(sim->hotplug_lock));
	memcpy(&sim->pcp_batch_high_lock, &own->pcp_batch_high_lock,
	       sizeof(sim->pcp_batch_high_lock));
	sim->pcp_buf = own->pcp_buf;
	sim->pcp_lock_buf = own->pcp_lock_buf;
	sim->pcp_cap = own->pcp_cap;
	sim->zonestat_buf = own->zonestat_buf;
	sim->zonestat_cap = own->zonestat_cap;
	sim->cpu_stats = own->cpu_stats;
	sim->cpu_stats_cap = own->cpu_stats_cap;
	sim->serial = own->serial;
	sim->strict_watermarks = own->strict_watermarks;
	sim->on_violation = own->on_violation;
	sim->violation_arg = own->violation_arg;
	atomic_store_explicit(&sim->nr_violations,
			      atomic_load_explicit(&own->nr_violations, memory_order_relaxed),
			      memory_order_relaxed);
	sim->reset_bytes = own->reset_bytes;
	sim->pcc = own->pcc;
	memcpy(&sim->kswapd_lock, &own->kswapd_lock, sizeof(sim->kswapd_lock));
	sim->jitter = own->jitter;
	sim->jitter_arg = own->jitter_arg;
	sim->reclaimer = own->reclaimer;
	sim->reclaimer_arg = own->reclaimer_arg;
	sim->handles = own->handles;
	sim->nr_handles = own->nr_handles;
	sim->compact = own->compact;
	sim->node_distance = own->node_distance;
	sim->migrate_src = own->migrate_src;
	atomic_store_explicit(&sim->compact_threads,
			      atomic_load_explicit(&own->compact_threads, memory_order_relaxed),
			      memory_order_relaxed);
	/*
	 * Past the machine's CPUs and nodes a reused sim holds the last
	 * machine's values (online bits, node counts, the checker's derived
	 * shadow), which nothing reads: not state, so two equal machines
	 * snapshot alike whatever ran before them. Plain copies: a snapshot's
	 * sim is quiesced, and these are a private copy or its restore. A
	 * corrupt snapshot's shape is refused after this: bounded here.
	 */
	unsigned int c0 = sim->nr_cpus < MM_MAX_CPUS ? sim->nr_cpus : MM_MAX_CPUS;
	unsigned int n0 = sim->nr_nodes < MM_MAX_NODES ? sim->nr_nodes : MM_MAX_NODES;
	memcpy(&sim->cpu_to_node[c0], &own->cpu_to_node[c0],
	       (MM_MAX_CPUS - c0) * sizeof(sim->cpu_to_node[0]));
	memcpy(&sim->cpu_online[c0], &own->cpu_online[c0],
	       (MM_MAX_CPUS - c0) * sizeof(sim->cpu_online[0]));
	memcpy(&sim->node_nr_online[n0], &own->node_nr_online[n0],
	       (MM_MAX_NODES - n0) * sizeof(sim->node_nr_online[0]));
	memcpy(sim->derived.zone[n0], own->derived.zone[n0],
	       (MM_MAX_NODES - n0) * sizeof(sim->derived.zone[0]));
	memcpy(&sim->derived.pressure[n0], &own->derived.pressure[n0],
	       (MM_MAX_NODES - n0) * sizeof(sim->derived.pressure[0]));
}

static void zone_keep_links(struct zone *z, const struct zone *own)
{
	z->lock = own->lock;
	z->sim = own->sim;
	z->per_cpu_pageset = own->per_cpu_pageset;
	z->pcp_locks = own->pcp_locks;
	z->per_cpu_zonestats = own->per_cpu_zonestats;
}

static void pgdat_keep_links(void *obj, const void *own_)
{
	struct pglist_data *pgdat = obj;
	const struct pglist_data *own = own_;

	for (int zt = 0; zt < MAX_NR_ZONES; zt++)
		zone_keep_links(&pgdat->node_zones[zt], &own->node_zones[zt]);
	memcpy(pgdat->zonelist, own->zonelist, sizeof(pgdat->zonelist));
	memcpy(pgdat->zonelist_nofallback, own->zonelist_nofallback,
	       sizeof(pgdat->zonelist_nofallback));
}

static void counter_keep_links(struct percpu_counter *fbc, const struct percpu_counter *own)
{
	fbc->lock = own->lock;
	fbc->counters = own->counters;
	fbc->stride = own->stride;
	fbc->list = own->list;
	fbc->maxb = own->maxb;
}

/* Every counter with per-cpu locals: the ops', vm_committed_as, each live mm's rss. */
#define NR_SNAP_COUNTERS (MM_MAX_PCPU_COUNTERS + 1 + MM_MAX_MMS * NR_MM_COUNTERS)

static unsigned int live_counters(struct pcpu_state *s, struct percpu_counter **out)
{
	unsigned int n = 0;

	for (int i = 0; i < MM_MAX_PCPU_COUNTERS; i++)
		out[n++] = &s->ctr[i];
	out[n++] = &s->vm_committed_as;
	for (int m = 0; m < MM_MAX_MMS; m++)
		for (int i = 0; s->mm[m].live && i < NR_MM_COUNTERS; i++)
			out[n++] = &s->mm[m].rss_stat[i];
	return n;
}

static void pcc_keep_links(void *obj, const void *own_)
{
	struct pcpu_state *s = obj;
	const struct pcpu_state *own = own_;

	s->percpu_counters_lock = own->percpu_counters_lock;
	s->percpu_counters = own->percpu_counters;
	memcpy(s->pcpu_cache, own->pcpu_cache, sizeof(s->pcpu_cache));
	memcpy(s->pcpu_cache_size, own->pcpu_cache_size, sizeof(s->pcpu_cache_size));
	counter_keep_links(&s->vm_committed_as, &own->vm_committed_as);
	for (int i = 0; i < MM_MAX_PCPU_COUNTERS; i++)
		counter_keep_links(&s->ctr[i], &own->ctr[i]);
	for (int m = 0; m < MM_MAX_MMS; m++) {
		s->mm[m].pcpu_cid = own->mm[m].pcpu_cid;
		for (int i = 0; i < NR_MM_COUNTERS; i++)
			counter_keep_links(&s->mm[m].rss_stat[i], &own->mm[m].rss_stat[i]);
	}
	s->pcpu_alloc_lock = own->pcpu_alloc_lock;
	memcpy(s->cpu_lock, own->cpu_lock, sizeof(s->cpu_lock));
	memcpy(s->mm_lock, own->mm_lock, sizeof(s->mm_lock));
}

/*
 * A freshly built machine has no mm: give each mm the snapshot holds live
 * its per-cpu areas, as mm_init() lays them out (one init_many, or one
 * area per counter for the variant's pre-6.6 fork), before the values
 * are read over them.
 */
static int pcc_alloc_mms(struct mm_sim *sim, const struct pcpu_state *in)
{
	struct pcpu_state *s = sim->pcc;

	for (int m = 0; m < MM_MAX_MMS; m++) {
		struct mm_struct *mm = &s->mm[m];
		if (!in->mm[m].live || mm->live)
			continue;
		mm->pcpu_cid = __alloc_percpu_gfp(sim, sizeof(int32_t));
		if (!mm->pcpu_cid)
			return -1;
		mm->rss_one_by_one = in->mm[m].rss_one_by_one;
		if (!mm->rss_one_by_one) {
			if (percpu_counter_init_many(sim, mm->rss_stat, 0, NR_MM_COUNTERS))
				return -1;
		} else {
			for (int i = 0; i < NR_MM_COUNTERS; i++)
				if (percpu_counter_init(sim, &mm->rss_stat[i], 0))
					return -1;
		}
		mm->live = true;
	}
	return 0;
}

static int walk_pcc(struct mm_sim *sim, struct snap_io *io)
{
	struct pcpu_state *s = sim->pcc, *own = NULL, *in = NULL;
	struct percpu_counter *ctrs[NR_SNAP_COUNTERS];
	int ret = -1;

	if (!io->load) {
		if (io_struct(io, s, sizeof(*s), pcc_keep_links))
			return -1;
	} else {
		own = malloc(sizeof(*own));
		in = malloc(sizeof(*in));
		if (!own || !in || io_bytes(io, in, sizeof(*in)) || pcc_alloc_mms(sim, in))
			goto out;
		memcpy(own, s, sizeof(*s));
		memcpy(s, in, sizeof(*s));
		pcc_keep_links(s, own);
	}
	/* The locals, CPU by CPU: layouts (strides) differ between init_many and one by one. */
	unsigned int n = live_counters(s, ctrs);
	for (unsigned int k = 0; k < n; k++) {
		struct percpu_counter *fbc = ctrs[k];
		if (!fbc->counters)
			goto out;
		for (unsigned int c = 0; c < sim->nr_cpus; c++)
			if (io_bytes(io, &fbc->counters[c * fbc->stride], sizeof(int32_t)) ||
			    io_bytes(io, &fbc->maxb[c * fbc->stride], sizeof(int32_t)))
				goto out;
	}
	ret = 0;
out:
	free(own);
	free(in);
	return ret;
}

/* Compaction's scratch lists, shadow and flush copy belong to a pass, not to the state. */
static void compact_keep_links(void *obj, const void *own_)
{
	struct compact_state *cs = obj;
	const struct compact_state *own = own_;

	cs->freepages = own->freepages;
	cs->migratepages = own->migratepages;
	cs->pfn_cap = own->pfn_cap;
	cs->visits = own->visits;
	cs->scanned_by = own->scanned_by;
	cs->flush_before = own->flush_before;
	cs->flush_saved = own->flush_saved;
	cs->block_cap = own->block_cap;
	cs->fill = own->fill;
	cs->cap_fill = own->cap_fill;
	cs->before = own->before;
	cs->after = own->after;
	cs->before_valid = own->before_valid;
	cs->in_shadow = own->in_shadow;
	cs->mig_owner = own->mig_owner;
	cs->mig_gen = own->mig_gen;
	cs->next_thread = own->next_thread;
	cs->cookie = own->cookie;
}

/* Compaction's fill pool (blocks it allocated for itself) and its figures. */
static int walk_compact(struct mm_sim *sim, struct snap_io *io)
{
	struct compact_state *cs = sim->compact;

	if (!cs)
		return 0;
	if (io_struct(io, cs, sizeof(*cs), compact_keep_links))
		return -1;
	if (cs->nr_fill > cs->cap_fill || (cs->nr_fill && cs->fill_cursor >= cs->nr_fill))
		return -1;
	return cs->nr_fill ? io_bytes(io, cs->fill, cs->nr_fill * sizeof(*cs->fill)) : 0;
}

/*
 * The order is the format: the machine's scalars, its nodes and zones,
 * the page descriptors and pageblock bits, the pagesets and vmstat diffs,
 * the event counters, the node distances, the counters and mms, compaction.
 */
static int walk(struct mm_sim *sim, struct snap_io *io)
{
	size_t nr_blocks = (size_t)(sim->max_pfn >> sim->pageblock_order) + 1;
	struct mm_sim *own = malloc(sizeof(*own));
	int ret = -1;

	if (!own)
		return -1;
	memcpy(own, sim, sizeof(*sim));
	if (io_struct(io, sim, sizeof(*sim), sim_keep_links))
		goto out;
	/* the machine's shape comes from the same config: a snapshot that differs is corrupt */
	if (sim->nr_nodes != own->nr_nodes || sim->nr_cpus != own->nr_cpus ||
	    sim->max_pfn != own->max_pfn || sim->max_order != own->max_order ||
	    sim->pageblock_order != own->pageblock_order)
		goto out;
	for (unsigned int n = 0; n < sim->nr_nodes; n++)
		if (io_struct(io, sim->node_data[n], sizeof(struct pglist_data), pgdat_keep_links))
			goto out;
	if (io_bytes(io, sim->mem_map, sim->max_pfn * sizeof(struct page)) ||
	    io_bytes(io, sim->pageblock_flags, nr_blocks))
		goto out;
	for_each_zone(sim, z) {
		if (!z->per_cpu_pageset)
			continue;
		if (io_bytes(io, z->per_cpu_pageset, sim->nr_cpus * sizeof(struct per_cpu_pages)) ||
		    io_bytes(io, z->per_cpu_zonestats,
			     sim->nr_cpus * sizeof(struct per_cpu_zonestat)))
			goto out;
	}
	if (io_bytes(io, sim->cpu_stats, sim->nr_cpus * sizeof(*sim->cpu_stats)))
		goto out;
	uint8_t has_distance = own->node_distance != NULL;
	size_t nr_dist = (size_t)sim->nr_nodes * sim->nr_nodes;
	if (io_bytes(io, &has_distance, 1))
		goto out;
	if (io->load && has_distance && !sim->node_distance) {
		sim->node_distance = calloc(nr_dist, 1);
		if (!sim->node_distance)
			goto out;
	}
	if (has_distance && io_bytes(io, sim->node_distance, nr_dist))
		goto out;
	ret = walk_pcc(sim, io) || walk_compact(sim, io) ? -1 : 0;
out:
	free(own);
	return ret;
}

/* ------------------------------------------------------------------------
 * Taking and restoring
 * ---------------------------------------------------------------------- */

void mm_snapshot_init(struct mm_snapshot *s)
{
	memset(s, 0, sizeof(*s));
}

void mm_snapshot_free(struct mm_snapshot *s)
{
	free(s->state);
	free(s->handles);
	mm_snapshot_init(s);
}

int mm_snapshot_take(struct mm_snapshot *s, struct mm_sim *sim)
{
	struct snap_io io = {.load = false, .buf = s->state, .cap = s->state_cap};
	int ret = walk(sim, &io);

	s->state = io.buf;
	s->state_cap = io.cap;
	s->state_len = ret ? 0 : io.len;
	s->cfg = sim->cfg;
	s->variant = sim->variant;
	s->threaded = !sim->serial;
	s->nr_handles = 0;
	return ret;
}

int mm_snapshot_set_handles(struct mm_snapshot *s, const struct mm_handle *h, uint32_t n)
{
	struct mm_handle *copy = n ? malloc(n * sizeof(*copy)) : NULL;

	if (n && !copy)
		return -1;
	if (n)
		memcpy(copy, h, n * sizeof(*copy));
	free(s->handles);
	s->handles = copy;
	s->nr_handles = n;
	return 0;
}

/*
 * The executor names a block by its handle number and checks it as the
 * stamp's owner at free: each held block's pages get the number of the
 * handle the replay adopts it as.
 */
static int stamp_handles(struct mm_sim *sim, const struct mm_snapshot *s)
{
	for (uint32_t i = 0; i < s->nr_handles; i++) {
		const struct mm_handle *h = &s->handles[i];
		uint64_t nr = UINT64_C(1) << h->order;
		if (h->pfn < 0)
			continue;
		if (h->order > sim->max_order || (uint64_t)h->pfn + nr > sim->max_pfn)
			return -1;
		for (uint64_t k = 0; k < nr; k++)
			pfn_to_page(sim, (uint64_t)h->pfn + k)->stamp.owner = i;
	}
	return 0;
}

/*
 * The checker's shadow of what the last vmstat threshold recompute set
 * (check_derived.c) is kept by serial runs only: under threads the stress
 * harness checks thresholds and drift marks against the rules right after
 * each hotplug event instead, so a threaded machine's snapshot carries its
 * boot-time shadow. The replay rebuilds it from the kernel's rules for the
 * machine at the quiesce point: the normal threshold for the CPUs online
 * now, where the node's kswapd has not applied the pressure ones. The
 * drift mark is recomputed only by a refresh, from the watermarks of that
 * moment, which a later sysctl may have moved: the rule now could differ
 * from a correct mark, so the mark in force is taken (the stress checks
 * judged it against the rule when hotplug set it). So are the pressure
 * thresholds, whose rule check_derived.c keeps to itself. The replay's
 * checks judge every recompute in the window from there.
 */
static void derived_from_quiesce_point(struct mm_sim *sim)
{
	for_each_zone(sim, z) {
		struct derived_zone *d = &sim->derived.zone[z->node][z->type];
		struct derived_hotplug_rules r;
		if (!z->per_cpu_zonestats)
			continue;
		_mm_derived_hotplug_rules(sim, z, z->percpu_drift_mark, &r);
		d->drift_mark = z->percpu_drift_mark;
		d->threshold = (int8_t)r.threshold;
		for (unsigned int c = 0;
		     c < sim->nr_cpus && sim->node_data[z->node]->kswapd.pressure; c++) {
			if (mm_cpu_is_online(sim, (int)c)) {
				d->threshold = z->per_cpu_zonestats[c].stat_threshold;
				break;
			}
		}
	}
	for (unsigned int n = 0; n < sim->nr_nodes; n++)
		sim->derived.pressure[n] = sim->node_data[n]->kswapd.pressure;
	sim->derived.online = mm_num_online_cpus(sim);
	sim->derived.pending = sim->deferred_pending;
}

int mm_snapshot_restore(struct mm_sim *sim, const struct mm_snapshot *s, int variant)
{
	struct snap_io io = {.load = true, .buf = s->state, .len = s->state_len};

	if (mm_sim_init(sim, &s->cfg, variant))
		return -1;
	if (walk(sim, &io) || io.pos != io.len)
		return -1;
	if (s->threaded)
		derived_from_quiesce_point(sim);
	return stamp_handles(sim, s);
}

/* A deep copy of a quiesced machine: the snapshot's walk out of src and into dst. */
int mm_sim_copy(struct mm_sim *dst, struct mm_sim *src)
{
	struct mm_snapshot s;
	int ret;

	mm_snapshot_init(&s);
	ret = mm_snapshot_take(&s, src) || mm_snapshot_restore(dst, &s, src->variant) ? -1 : 0;
	mm_snapshot_free(&s);
	return ret;
}

/* ------------------------------------------------------------------------
 * The file
 * ---------------------------------------------------------------------- */

static uint64_t fnv1a(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= UINT64_C(0x100000001b3);
	}
	return h;
}

#define FNV_BASIS UINT64_C(0xcbf29ce484222325)

struct snap_head {
	struct mm_config cfg;
	int32_t variant;
	uint32_t threaded;
	uint32_t nr_handles;
	uint64_t state_len;
};

/* The build's layout of what the payload holds raw: a file from another build is refused. */
static uint64_t layout(void)
{
	const uint64_t sizes[] = {sizeof(struct snap_head),
				  sizeof(struct mm_config),
				  sizeof(struct mm_handle),
				  sizeof(struct mm_sim),
				  sizeof(struct pglist_data),
				  sizeof(struct zone),
				  sizeof(struct page),
				  sizeof(struct per_cpu_pages),
				  sizeof(struct per_cpu_zonestat),
				  sizeof(struct mm_cpu_stats),
				  sizeof(struct pcpu_state),
				  sizeof(struct compact_state),
				  MM_MAX_CPUS,
				  MM_MAX_NODES,
				  MAX_NR_ZONES,
				  MM_NR_PAGE_ORDERS};

	return fnv1a(FNV_BASIS, sizes, sizeof(sizes));
}

int mm_snapshot_write(const struct mm_snapshot *s, FILE *f)
{
	struct snap_head head;
	uint64_t sum;

	memset(&head, 0, sizeof(head));
	head.cfg = s->cfg;
	head.variant = s->variant;
	head.threaded = s->threaded;
	head.nr_handles = s->nr_handles;
	head.state_len = s->state_len;
	size_t hbytes = s->nr_handles * sizeof(*s->handles);
	sum = fnv1a(FNV_BASIS, &head, sizeof(head));
	sum = fnv1a(sum, s->handles, hbytes);
	sum = fnv1a(sum, s->state, s->state_len);
	fprintf(f, "%s %u layout=%016llx bytes=%llu fnv1a=%016llx\n", SNAPSHOT_MAGIC,
		SNAPSHOT_VERSION, (unsigned long long)layout(),
		(unsigned long long)(sizeof(head) + hbytes + s->state_len),
		(unsigned long long)sum);
	if (fwrite(&head, sizeof(head), 1, f) != 1 ||
	    (hbytes && fwrite(s->handles, hbytes, 1, f) != 1) ||
	    (s->state_len && fwrite(s->state, s->state_len, 1, f) != 1))
		return -1;
	return ferror(f) ? -1 : 0;
}

#define FAIL(...)                                                                                  \
	do {                                                                                       \
		snprintf(err, errlen, __VA_ARGS__);                                                \
		goto fail;                                                                         \
	} while (0)

int mm_snapshot_read(const uint8_t *data, size_t len, struct mm_snapshot *s, char *err,
		     size_t errlen)
{
	unsigned int version;
	unsigned long long lay, bytes, sum;
	struct snap_head head;
	char line[160];
	const uint8_t *nl = memchr(data, '\n', len < sizeof(line) ? len : sizeof(line));

	mm_snapshot_free(s);
	if (!nl)
		FAIL("not a machine snapshot (no header line)");
	memcpy(line, data, (size_t)(nl - data));
	line[nl - data] = '\0';
	if (sscanf(line, SNAPSHOT_MAGIC " %u layout=%llx bytes=%llu fnv1a=%llx", &version, &lay,
		   &bytes, &sum) != 4)
		FAIL("not a machine snapshot (bad header line)");
	if (version != SNAPSHOT_VERSION)
		FAIL("snapshot format version %u, this mmfuzz reads version %u", version,
		     SNAPSHOT_VERSION);
	if (lay != layout())
		FAIL("snapshot written by a different build of mmfuzz (struct layout differs)");
	const uint8_t *p = nl + 1;
	size_t left = len - (size_t)(p - data);
	if (bytes != left)
		FAIL("snapshot truncated or padded: %zu payload bytes, the header says %llu", left,
		     bytes);
	if (fnv1a(FNV_BASIS, p, left) != sum)
		FAIL("snapshot corrupt: checksum mismatch");
	if (left < sizeof(head))
		FAIL("snapshot truncated: no machine header");
	memcpy(&head, p, sizeof(head));
	p += sizeof(head);
	left -= sizeof(head);
	if (mm_config_validate(&head.cfg, line, sizeof(line)))
		FAIL("snapshot's machine is invalid: %s", line);
	if (head.nr_handles > left / sizeof(struct mm_handle) ||
	    head.state_len != left - head.nr_handles * sizeof(struct mm_handle))
		FAIL("snapshot corrupt: the sizes inside disagree");
	size_t hbytes = head.nr_handles * sizeof(struct mm_handle);
	s->cfg = head.cfg;
	s->variant = head.variant;
	s->threaded = head.threaded != 0;
	s->handles = hbytes ? malloc(hbytes) : NULL;
	s->state = head.state_len ? malloc(head.state_len) : NULL;
	if ((hbytes && !s->handles) || (head.state_len && !s->state))
		FAIL("out of memory");
	if (hbytes)
		memcpy(s->handles, p, hbytes);
	s->nr_handles = head.nr_handles;
	if (head.state_len)
		memcpy(s->state, p + hbytes, head.state_len);
	s->state_len = s->state_cap = head.state_len;
	return 0;
fail:
	mm_snapshot_free(s);
	return -1;
}
