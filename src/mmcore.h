/* SPDX-License-Identifier: MIT */
/*
 * mmcore.h - the public API of mmcore, a userspace model of the Linux page
 * allocator built to check its invariants under fuzzing and stress.
 *
 * Three layers use it: the allocator core (struct mm_sim), the operation
 * language that turns bytes or text into programs (struct mm_prog), and the
 * executor that runs a program deterministically on simulated CPUs.
 * Internals live in src/internal.h.
 */
#ifndef MMCORE_H
#define MMCORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------
 * Machine limits and kernel enums
 * ---------------------------------------------------------------------- */

/* A big NUMA box: 64 nodes, 1024 CPUs (mmfuzz stress, docs/big-machines.md). */
#define MM_MAX_NODES	  64
#define MM_MAX_CPUS	  1024
#define MM_MAX_PAGE_ORDER 10 /* the kernel's MAX_PAGE_ORDER default */
#define MM_NR_PAGE_ORDERS (MM_MAX_PAGE_ORDER + 1)
#define MM_PAGE_SHIFT	  12

enum zone_type {
	ZONE_DMA,
	ZONE_DMA32,
	ZONE_NORMAL,
	ZONE_MOVABLE,
	ZONE_DEVICE,
	MAX_NR_ZONES
};

/* No CONFIG_CMA: MIGRATE_ISOLATE follows HIGHATOMIC directly. */
enum migratetype {
	MIGRATE_UNMOVABLE,
	MIGRATE_MOVABLE,
	MIGRATE_RECLAIMABLE,
	MIGRATE_PCPTYPES,
	MIGRATE_HIGHATOMIC = MIGRATE_PCPTYPES,
	MIGRATE_ISOLATE,
	MIGRATE_TYPES
};

enum zone_watermarks {
	WMARK_MIN,
	WMARK_LOW,
	WMARK_HIGH,
	WMARK_PROMO,
	NR_WMARK
};

/* The gfp bits the model understands (a subset of the kernel's). */
#define MM_GFP_DMA	      0x01u
#define MM_GFP_DMA32	      0x02u
#define MM_GFP_MOVABLE	      0x04u /* __GFP_MOVABLE: MIGRATE_MOVABLE */
#define MM_GFP_RECLAIMABLE    0x08u /* __GFP_RECLAIMABLE */
#define MM_GFP_HIGH	      0x10u /* __GFP_HIGH -> ALLOC_MIN_RESERVE */
#define MM_GFP_DIRECT_RECLAIM 0x20u /* absent: ALLOC_NON_BLOCK (+HIGHATOMIC) */
#define MM_GFP_THISNODE	      0x40u
#define MM_GFP_NOMEMALLOC     0x80u
#define MM_GFP_MEMALLOC	      0x100u /* ALLOC_NO_WATERMARKS */
#define MM_GFP_OOM	      0x200u /* not a gfp bit: the caller is an OOM victim (ALLOC_OOM) */
#define MM_GFP_HIGHMEM	      0x400u /* with MOVABLE: highest zone ZONE_MOVABLE */
#define MM_GFP_KSWAPD_RECLAIM 0x800u
#define MM_GFP_ALL	      0xfffu
/*
 * Not a gfp bit: the slow path may run direct compaction when the
 * allocation fails (seed 001). Outside MM_GFP_ALL, so plain alloc ops never
 * carry it; the compaction ops' alloc form does.
 */
#define MM_GFP_COMPACT 0x1000u

#define MM_GFP_KERNEL		(MM_GFP_DIRECT_RECLAIM | MM_GFP_KSWAPD_RECLAIM)
#define MM_GFP_ATOMIC		(MM_GFP_HIGH | MM_GFP_KSWAPD_RECLAIM)
#define MM_GFP_NOWAIT		MM_GFP_KSWAPD_RECLAIM
#define MM_GFP_HIGHUSER_MOVABLE (MM_GFP_KERNEL | MM_GFP_HIGHMEM | MM_GFP_MOVABLE)

/* The masks real callers pass, for workloads to draw from (tests, stress). */
#define MM_NR_GFP_COMMON 11
extern const uint16_t mm_gfp_common[MM_NR_GFP_COMMON];

/* ------------------------------------------------------------------------
 * Machine configuration
 * ---------------------------------------------------------------------- */

struct mm_zone_config {
	uint64_t start_pfn;
	uint64_t spanned; /* pfns the zone spans, holes included */
	uint64_t present; /* spanned minus holes */
	uint64_t managed; /* present minus reserved: what the buddy gets */
};

struct mm_config {
	unsigned int nr_nodes; /* 1..MM_MAX_NODES */
	unsigned int cpus_per_node[MM_MAX_NODES];
	struct mm_zone_config zones[MM_MAX_NODES][MAX_NR_ZONES];
	unsigned int max_order;			    /* MAX_PAGE_ORDER: pageblock_order..10 */
	unsigned int pageblock_order;		    /* 1..max_order */
	unsigned int min_free_kbytes;		    /* 0: the kernel's default formula */
	unsigned int watermark_scale_factor;	    /* 1..3000, kernel default 10 */
	unsigned int percpu_pagelist_high_fraction; /* 0 or >= 8 */
	/*
	 * Deferred struct page init: 0 off; else the pages of each node's
	 * highest zone initialised at boot (rounded up to a pageblock).
	 */
	uint64_t deferred_init_pages;
	/*
	 * Each CPU's share of its last-level cache, in KB (cacheinfo's
	 * per_cpu_data_slice_size): 0 when not known, as without cacheinfo.
	 * The kernel keeps a batch of high-order frees on the pcp lists when
	 * it exceeds 3 batches (PCPF_FREE_HIGH_BATCH, 6.7+). 0..65535.
	 */
	unsigned int cache_slice_kb;
};

/* The kernel's defaults (1 node, 1 CPU, orders 10/9, wsf 10) and no zones yet. */
void mm_config_init(struct mm_config *cfg);
/* Fills a small valid machine: 1 node, 2 CPUs, DMA32 + Normal. */
void mm_config_default(struct mm_config *cfg);
/* Returns 0, or -1 with a one-line reason in err. */
int mm_config_validate(const struct mm_config *cfg, char *err, size_t errlen);
unsigned int mm_config_nr_cpus(const struct mm_config *cfg);
/* Pages the simulation must describe (the highest zone end pfn). */
uint64_t mm_config_max_pfn(const struct mm_config *cfg);
const char *mm_zone_name(enum zone_type zt);
const char *mm_migratetype_name(int mt);

/* ------------------------------------------------------------------------
 * A real machine's shape: /proc/zoneinfo in and out (src/zoneinfo.c)
 * ---------------------------------------------------------------------- */

#define MM_ZONEINFO_EBADTEXT (-1) /* the text is not a usable zoneinfo */
#define MM_ZONEINFO_ECPUS    (-2) /* the CPU arguments do not fit its nodes */

/*
 * Builds the machine a /proc/zoneinfo text describes: its nodes, and per
 * zone the spanned/present/managed pages and start pfn (a zone with no
 * present pages is absent: the kernel prints no start_pfn for it). max_order 10, pageblock_order 9,
 * the kernel's default watermark_scale_factor and min_free_kbytes 0 (its default formula): the
 * caller overrides them after. nr_cpus CPUs go to the nodes as
 * cpus_per_node says (nr_cpus_per_node entries, one per node of the text,
 * summing to nr_cpus), or, when it is NULL, evenly with the remainder on the
 * first nodes; a node may have none. Returns 0, or MM_ZONEINFO_EBADTEXT with
 * "line N: reason" (or a reason about the whole text) in err, or
 * MM_ZONEINFO_ECPUS with a reason in err.
 */
int mm_config_from_zoneinfo(const char *text, unsigned int nr_cpus,
			    const unsigned int *cpus_per_node, unsigned int nr_cpus_per_node,
			    struct mm_config *cfg, char *err, size_t errlen);
struct mm_sim;
/*
 * A finding, INV-ZONEINFO-STALE-MANAGED: for each zone of the text whose
 * printed min/low/high differ from sim's (sim built from the same text),
 * one violation: the kernel set the marks up from other managed pages than
 * the dump shows. Returns the zones reported; 0 for a text it cannot read.
 */
unsigned int mm_zoneinfo_check_marks(struct mm_sim *sim, const char *text);

struct mm_sim;
/* Prints the model's zones in /proc/zoneinfo's layout: the lines it models. */
void mm_print_zoneinfo(FILE *f, const struct mm_sim *sim);
/*
 * The rest of what a bug report carries (src/procfs.c): /proc/buddyinfo,
 * /proc/pagetypeinfo (free blocks per order and migratetype, walked from
 * the lists, and pageblocks per type) and the free-page and compaction
 * lines of /proc/vmstat, in the kernel's layouts.
 */
void mm_print_buddyinfo(FILE *f, const struct mm_sim *sim);
void mm_print_pagetypeinfo(FILE *f, const struct mm_sim *sim);
void mm_print_vmstat(FILE *f, const struct mm_sim *sim);
/*
 * The zones of the kernel that printed a zoneinfo text: the entries of its
 * first "protection:" line (4 for a kernel without ZONE_DEVICE), at most
 * MAX_NR_ZONES; MAX_NR_ZONES when it has none.
 */
unsigned int mm_zoneinfo_nr_zones(const char *text);
/* As mm_print_zoneinfo(), for a kernel of nr_zones zones (the model's first nr_zones). */
void mm_print_zoneinfo_zones(FILE *f, const struct mm_sim *sim, unsigned int nr_zones);

/* ------------------------------------------------------------------------
 * Violations: every invariant failure goes through mm_report_violation()
 * ---------------------------------------------------------------------- */

#define MM_NONE (-1L)

struct mm_violation {
	const char *id;	     /* stable: "INV-BUDDY-MERGED" */
	int node, zone, cpu; /* -1 when not applicable */
	long long pfn;	     /* -1 when not applicable */
	long long expected, actual;
	char detail[160];
};

typedef void (*mm_violation_fn)(const struct mm_violation *v, void *arg);

/* Formats v on one line (no newline) into buf. */
void mm_violation_format(const struct mm_violation *v, char *buf, size_t len);

/* ------------------------------------------------------------------------
 * Policies and variants (historical bugs switched back on)
 * ---------------------------------------------------------------------- */

/* What a variant proves: a bug the checks catch, a race, or a cost the bench counts */
enum mm_variant_kind {
	MM_VARIANT_BUG,	 /* caught by a fuzz target; a trace in corpus/variants/ */
	MM_VARIANT_RACE, /* only real threads show it: caught by mmfuzz stress */
	MM_VARIANT_COST, /* no invariant breaks: its proof is a counted figure */
};

struct mm_variant {
	const char *name; /* "buddy-no-merge-order3" */
	enum mm_variant_kind kind;
	const char *target; /* what catches it: fuzz_<x>, stress or bench */
	const char *origin; /* the kernel commit or thread it comes from */
	const char *breaks; /* one line: what it breaks */
};

#define MM_VARIANT_NONE	   (-1) /* the correct model */
#define MM_VARIANT_UNKNOWN (-2) /* no variant has that name */

size_t mm_variant_count(void);
const struct mm_variant *mm_variant_at(size_t i);
const char *mm_variant_kind_name(enum mm_variant_kind kind); /* "bug", "race", "cost" */
/*
 * The variant's index; MM_VARIANT_NONE for a NULL name, "" or "none" (the
 * correct model), MM_VARIANT_UNKNOWN for a name no variant has.
 */
int mm_variant_lookup(const char *name);

/*
 * A policy plugin (src/policy_plugin.c, docs/policy-lab.md): a shared
 * object defining policy functions by their kernel names. Loaded once per
 * process; every later mm_sim_init() applies what it defines on top of the
 * variant. Returns the number of hooks it defines, or -1 with one line in
 * err (unloadable, or none of the hooks).
 */
int mm_policy_plugin_load(const char *path, char *err, size_t errlen);
const char *mm_policy_plugin_path(void); /* NULL when none is loaded */
size_t mm_policy_hook_count(void);
const char *mm_policy_hook_name(size_t i);
bool mm_policy_plugin_defines(size_t i);
/*
 * A numeric knob as a policy for every later mm_sim_init() (mmfuzz
 * explore): "pressure-threshold", "normal-threshold" (1..125),
 * "pcp-batch", "pcp-high" (high = max(value, batch)), "percpu-batch"
 * (vm_committed_as's batch, every overcommit policy); value 0 goes back
 * to the model's rules. Returns 0, or -1 for
 * an unknown knob, a value out of range, or a plugin already loaded.
 */
int mm_policy_knob_set(const char *knob, long value);

/* ------------------------------------------------------------------------
 * The simulated machine
 * ---------------------------------------------------------------------- */

struct mm_sim;

struct mm_sim *mm_sim_create(void);
void mm_sim_destroy(struct mm_sim *sim);
/*
 * (Re)builds the machine described by cfg, with variant (index or -1),
 * reusing buffers when they are large enough: the per-input reset. Returns
 * 0, or -1 when cfg is invalid or memory is short.
 */
int mm_sim_init(struct mm_sim *sim, const struct mm_config *cfg, int variant);
void mm_sim_set_violation_handler(struct mm_sim *sim, mm_violation_fn fn, void *arg);
/* Number of violations reported so far. */
unsigned long mm_sim_violations(const struct mm_sim *sim);
/* Bytes the last mm_sim_init() wrote: the per-input reset cost. */
size_t mm_sim_reset_bytes(const struct mm_sim *sim);
size_t mm_page_descriptor_size(void);

/* The simulated CPU the calling thread runs as (thread-local). */
void mm_set_current_cpu(int cpu);

/*
 * Under threads the allocations belong to the caller, not to the
 * executor's handles, so kswapd has nothing of its own to reclaim. A
 * stress run lends it a reclaimer: fn frees up to nr pages of node's
 * reclaimable blocks as the current CPU (each block handed over to it
 * first, so it is freed once) and returns the pages it freed. NULL, the
 * default: kswapd reclaims nothing under threads.
 */
/*
 * Stress --jitter: fn runs right after zone->lock is taken and right after
 * it is released, to inject short delays that widen race windows on small
 * boxes (as rcutorture's random delays do). NULL, the default: none.
 */
typedef void (*mm_jitter_fn)(void *arg);
void mm_set_jitter(struct mm_sim *sim, mm_jitter_fn fn, void *arg);

typedef unsigned long (*mm_reclaim_fn)(void *arg, int node, unsigned long nr);
void mm_set_reclaimer(struct mm_sim *sim, mm_reclaim_fn fn, void *arg);

/*
 * Under threads compaction migrates what a stress run lends it, as the
 * kernel migrates LRU pages: isolate takes the order-0 block at pfn off the
 * caller's LRU under its lock (isolate_lru_page()) and returns true with the
 * block's stamp (owner, gen), its ground truth, or false if the LRU does
 * not hold it; putback puts the isolated block back on the LRU at new_pfn
 * (old_pfn if its migration failed: putback_lru_page()). Unset, the
 * default: a run that is not serial does not compact.
 */
struct mm_migrate_src {
	bool (*isolate)(void *arg, uint64_t pfn, uint32_t *owner, uint32_t *gen);
	void (*putback)(void *arg, uint64_t old_pfn, uint64_t new_pfn);
	void *arg;
};
void mm_set_migrate_src(struct mm_sim *sim, const struct mm_migrate_src *src);
int mm_current_cpu(void);

int mm_cpu_online(struct mm_sim *sim, int cpu);
int mm_cpu_offline(struct mm_sim *sim, int cpu);
bool mm_cpu_is_online(const struct mm_sim *sim, int cpu);
unsigned int mm_num_online_cpus(const struct mm_sim *sim);
unsigned int mm_nr_cpus(const struct mm_sim *sim);
int mm_cpu_to_node(const struct mm_sim *sim, int cpu);
/*
 * Node distances (the ACPI SLIT as node_distance() reads it): d[a * nr + b]
 * for the machine's nr nodes, 10 on the diagonal, above 10 elsewhere. Set
 * after mm_sim_init() and before any op: it rebuilds the zonelists in the
 * kernel's order. Without it (and after mm_sim_init()) every remote node
 * is at 20. Returns 0, or -1 with a reason in err if d is not such a table.
 */
int mm_sim_set_node_distances(struct mm_sim *sim, const uint8_t *d, unsigned int nr, char *err,
			      size_t errlen);
int mm_node_distance(const struct mm_sim *sim, int a, int b);

/* Sysctls: recompute watermarks and reserves as the kernel does. */
void mm_set_min_free_kbytes(struct mm_sim *sim, unsigned int kbytes);
void mm_set_watermark_scale_factor(struct mm_sim *sim, unsigned int factor);
/* vm.watermark_boost_factor (default 15000, 0 disables boosting): the next boost's bound */
void mm_set_watermark_boost_factor(struct mm_sim *sim, unsigned int factor);

/*
 * An allocation as the current CPU. owner tags every page of the block (the
 * stamp); the generation is returned in *gen. Returns the first pfn, or -1
 * when no zone could satisfy it (no OOM killer in the model).
 */
long long mm_alloc_pages(struct mm_sim *sim, unsigned int order, unsigned int gfp,
			 int preferred_nid, uint32_t owner, uint32_t *gen);
/* Frees a block; its stamp must still be (owner, gen). */
void mm_free_pages(struct mm_sim *sim, uint64_t pfn, unsigned int order, uint32_t owner,
		   uint32_t gen);

/* pcp drains: this CPU's lists, every CPU's lists (drain_local/all_pages) */
void mm_drain_local_pages(struct mm_sim *sim);
void mm_drain_all_pages(struct mm_sim *sim);
/* zone_pcp_disable()/zone_pcp_enable(), as memory offlining uses them */
void mm_zone_pcp_disable(struct mm_sim *sim, int node, enum zone_type zt);
void mm_zone_pcp_enable(struct mm_sim *sim, int node, enum zone_type zt);
/* The percpu_pagelist_high_fraction sysctl: 0 or >= 8; others are refused. */
int mm_set_high_fraction(struct mm_sim *sim, unsigned int fraction);

/*
 * Deferred struct page init: a step initialises the next nr_pageblocks of
 * node's deferred zone; complete initialises the rest of every node and
 * runs what page_alloc_init_late and the watermark initcall do.
 * Returns the pages initialised.
 */
unsigned long mm_deferred_init_step(struct mm_sim *sim, int node, unsigned int nr_pageblocks);
unsigned long mm_deferred_init_complete(struct mm_sim *sim);
bool mm_deferred_init_pending(const struct mm_sim *sim);

/* Runs every invariant over the whole machine. Returns violations found. */
unsigned long mm_check_full(struct mm_sim *sim);

/* Read-only views used by tools and tests. */
struct mm_zone_info {
	int node;
	enum zone_type type;
	uint64_t start_pfn, spanned, present, managed;
	unsigned long wmark[NR_WMARK];
	unsigned long lowmem_reserve[MAX_NR_ZONES];
	long nr_free_pages;		/* NR_FREE_PAGES: zone_page_state(), the estimate */
	long nr_free_exact;		/* the estimate plus every CPU's diff */
	long min_exact_free, max_drift; /* since boot: lowest exact; largest |drift| */
	long nr_pcp_pages;		/* on the pcp lists of every CPU */
	int pcp_batch, pcp_high_min, pcp_high_max; /* the zone's pageset sizing */
	unsigned long nr_free[MM_NR_PAGE_ORDERS];
};
int mm_zone_info(const struct mm_sim *sim, int node, enum zone_type zt, struct mm_zone_info *out);
struct mm_pcp_info {
	int count, high, high_min, high_max, batch;
	int stat_threshold; /* the CPU's vmstat threshold for the zone */
};
/* One CPU's pageset for a zone; -1 if the zone has none. */
int mm_pcp_info(const struct mm_sim *sim, int node, enum zone_type zt, int cpu,
		struct mm_pcp_info *out);
unsigned int mm_sim_min_free_kbytes(const struct mm_sim *sim);
/* zone->percpu_drift_mark: 0 when the CPUs cannot drift past low - min. */
unsigned long mm_zone_drift_mark(const struct mm_sim *sim, int node, enum zone_type zt);
/* One CPU's vmstat diff of NR_FREE_PAGES in a zone (0 if the zone has none). */
int mm_zone_free_diff(const struct mm_sim *sim, int node, enum zone_type zt, int cpu);
/* Whether node's kswapd is awake, and whether it has applied the pressure thresholds. */
bool mm_kswapd_awake(const struct mm_sim *sim, int node, bool *pressure);
/*
 * The stronger watermark property (mmfuzz --strict-watermarks): an
 * ordinary allocation never takes exact free pages below its reserve
 * floor, whatever the drift. Off by default: the kernel does not promise it.
 */
void mm_sim_set_strict_watermarks(struct mm_sim *sim, bool on);

struct mm_stats {
	unsigned long long zone_lock_acquisitions;
	unsigned long long pcp_refills, pcp_pages_refilled;   /* rmqueue_bulk */
	unsigned long long pcp_bulk_frees, pcp_pages_flushed; /* free_pcppages_bulk */
	unsigned long long pcp_drains_high;		      /* flushes because count >= high */
	unsigned long long pcp_drain_all, pcp_pages_drained_offline;
	unsigned long long alloc_success, alloc_fail, frees;
	unsigned long long wmark_refused; /* zone skipped by the watermark check */
	unsigned long long splits, merges, fallbacks, blocks_stolen;
	unsigned long long full_checks;
	unsigned long long vmstat_folds, vmstat_updates; /* zone counter folds; diff updates */
	unsigned long long snapshot_reads, snapshot_remote_lines; /* zone_page_state_snapshot() */
	unsigned long long kswapd_wakes, kswapd_reclaimed;
};
void mm_sim_stats(const struct mm_sim *sim, struct mm_stats *out);

/* ------------------------------------------------------------------------
 * percpu_counter, vm_committed_as and mm rss counters (seeds 003 and 004;
 * src/percpu_counter.c, src/committed.c, src/mm_struct.c)
 * ---------------------------------------------------------------------- */

#define MM_MAX_PCPU_COUNTERS 16 /* the ops' own counters, c0..c15 */
#define MM_MAX_MMS	     8	/* mm_structs, m0..m7 */

/* vm.overcommit_memory, the kernel's values */
#define MM_OVERCOMMIT_GUESS  0
#define MM_OVERCOMMIT_ALWAYS 1
#define MM_OVERCOMMIT_NEVER  2

/* mm->rss_stat[], the kernel's order */
enum mm_rss_type {
	MM_FILEPAGES,
	MM_ANONPAGES,
	MM_SWAPENTS,
	MM_SHMEMPAGES,
	NR_MM_COUNTERS
};
const char *mm_rss_type_name(int type);

#define MM_MMAP_BRK   0x1u /* brk(): anonymous, otherwise as mmap */
#define MM_MMAP_ADMIN 0x2u /* the caller has CAP_SYS_ADMIN (no admin reserve) */

/* Fork failure injection: the Nth per-cpu allocation of the fork fails, or dup_mmap does. */
#define MM_FORK_FAIL_NONE     0
#define MM_FORK_FAIL_ALLOC1   1 /* mm_alloc_cid()'s */
#define MM_FORK_FAIL_ALLOC5   5 /* the last of the one-by-one rss counters */
#define MM_FORK_FAIL_DUP_MMAP 6
#define MM_FORK_FAIL_MAX      MM_FORK_FAIL_DUP_MMAP

/* max(32, 2 * nr_online): the default batch, as compute_batch_value() */
int mm_percpu_counter_batch(const struct mm_sim *sim);
/*
 * models mm_compute_batch(): max(2 * nr, 32, min(ram / nr / 256 under
 * OVERCOMMIT_NEVER, else ram / nr / 4, INT_MAX)), nr = present CPUs.
 * nr_present_cpus 0 counts as 1: num_present_cpus() includes the boot CPU.
 */
int mm_compute_batch_for(unsigned int nr_present_cpus, unsigned long ram_pages, int policy);
int mm_vm_committed_as_batch(const struct mm_sim *sim);
int mm_overcommit_policy(const struct mm_sim *sim);
/* The vm.overcommit_memory sysctl; returns -1 for a value other than 0..2. */
int mm_set_overcommit_memory(struct mm_sim *sim, int policy);
/*
 * models __vm_enough_memory(): 0, or -ENOMEM (-12) after unaccounting;
 * -ENOMEM with nothing accounted when the calling CPU is offline.
 */
int mm_vm_enough_memory(struct mm_sim *sim, unsigned long total_vm, long pages, bool cap_sys_admin);
long long mm_vm_committed_read(const struct mm_sim *sim); /* percpu_counter_read */
long long mm_vm_committed_sum(struct mm_sim *sim);	  /* percpu_counter_sum */
/* vm_commit_limit() minus nothing: totalram * overcommit_ratio (50) / 100, no swap */
unsigned long mm_vm_commit_limit(const struct mm_sim *sim);

/*
 * The ops' counters: idx < MM_MAX_PCPU_COUNTERS; batch <= 0 means
 * percpu_counter_batch. add and sync run as the calling CPU and return 1
 * (nothing done) when it is offline or idx is out of range, else 0.
 */
int mm_pcpu_add(struct mm_sim *sim, unsigned int idx, long long amount, int batch);
long long mm_pcpu_read(const struct mm_sim *sim, unsigned int idx);
long long mm_pcpu_sum(struct mm_sim *sim, unsigned int idx);
int mm_pcpu_compare(struct mm_sim *sim, unsigned int idx, long long rhs, int batch);
void mm_pcpu_set(struct mm_sim *sim, unsigned int idx, long long value);
int mm_pcpu_sync(struct mm_sim *sim, unsigned int idx);
/* CPU cpu's local of counter idx, read as another CPU would (READ_ONCE). */
long long mm_pcpu_local(const struct mm_sim *sim, unsigned int idx, int cpu);
/* CPU cpu's local of vm_committed_as. */
long long mm_vm_committed_local(const struct mm_sim *sim, int cpu);
/* The calling thread's last __vm_enough_memory(): 0 admitted, -ENOMEM refused. */
int mm_vm_enough_last(void);
/* Counters on the global list; per-cpu allocations not yet freed. */
unsigned int mm_pcpu_counters_listed(struct mm_sim *sim);
long mm_pcpu_live_allocs(const struct mm_sim *sim);

/*
 * mm_structs. Each returns 0, or 1 when skipped (slot not live, or, for
 * fork, the child slot is live). fork with parent -1 makes an empty mm.
 * A failed fork (injected, or __vm_enough_memory refusing) returns 0.
 */
int mm_fork(struct mm_sim *sim, int child, int parent, unsigned int fail);
int mm_mmap(struct mm_sim *sim, int mm, unsigned long pages, int type, unsigned int flags);
int mm_munmap(struct mm_sim *sim, int mm, unsigned long pages, int type);
int mm_exit(struct mm_sim *sim, int mm);
bool mm_mm_live(const struct mm_sim *sim, int mm);
/* get_mm_counter(): percpu_counter_read_positive */
long long mm_get_mm_counter(const struct mm_sim *sim, int mm, int type);
/*
 * The counters' full check (what the executor's full checks add to
 * mm_check_full()): every counter's shadows, vm_committed_as, the per-cpu
 * ledger. Needs a quiescent machine. Returns the violations reported.
 */
unsigned long mm_check_counters_full(struct mm_sim *sim);
/* Under mm's lock: rss counter type's exact sum, CPU cpu's local of it (0 if not live). */
long long mm_rss_sum(struct mm_sim *sim, int mm, int type);
long long mm_rss_local(struct mm_sim *sim, int mm, int type, int cpu);

/*
 * Counted figures (deterministic): the fold ratio of seed 003 is
 * committed_folds / committed_adds; seed 004's cost per fork is
 * fork_pcpu_allocs / forks and fork_list_locks / forks.
 */
struct mm_counter_stats {
	unsigned long long pcpu_adds, pcpu_folds;	  /* every add; those that took fbc->lock */
	unsigned long long pcpu_sums, pcpu_sum_cpus_read; /* __percpu_counter_sum; CPU slots read */
	unsigned long long committed_adds, committed_folds; /* vm_committed_as only */
	unsigned long long vm_enough_refused;
	unsigned long long pcpu_allocs, pcpu_frees; /* __alloc_percpu_gfp / free_percpu */
	unsigned long long list_lock_acquisitions;  /* percpu_counters_lock */
	unsigned long long forks, forks_failed, exits;
	unsigned long long fork_pcpu_allocs, fork_list_locks; /* made by mm_init() */
};
void mm_sim_counter_stats(const struct mm_sim *sim, struct mm_counter_stats *out);

/* ------------------------------------------------------------------------
 * Compaction (seed 001; src/pageblock.c, src/compaction*.c)
 * ---------------------------------------------------------------------- */

/* enum compact_priority: lower is more thorough, as in the kernel */
#define MM_COMPACT_PRIO_SYNC_FULL  0 /* MIN_COMPACT_PRIORITY: ignores the skip bits */
#define MM_COMPACT_PRIO_SYNC_LIGHT 1
#define MM_COMPACT_PRIO_ASYNC	   2
#define MM_COMPACT_NR_PRIOS	   3
/* enum migrate_mode */
#define MM_MIGRATE_ASYNC      0
#define MM_MIGRATE_SYNC_LIGHT 1
#define MM_MIGRATE_SYNC	      2
#define MM_MIGRATE_NR_MODES   3

/* enum compact_result, the kernel's order (try_to_compact_pages keeps the max) */
enum mm_compact_result {
	MM_COMPACT_NOT_SUITABLE_ZONE,
	MM_COMPACT_SKIPPED,
	MM_COMPACT_DEFERRED,
	MM_COMPACT_NO_SUITABLE_PAGE,
	MM_COMPACT_CONTINUE,
	MM_COMPACT_COMPLETE,
	MM_COMPACT_PARTIAL_SKIPPED,
	MM_COMPACT_CONTENDED,
	MM_COMPACT_SUCCESS,
};
const char *mm_compact_result_name(int result);

/* The seed's table, named as /proc/vmstat names them. Deterministic counts. */
struct mm_compact_stats {
	unsigned long long compact_migrate_scanned, compact_free_scanned, compact_isolated;
	unsigned long long pgmigrate_success, pgmigrate_fail;
	unsigned long long compact_stall, compact_fail, compact_success;
	unsigned long long compact_daemon_wake, compact_daemon_migrate_scanned,
		compact_daemon_free_scanned;
	unsigned long long
		compact_block_rescans; /* entries into a pageblock already entered in that pass */
	unsigned long long compact_passes; /* compact_zone() runs past the suitability checks */
};
void mm_sim_compact_stats(const struct mm_sim *sim, struct mm_compact_stats *out);
/* mmtests: 100 * migrate scanned / free scanned (0 when nothing was free-scanned) */
double mm_compact_scan_efficiency(const struct mm_compact_stats *s);
/* mmtests' compaction cost: (7 scanned + 19 isolated + 1038 ok + 14 fail) / 10^6 */
double mm_compact_cost(const struct mm_compact_stats *s);

/*
 * One direct compaction of a zone, as try_to_compact_pages() runs it for
 * one zone (deferral included) as the current CPU. Returns the result, or
 * -1 when the zone does not exist or manages no pages. Needs a serial run
 * (the executor).
 */
int mm_compact_zone(struct mm_sim *sim, int node, enum zone_type zt, unsigned int order, int prio,
		    int mode, int migratetype);
/* kcompactd_do_work() for node at order; returns 0, or 1 when skipped. */
int mm_kcompactd_step(struct mm_sim *sim, int node, unsigned int order);
/* reset_isolation_suitable(): what kswapd runs before it sleeps. */
void mm_reset_isolation_suitable(struct mm_sim *sim, int node);
/* Allocated blocks owned by the fill pool (MM_OP_FILL), live ones. */
unsigned int mm_fill_live(const struct mm_sim *sim);

/* ------------------------------------------------------------------------
 * The operation language
 * ---------------------------------------------------------------------- */

/*
 * One op kind per row of the op table (src/op_table.c): its text name and
 * fields, its binary slot, and the entry point mm_apply_op() calls. The
 * kind's number is internal: traces store names, fuzz inputs slots.
 */
enum mm_op_kind {
	MM_OP_ALLOC,
	MM_OP_FREE,
	MM_OP_CPU_OFFLINE,
	MM_OP_CPU_ONLINE,
	MM_OP_SET_MIN_FREE_KBYTES,
	MM_OP_SET_WSF,
	MM_OP_CHECK,
	MM_OP_DRAIN_LOCAL, /* drain_local_pages(NULL) */
	MM_OP_DRAIN_ALL,   /* drain_all_pages(NULL) */
	MM_OP_DEFERRED_STEP,
	MM_OP_DEFERRED_COMPLETE,
	MM_OP_PCP_DISABLE,
	MM_OP_PCP_ENABLE,
	MM_OP_SET_HIGH_FRACTION,
	/* percpu_counter, vm_committed_as, mm rss (seeds 003, 004) */
	MM_OP_PCPU_ADD,
	MM_OP_PCPU_COMPARE,
	MM_OP_PCPU_SET,
	MM_OP_PCPU_SYNC,
	MM_OP_MMAP,
	MM_OP_BRK,
	MM_OP_MUNMAP,
	MM_OP_FORK,
	MM_OP_EXIT,
	MM_OP_SET_OVERCOMMIT,
	/* vmstat and kswapd (seed 002) */
	MM_OP_VMSTAT_FOLD, /* vmstat_update(): this CPU's diffs folded */
	MM_OP_VMSTAT_READ,
	MM_OP_VMSTAT_REFRESH, /* refresh_zone_stat_thresholds(), as memory hotplug runs it */
	MM_OP_KSWAPD_WAKE,
	MM_OP_KSWAPD_STEP,  /* one balance_pgdat() pass (pressure thresholds first) */
	MM_OP_KSWAPD_SLEEP, /* kswapd_try_to_sleep() */
	MM_OP_STAT_REFRESH, /* vm.stat_refresh: every online CPU's diffs folded */
	/* compaction (seed 001) */
	MM_OP_COMPACT,
	MM_OP_KCOMPACTD,  /* kcompactd_do_work() once */
	MM_OP_RESET_SKIP, /* reset_isolation_suitable(), as kswapd before sleep */
	MM_OP_FILL,
	MM_OP_FREE_PATTERN, /* frees the fill blocks i with i % every == offset */
	/* memory hotplug and page isolation (src/isolation.c) */
	MM_OP_OFFLINE_PAGES, /* offline_pages() of whole pageblocks */
	MM_OP_ONLINE_PAGES,  /* online_pages() of the range's offline pageblocks */
	MM_OP_ALLOC_CONTIG,  /* alloc_contig_range() of whole pageblocks */
	MM_OP_FREE_CONTIG,   /* free_contig_range(): the range's contig pages */
	/* vm.watermark_boost_factor (src/watermark.c) */
	MM_OP_SET_BOOST_FACTOR,
	MM_NR_OP_KINDS
};

/* What MM_OP_VMSTAT_READ reads */
#define MM_VMSTAT_READ_ESTIMATE 0 /* zone_page_state() */
#define MM_VMSTAT_READ_SNAPSHOT 1 /* zone_page_state_snapshot() */
#define MM_VMSTAT_READ_SAFE	2 /* zone_watermark_ok_safe() at the high mark */
#define MM_VMSTAT_READ_MAX	MM_VMSTAT_READ_SAFE

/*
 * An op: its kind, the CPU that runs it, and the fields of its family.
 * Nodes are -1 where "the CPU's node" is meant; zones are enum zone_type.
 */
struct mm_op {
	uint8_t kind; /* enum mm_op_kind */
	uint16_t cpu; /* the simulated CPU that runs the op */
	union {
		struct {
			uint8_t order;
			int8_t node;  /* preferred node, -1: the CPU's */
			uint16_t gfp; /* MM_GFP_* */
		} alloc;
		struct {
			uint32_t handle; /* the number of the ALLOC it frees */
		} free;
		struct {
			uint32_t value;
		} sysctl; /* SET_*: the sysctl's new value */
		struct {
			int16_t node;
			uint8_t zone;
			uint8_t pageblocks; /* DEFERRED_STEP: 1..16 */
		} pcp;			    /* PCP_*, DEFERRED_*: a node's zone */
		struct {
			int32_t value; /* ADD: amount, COMPARE: rhs, SET: value */
			uint8_t counter;
			uint8_t batch; /* 0: percpu_counter_batch */
		} counter;
		struct {
			uint16_t pages;
			uint8_t mm;	/* FORK: the child */
			uint8_t type;	/* enum mm_rss_type */
			uint8_t admin;	/* CAP_SYS_ADMIN (MMAP, BRK) */
			uint8_t parent; /* FORK: parent + 1, 0: none */
			uint8_t fail;	/* FORK: MM_FORK_FAIL_* */
		} mm;
		struct {
			int16_t node;
			uint8_t zone;  /* READ: the zone, WAKE: the highest zone */
			uint8_t order; /* WAKE */
			uint8_t how;   /* READ: MM_VMSTAT_READ_* */
		} vmstat;
		struct {
			int16_t node; /* FILL: -1, the CPU's */
			uint8_t zone;
			uint8_t order;
			uint8_t prio; /* COMPACT: MM_COMPACT_PRIO_* */
			uint8_t mode; /* COMPACT: MM_MIGRATE_* */
			uint8_t mt;   /* COMPACT: MIGRATE_MOVABLE or MIGRATE_UNMOVABLE */
		} compact;
		struct {
			int16_t node; /* -1: the CPU's */
			uint8_t zone;
			uint8_t order;			     /* 0..3 */
			uint16_t pages;			     /* 1..256 */
			uint8_t unmovable_every, busy_every; /* 0..15 */
		} fill;
		struct {
			uint8_t every;	/* 1..16 */
			uint8_t offset; /* below every */
		} pattern;
		struct {
			uint32_t start; /* the first pfn, pageblock-aligned */
			uint16_t pages; /* whole pageblocks */
			int16_t node;
			uint8_t zone;
		} range; /* OFFLINE_PAGES, ONLINE_PAGES, ALLOC_CONTIG, FREE_CONTIG */
	};
};

/* The op kind's name in traces ("kswapd_wake"); NULL for a kind out of range. */
const char *mm_op_name(unsigned int kind);
/* The kind's line in a trace, as "cpuN kswapd_wake node=N zone=NAME order=0..10"; as snprintf. */
int mm_op_usage(unsigned int kind, char *buf, size_t len);
/* May a threaded run (mmfuzz stress) run the kind on any worker, as its own CPU? */
bool mm_op_runs_on_worker(unsigned int kind);
/*
 * An op as its trace line (no newline): the formatter of traces, repro,
 * the stress flight recorder and its watchdog dump. handle: an ALLOC's
 * number. Returns the length it wanted, as snprintf.
 */
int mm_format_op(const struct mm_op *op, uint32_t handle, char *buf, size_t len);

/* Limits the decoder clamps a fuzz input's machine into. */
struct mm_limits {
	unsigned int max_nodes;
	unsigned int max_cpus_per_node;
	uint64_t max_total_pages; /* keeps the per-input reset small */
	unsigned int max_ops;
};

void mm_limits_default(struct mm_limits *lim);
/* The limits fuzz target "fuzz_<x>" decodes with; -1 (and the defaults) if unknown. */
int mm_limits_for_target(const char *target, struct mm_limits *lim);
/* The fuzz targets that have a machine shape: "fuzz_buddy", ...; NULL past the last. */
const char *mm_target_at(size_t i);

struct mm_prog {
	struct mm_config cfg;
	unsigned int nr_ops;
	unsigned int cap_ops;
	unsigned int nr_allocs; /* alloc ops, numbered 0.. in order */
	struct mm_op *ops;
	/* decoder scratch: allocations not yet freed (freed by mm_prog_free) */
	uint32_t *live;
	unsigned int nr_live, cap_live;
};

void mm_prog_init(struct mm_prog *p);
void mm_prog_free(struct mm_prog *p);
/* Returns 0, or -1 on allocation failure (never for the input's content). */
int mm_prog_push(struct mm_prog *p, const struct mm_op *op);

/*
 * Total: any byte string decodes to a valid program. out is a program from
 * mm_prog_init() (or an earlier decode): its buffers are reused, and its
 * config's rows past nr_nodes are taken to be zero, as every config writer
 * leaves them.
 */
int mm_decode(const uint8_t *data, size_t len, const struct mm_limits *lim, struct mm_prog *out);
/*
 * Appends the ops that data decodes to (no machine header) to out, for the
 * machine already in out->cfg. Frees pick among the allocations of this
 * call only. The stress test draws its ops this way from random bytes.
 */
int mm_decode_ops(const uint8_t *data, size_t len, struct mm_prog *out);
/* The binary form of a program; decode(encode(p)) == p. Returns bytes, or
 * -1 if buf is too small (pass NULL/0 to measure). */
long mm_encode(const struct mm_prog *p, uint8_t *buf, size_t len);

/* Text form: one op per line; print(parse(t)) == t for printed text. */
void mm_print_op(FILE *f, const struct mm_prog *p, unsigned int i);
void mm_print_config(FILE *f, const struct mm_config *cfg);
void mm_print_prog(FILE *f, const struct mm_prog *p);
/* Returns 0, or -1 with "line N: reason" in err. */
int mm_parse_prog(const char *text, struct mm_prog *out, char *err, size_t errlen);

/* ------------------------------------------------------------------------
 * The executor: deterministic, one thread, each op runs as its CPU
 * ---------------------------------------------------------------------- */

struct mm_exec;
struct mm_snapshot;

/* An allocation made by an op: what its free needs. */
struct mm_handle {
	long long pfn; /* -1: the allocation failed or has been freed */
	uint32_t gen;
	uint8_t order;
};

/*
 * Runs one op on sim as the calling thread, as CPU op->cpu, with the cheap
 * checks that follow it. handles[] holds the allocations by handle number;
 * an ALLOC fills handles[alloc_handle]. Returns 0, or 1 when the op was
 * skipped (offline CPU, handle not live, the hotplug refused). The
 * deterministic executor and the stress test both run ops through it.
 */
int mm_apply_op(struct mm_sim *sim, const struct mm_op *op, struct mm_handle *handles,
		uint32_t nr_handles, uint32_t alloc_handle);

struct mm_exec_opts {
	int variant;		  /* -1: the correct model */
	unsigned int check_every; /* full scan every K ops (0: only at the end) */
	bool stop_on_violation;
	bool strict_watermarks; /* see mm_sim_set_strict_watermarks() */
	mm_violation_fn on_violation;
	void *arg;
	/*
	 * Called with arg once the machine has booted, before the first op
	 * (NULL: nothing). The fuzz targets clear their coverage counters
	 * there: see harness/fuzz_common.c.
	 */
	void (*on_boot)(void *arg);
	/*
	 * Called with arg after each op (NULL: nothing): how a watchdog sees
	 * that a replay still moves (harness/stress/stress_record.c).
	 */
	void (*on_op)(void *arg);
	/*
	 * NULL: boot the machine from the program's config. Else start from
	 * this snapshot, and take the program's first snapshot->nr_handles
	 * allocations as the blocks it holds (they do not run).
	 */
	const struct mm_snapshot *snapshot;
};

void mm_exec_opts_default(struct mm_exec_opts *o);
struct mm_exec *mm_exec_create(void);
void mm_exec_destroy(struct mm_exec *ex);
/*
 * Runs p from a fresh machine. Returns the number of violations, or -1 when
 * the machine cannot be built (invalid config, no memory). *failed_op is the
 * index of the op during which the first violation was found (p->nr_ops for
 * the final check), -1 when clean.
 */
long mm_exec_run(struct mm_exec *ex, const struct mm_prog *p, const struct mm_exec_opts *o,
		 long *failed_op);
/* Ops skipped because their CPU was offline or their handle not live. */
unsigned long mm_exec_skipped(const struct mm_exec *ex);
struct mm_sim *mm_exec_sim(struct mm_exec *ex);

/* ------------------------------------------------------------------------
 * Machine snapshots (snapshot.c): a quiesced machine's whole state, so a
 * replay starts where the stress test's last quiesce point stood
 * ---------------------------------------------------------------------- */

struct mm_snapshot {
	struct mm_config cfg;
	int variant;   /* the machine's when taken; a replay may run another */
	bool threaded; /* taken from mmfuzz stress's machine: the checker's shadows not kept */
	/* Blocks held outside the machine: a replay adopts them as handles a0.. */
	struct mm_handle *handles;
	uint32_t nr_handles;
	uint8_t *state; /* the machine's state, serialised */
	size_t state_len, state_cap;
};

void mm_snapshot_init(struct mm_snapshot *s);
void mm_snapshot_free(struct mm_snapshot *s);
/* Of a quiesced sim (nothing runs on it meanwhile); reuses s's buffer. Clears the handles. */
int mm_snapshot_take(struct mm_snapshot *s, struct mm_sim *sim);
int mm_snapshot_set_handles(struct mm_snapshot *s, const struct mm_handle *h, uint32_t n);
/* Rebuilds sim as s holds it, with variant's policy; 0, or -1 (invalid snapshot, no memory). */
int mm_snapshot_restore(struct mm_sim *sim, const struct mm_snapshot *s, int variant);
/* dst becomes a deep copy of the quiesced src (through a snapshot). */
int mm_sim_copy(struct mm_sim *dst, struct mm_sim *src);
/* The versioned file: a header line (layout, size, checksum), then binary. */
int mm_snapshot_write(const struct mm_snapshot *s, FILE *f);
/* 0, or -1 with one line in err: truncated, corrupt, another build's, not a snapshot. */
int mm_snapshot_read(const uint8_t *data, size_t len, struct mm_snapshot *s, char *err,
		     size_t errlen);

/* ------------------------------------------------------------------------
 * Deterministic randomness for the harnesses and tests (splitmix64): the
 * same seed gives the same stream on every machine, so every run replays.
 * ---------------------------------------------------------------------- */

static inline uint64_t mm_splitmix64(uint64_t *state)
{
	uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

#ifdef __cplusplus
}
#endif
#endif /* MMCORE_H */
