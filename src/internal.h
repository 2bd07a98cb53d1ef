/* SPDX-License-Identifier: MIT */
/*
 * internal.h - structures and cross-file functions of the core.
 *
 * Naming: kernel names where a kernel thing is modelled (struct zone,
 * __free_one_page, __zone_watermark_ok); a leading "__" means the caller
 * holds zone->lock, as in mm/page_alloc.c. Invariant checks live beside the
 * subsystem they check and report through mm_report_violation().
 */
#ifndef MM_INTERNAL_H
#define MM_INTERNAL_H

#include "atomic.h"
#include "mmcore.h"

#include <stdarg.h>

#define PFN_NIL UINT32_MAX

/*
 * Full scans and the per-input reset are loops over every page: coverage
 * feedback from them only slows the fuzzer, so they are not instrumented.
 */
#if defined(__clang__)
#define MM_NO_ASAN     __attribute__((no_sanitize("address")))
#define MM_NO_COVERAGE __attribute__((no_sanitize("coverage"), noinline))
#define MM_NO_SANITIZE __attribute__((no_sanitize("address", "undefined")))
#else
#define MM_NO_ASAN     __attribute__((no_sanitize_address))
#define MM_NO_COVERAGE __attribute__((noinline))
#define MM_NO_SANITIZE __attribute__((no_sanitize_address, no_sanitize_undefined))
#endif
/*
 * A loop over every CPU of a zone (or every counter's CPUs), run on each
 * input: a 256-CPU machine has 2048 (zone, cpu) pagesets. A loop an op
 * runs over every CPU (a snapshot read, a counter sum, drain_all_pages()'s
 * look for pcp pages) is one too: its coverage counter's hit count is the
 * machine's CPU count, and libFuzzer would keep inputs for nothing but a
 * bigger machine, each costlier to run. Such loops carry no coverage
 * counters. Not a loop that stops early at the first CPU that fails a
 * condition: its hit count is progress the fuzzer can follow (see
 * _mm_vmstat_pressure_in_force()). The one-line accessors below
 * (pfn_to_page(), get_pfnblock_migratetype(), zone_end_pfn(), ...) are
 * MM_ALWAYS_INLINE for the same reason: the fuzz build kept out-of-line
 * copies of them, called from every scan, whose counters' hit counts were
 * the checks' page counts.
 *
 * The fuzz targets' copy of the library (MM_FAST_SCANS, the fuzz and afl
 * presets) also drops the sanitizers' checks there, which cost more than
 * the loads they guard; the inline helpers such a loop calls are then
 * MM_SCAN_INLINE, or they would not inline into it. Every other build
 * keeps them: a loop that runs one CPU past the machine, or one list past
 * an array, is reported where it reads, not taken for data (the tests and
 * ci/mutants' kills rely on it).
 */
#ifdef MM_FAST_SCANS
#define MM_SCAN_SANITIZE MM_NO_SANITIZE
#else
#define MM_SCAN_SANITIZE
#endif
#define MM_SCAN	       MM_NO_COVERAGE MM_SCAN_SANITIZE
#define MM_SCAN_INLINE MM_SCAN_SANITIZE

/*
 * Memory the model keeps for reuse (a cached per-cpu area) is poisoned
 * while nobody owns it, and so is the part of it past what its owner
 * asked for: an access there is reported by ASan the way KASAN reports
 * one past a per-cpu allocation, not read as stale data.
 */
#if defined(__SANITIZE_ADDRESS__)
#define MM_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MM_ASAN 1
#endif
#endif
#ifdef MM_ASAN
#include <sanitizer/asan_interface.h>
#define mm_poison(p, n)	  ASAN_POISON_MEMORY_REGION(p, n)
#define mm_unpoison(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define mm_poison(p, n)	  ((void)(p), (void)(n))
#define mm_unpoison(p, n) ((void)(p), (void)(n))
#endif

/* ------------------------------------------------------------------------
 * Page descriptors (16 bytes) and pageblock flags
 * ---------------------------------------------------------------------- */

enum page_state {
	PG_NOZONE,     /* in no zone: a gap in the pfn space */
	PG_RESERVED,   /* spanned but not managed (holes, memblock reserved) */
	PG_BUDDY,      /* head of a free block on a free_area list */
	PG_FREE_TAIL,  /* tail page of a free block */
	PG_ALLOC,      /* head of an allocated block */
	PG_ALLOC_TAIL, /* tail page of an allocated block */
	PG_PCP,	       /* head of a free block on a pcp list; page->spare is the cpu */
	PG_UNINIT,     /* struct page not initialised yet: deferred init */
	NR_PAGE_STATES
};

struct page {
	uint8_t state;	  /* enum page_state */
	uint8_t order;	  /* heads: block order */
	uint16_t zone_id; /* node * MAX_NR_ZONES + zone type: 64 nodes need 9 bits */
	uint8_t alloc_mt; /* allocated pages: migratetype of the request */
	uint8_t pad; /* PG_PCP: the checker's note of the block's migratetype at listing (pcp.c) */
	uint16_t spare; /* PG_PCP: the cpu (< MM_MAX_CPUS); allocated heads: PAGE_MIGRATE_BUSY */
	union {
		struct { /* free: free_area or pcp list links, by pfn */
			uint32_t next, prev;
		} lru;
		struct { /* allocated: the stamp checked at free */
			uint32_t owner, gen;
		} stamp;
	};
};

_Static_assert(sizeof(struct page) <= 16, "page descriptor must stay within 16 bytes");
_Static_assert(MM_MAX_CPUS <= UINT16_MAX && MM_MAX_NODES * MAX_NR_ZONES < UINT16_MAX,
	       "page->spare holds a cpu, page->zone_id a zone (0xffff: the tag mask)");

#define PB_MIGRATETYPE_MASK 0x7u
#define PB_SKIP		    0x8u
/*
 * The checker's: unreserve_highatomic_pageblock() retyped a free block of
 * a pageblock or more in this pageblock and left it apart from a buddy it
 * could now merge with, as the kernel does, until the block leaves its list.
 */
#define PB_APART 0x10u

/*
 * page->spare of an allocated head: the page holds an extra reference (a
 * file page someone else pins), so isolation succeeds but migration fails
 * with -EAGAIN in every mode: the kernel's common migration failure.
 */
#define PAGE_MIGRATE_BUSY 0x1u

/* ------------------------------------------------------------------------
 * Zones and nodes
 * ---------------------------------------------------------------------- */

/* ALLOC_* flags, values as in mm/internal.h (6.3+). */
#define ALLOC_WMARK_MIN	    WMARK_MIN
#define ALLOC_WMARK_LOW	    WMARK_LOW
#define ALLOC_WMARK_HIGH    WMARK_HIGH
#define ALLOC_NO_WATERMARKS 0x04
#define ALLOC_WMARK_MASK    (ALLOC_NO_WATERMARKS - 1)
#define ALLOC_OOM	    0x08
#define ALLOC_NON_BLOCK	    0x10
#define ALLOC_MIN_RESERVE   0x20
#define ALLOC_CPUSET	    0x40
#define ALLOC_CMA	    0x80
#define ALLOC_NOFRAGMENT    0x100
#define ALLOC_HIGHATOMIC    0x200
#define ALLOC_KSWAPD	    0x800
#define ALLOC_RESERVES	    (ALLOC_NON_BLOCK | ALLOC_MIN_RESERVE | ALLOC_HIGHATOMIC | ALLOC_OOM)

enum zone_stat_item {
	NR_FREE_PAGES,
	NR_VM_ZONE_STAT_ITEMS
};

/* pcp lists: orders 0..PAGE_ALLOC_COSTLY_ORDER, one per pcp migratetype (no THP list) */
#define PAGE_ALLOC_COSTLY_ORDER		  3
#define NR_PCP_LISTS			  (MIGRATE_PCPTYPES * (PAGE_ALLOC_COSTLY_ORDER + 1))
#define CONFIG_PCP_BATCH_SCALE_MAX	  5
#define MIN_PERCPU_PAGELIST_HIGH_FRACTION 8
#define BOOT_PAGESET_HIGH		  0
#define BOOT_PAGESET_BATCH		  1

#define PCPF_PREV_FREE_HIGH_ORDER 0x01
#define PCPF_FREE_HIGH_BATCH	  0x02

/*
 * models struct per_cpu_pages (6.7+), in two cache lines: the counts and
 * sizing every scan reads first, then the lists. Its lock (pcp->lock in the
 * kernel) is zone->pcp_locks[cpu]: a pthread mutex would add a third line
 * that only the list ops touch.
 */
struct per_cpu_pages {
	/* Pages this CPU allocated from the zone minus those it freed: only this CPU writes it. */
	atomic_long nr_allocated;
	int count; /* pages on the lists; WRITE_ONCE: drain_all_pages() reads it unlocked */
	int high;  /* runtime: 0 until first use, then in [high_min, high_max] */
	int high_min, high_max, batch;
	uint8_t flags, alloc_factor;
	short free_count;
	uint32_t head[NR_PCP_LISTS], tail[NR_PCP_LISTS];
} __attribute__((aligned(64))); /* one CPU's lists share no cache line with another's */

_Static_assert(sizeof(struct per_cpu_pages) == 128, "a pageset is two cache lines");

/* A pcp lock, on a cache line of its own like the pageset it guards. */
struct pcp_lock {
	spinlock_t lock;
} __attribute__((aligned(64)));

/*
 * models struct per_cpu_zonestat: a CPU's counter diffs for a zone. The
 * diffs change under zone->lock (every NR_FREE_PAGES update holds it), so
 * the model's folds take it too: a simulated CPU is not exclusive the way
 * a kernel CPU with interrupts off is.
 */
struct per_cpu_zonestat {
	int8_t vm_stat_diff[NR_VM_ZONE_STAT_ITEMS];
	int8_t stat_threshold;
	/* The checker's: the threshold in force when each diff last changed. */
	int8_t update_threshold[NR_VM_ZONE_STAT_ITEMS];
	/*
	 * The checker's, under this CPU's pcp lock: PCPF_FREE_HIGH_BATCH as the
	 * kernel's rule gave it at the CPU's last cacheinfo update since boot,
	 * FHB_CLEAR or FHB_SET; 0 (none since boot) means the zone's
	 * free_high_batch_boot (oracle_pcp.c).
	 */
	uint8_t free_high_batch;
};

/* zone->flags bits */
#define ZONE_BELOW_HIGH	       0x1u
#define ZONE_RECLAIM_ACTIVE    0x2u
#define ZONE_BOOSTED_WATERMARK 0x4u /* boost_watermark() asked rmqueue() to wake kswapd */

struct free_area {
	/* Heads are read without the lock by __zone_watermark_ok(). */
	uint32_t head[MIGRATE_TYPES];
	uint32_t tail[MIGRATE_TYPES];
	unsigned long nr_free;
};

struct zone {
	spinlock_t lock;
	struct mm_sim *sim;
	int node;
	enum zone_type type;
	uint16_t zone_id;
	uint64_t zone_start_pfn;
	uint64_t spanned_pages;
	uint64_t present_pages;
	atomic_long managed_pages;

	unsigned long _watermark[NR_WMARK];
	unsigned long watermark_boost;
	unsigned long lowmem_reserve[MAX_NR_ZONES];
	unsigned long nr_reserved_highatomic;
	long nr_free_highatomic; /* free pages on the HIGHATOMIC lists (6.12+, c928807f6f6b) */

	struct free_area free_area[MM_NR_PAGE_ORDERS];
	atomic_long vm_stat[NR_VM_ZONE_STAT_ITEMS];

	atomic_uint flags; /* ZONE_BELOW_HIGH, ZONE_RECLAIM_ACTIVE */

	/* pcp sizing: what zone_set_pageset_high_and_batch() last computed */
	struct per_cpu_pages *per_cpu_pageset; /* nr_cpus entries, NULL if unpopulated */
	struct pcp_lock *pcp_locks;	       /* nr_cpus entries, beside per_cpu_pageset */
	int pageset_high_min, pageset_high_max, pageset_batch;
	bool pcp_disabled; /* zone_pcp_disable() until zone_pcp_enable() */
	/* The checker's: watermark_boost when the sizing was last computed (low mark term) */
	unsigned long pcp_sizing_boost;

	struct per_cpu_zonestat *per_cpu_zonestats; /* nr_cpus entries, NULL if unpopulated */
	unsigned long percpu_drift_mark;	    /* 0: the estimate is always trusted */
	/*
	 * The checker's, under zone->lock: each item's true value (what the
	 * kernel cannot afford to know), the lowest NR_FREE_PAGES it reached
	 * and the largest |estimate - exact| seen at an update.
	 */
	long vm_stat_exact[NR_VM_ZONE_STAT_ITEMS];
	long min_exact_free;
	long max_drift;

	/* deferred struct page init: pfns below this are initialised */
	uint64_t first_deferred_pfn;

	/* compaction: the CONFIG_COMPACTION fields of struct zone (zeroed at boot) */
	uint64_t compact_cached_free_pfn;
	uint64_t compact_cached_migrate_pfn[2]; /* [0] async, [1] sync */
	uint64_t compact_init_migrate_pfn, compact_init_free_pfn;
	unsigned int compact_considered, compact_defer_shift;
	int compact_order_failed;
	bool compact_blockskip_flush;
	/* The checker's: PCPF_FREE_HIGH_BATCH as the rule gave it at boot (oracle_pcp.c). */
	bool free_high_batch_boot;
	/* Free pages compaction holds isolated (cc->freepages): counted in conservation. */
	long nr_isolated_free;
	/* The checker's: pages offline_pages() took out of the zone, not yet back online. */
	long offlined_pages;
	/*
	 * The checker's, for compaction under threads (compaction_check.c):
	 * passes running on the zone, passes started and skip-bit resets run.
	 */
	atomic_uint compact_in_flight, compact_pass_starts, compact_resets;
};

#define MM_MAX_ZONEREFS (MM_MAX_NODES * MAX_NR_ZONES)

/* kswapd's state, under sim->kswapd_lock */
struct kswapd_state {
	bool awake;	       /* woken, not yet back to sleep */
	bool pressure;	       /* it ran since waking: pressure thresholds applied */
	unsigned int order;    /* pgdat->kswapd_order */
	int highest_zoneidx;   /* pgdat->kswapd_highest_zoneidx */
	unsigned int failures; /* pgdat->kswapd_failures: steps that reclaimed nothing */
};

struct pglist_data {
	int node_id;
	struct zone node_zones[MAX_NR_ZONES];
	struct kswapd_state kswapd;
	/* ZONELIST_FALLBACK and ZONELIST_NOFALLBACK, highest zone first. */
	struct zone *zonelist[MM_MAX_ZONEREFS + 1];
	struct zone *zonelist_nofallback[MAX_NR_ZONES + 1];
};

/* ------------------------------------------------------------------------
 * Policies: the formulas and the historical bugs a variant switches on
 * ---------------------------------------------------------------------- */

struct compact_control;

struct mm_policy {
	/* pcp sizing (models zone_batchsize() and zone_highsize()) */
	int (*zone_batchsize)(unsigned long managed);
	int (*zone_highsize)(unsigned long total_pages, int batch, int nr_split_cpus);
	/* the high one decay_pcp_high() step leaves (6.7+) */
	int (*decayed_pcp_high)(int high, int count, int batch, int high_min);
	/* vmstat thresholds (models calculate_normal/pressure_threshold()) */
	int (*normal_threshold)(const struct zone *zone);
	int (*pressure_threshold)(const struct zone *zone);
	bool pcp_no_recalc_after_deferred_init; /* seed 000: sizing stays at boot values */

	int buddy_no_merge_order;	   /* -1: merge at every order */
	bool buddy_merge_across_isolate;   /* d9dddbf55667's fix undone */
	bool wmark_ignore_min;		   /* a zone refused at the min mark is used anyway */
	bool free_without_zone_lock;	   /* free_one_page skips zone->lock */
	bool pcp_stale_migratetype;	   /* 51bb1a4093cc's fix undone */
	bool highatomic_unusable_reserved; /* c928807f6f6b's fix undone */
	bool boost_wake_without_boost;	   /* 597c892038e0's fix undone */
	bool boost_decay_whole_node;	   /* balance_pgdat() takes back every zone's boost */
	bool vmstat_decay_no_rearm;	   /* refresh_cpu_vm_stats() drops the decay's work */
	bool compact_partial_as_complete;  /* c8f7de0bfae3's fix undone */
	bool kswapd_wake_first_zone_only;  /* wakeup_kswapd() sets an unset zone only */
	bool compact_no_flush_request;	   /* scanners met: compact_blockskip_flush not set */
	bool compact_migrate_drops_stamp;  /* a migrated page loses its contents */
	bool compact_reset_keeps_request;  /* the reset leaves compact_blockskip_flush set */

	/* percpu_counter, vm_committed_as, rss (seeds 003, 004) */
	bool commit_switch_no_sync;    /* NEVER published before the new batch, no sync */
	bool rss_check_uses_read;      /* check_mm reads instead of summing */
	bool rss_leak_on_fork_failure; /* init_many's failure path skips mm_destroy_cid */
	bool pcpu_set_keeps_locals;    /* percpu_counter_set() leaves the locals */
	bool rss_vec_skips_last;       /* add_mm_rss_vec() stops before MM_SHMEMPAGES */
	bool pcpu_batch_2ncpu;	       /* vm_committed_as adds with percpu_counter_batch */
	bool rss_counters_one_by_one;  /* four percpu_counter_init per fork (pre-6.6) */

	/* compaction skip bits (seed 001), src/pageblock.c and src/compaction.c */
	bool compact_fast_find_marks_skip;   /* 70b44595eafe: fast_find marks its block */
	bool compact_no_finish_pageblock;    /* 7efc3b726103 era: no finish_pageblock rescans */
	bool compact_target_pageblock_order; /* 1883e8ac96dd's fix undone */
	/* Is the pfn where a pageblock's skip bit is tested and set (valid_page)? */
	bool (*compact_skip_test_pfn)(const struct zone *zone, uint64_t pfn);
	/* At the block's first LRU page: test-and-set the bit; true: abort the block. */
	bool (*compact_lru_skip)(struct compact_control *cc, uint64_t valid_pfn, uint64_t lru_pfn,
				 bool *skip_updated);
	/* vm_committed_as's batch per overcommit policy (models mm_compute_batch(), seed 003) */
	int (*mm_compute_batch)(unsigned int nr_present_cpus, unsigned long ram_pages,
				int overcommit_policy);
};

void _mm_policy_default(struct mm_policy *p);
void _mm_policy_apply_variant(struct mm_policy *p, int variant);
/* The hooks a loaded policy plugin defines (src/policy_plugin.c) */
void _mm_policy_apply_plugin(struct mm_policy *p);
/* The loaded plugin's hooks (NULL where it keeps the model's rule), or NULL */
const struct mm_policy *_mm_policy_plugin(void);

/* ------------------------------------------------------------------------
 * The machine
 * ---------------------------------------------------------------------- */

/*
 * The checker's shadow of what the kernel's last recompute of the vmstat
 * thresholds set, from the inputs of that moment (check_derived.c).
 */
struct derived_zone {
	unsigned long drift_mark;
	int8_t threshold; /* every online CPU's stat_threshold */
};

struct derived_shadow {
	struct derived_zone zone[MM_MAX_NODES][MAX_NR_ZONES];
	bool pressure[MM_MAX_NODES]; /* kswapd ran and applied the pressure thresholds */
	unsigned long ram;	     /* the config's managed pages: totalram */
	unsigned int online;	     /* online CPUs at the last check */
	bool pending;		     /* deferred init pending at the last check */
};

/*
 * Event counters, per simulated CPU like the kernel's vm_event_states: a
 * CPU only ever adds to its own, so no cache line is shared on the hot
 * path. Summed by mm_sim_stats(). Cache-line sized so CPUs do not share.
 */
struct mm_cpu_stats {
	atomic_ullong zone_lock_acquisitions;
	atomic_ullong pcp_refills, pcp_pages_refilled, pcp_bulk_frees, pcp_pages_flushed;
	atomic_ullong pcp_drains_high, pcp_drain_all, pcp_pages_drained_offline;
	atomic_ullong alloc_success, alloc_fail, frees;
	atomic_ullong wmark_refused;
	atomic_ullong splits, merges, fallbacks, blocks_stolen;
	atomic_ullong full_checks;
	atomic_ullong vmstat_folds, vmstat_updates;	     /* zone counter folds; diff updates */
	atomic_ullong snapshot_reads, snapshot_remote_lines; /* zone_page_state_snapshot() */
	atomic_ullong kswapd_wakes, kswapd_reclaimed;
	atomic_uint gen_seq;	 /* this CPU's allocation generations */
	atomic_uint cheap_ticks; /* ops since this CPU's last cheap check */
} __attribute__((aligned(64)));

struct mm_sim {
	struct mm_config cfg;
	struct mm_policy policy;
	int variant;
	unsigned int max_order; /* MAX_PAGE_ORDER of this machine */
	unsigned int pageblock_order;

	unsigned int nr_nodes;
	struct pglist_data *node_data[MM_MAX_NODES];
	struct pglist_data *pgdat_buf; /* nr_nodes entries */
	size_t pgdat_cap;

	struct page *mem_map;
	uint64_t max_pfn;
	size_t memmap_cap;
	uint8_t *pageblock_flags;
	size_t pb_cap;

	unsigned int nr_cpus;
	int cpu_to_node[MM_MAX_CPUS];
	atomic_bool cpu_online[MM_MAX_CPUS];
	atomic_uint nr_online;
	/* cpumask_weight() of each node's online CPUs, kept by hotplug under hotplug_lock */
	atomic_uint node_nr_online[MM_MAX_NODES];
	mm_mutex_t hotplug_lock; /* cpu_hotplug_lock + the sysctl mutexes */
	mm_mutex_t pcp_batch_high_lock;
	unsigned int percpu_pagelist_high_fraction;
	struct per_cpu_pages *pcp_buf; /* zones x cpus */
	struct pcp_lock *pcp_lock_buf; /* zones x cpus */
	size_t pcp_cap;
	struct per_cpu_zonestat *zonestat_buf; /* zones x cpus */
	size_t zonestat_cap;
	bool deferred_pending; /* deferred init has not completed */

	unsigned int min_free_kbytes;
	bool user_min_free_kbytes;
	unsigned int watermark_scale_factor;
	unsigned int watermark_boost_factor; /* vm.watermark_boost_factor, 15000 at boot */
	unsigned int boost_factor_seen;	     /* the checker's: the largest factor since boot */

	struct mm_cpu_stats *cpu_stats; /* nr_cpus entries */
	size_t cpu_stats_cap;
	/* Single-threaded driver: exact checks that races would break hold. */
	bool serial;
	/* INV-WMARK-MIN allows no vmstat drift (mmfuzz --strict-watermarks) */
	bool strict_watermarks;

	mm_violation_fn on_violation;
	void *violation_arg;
	atomic_ulong nr_violations;

	size_t reset_bytes;

	struct pcpu_state *pcc; /* percpu_counters, vm_committed_as, mm_structs */

	atomic_long vm_zone_stat[NR_VM_ZONE_STAT_ITEMS]; /* the global copies */
	mm_mutex_t kswapd_lock;				 /* every node's kswapd_state */
	mm_jitter_fn jitter; /* stress --jitter: delays at zone->lock boundaries */
	void *jitter_arg;
	mm_reclaim_fn reclaimer; /* kswapd's under threads (stress) */
	void *reclaimer_arg;
	/*
	 * The executor's handles during mm_apply_op(): migration moves a
	 * handle's block, kswapd's reclaim frees one. Serial runs only.
	 */
	struct mm_handle *handles;
	uint32_t nr_handles;
	struct compact_state *compact; /* compaction scratch, fill pool, stats */
	struct derived_shadow derived; /* the checker's, check_derived.c */
	uint8_t *node_distance;	       /* nr_nodes^2 (mm_sim_set_node_distances), NULL: 10/20 */
	/* Under threads: what compaction may migrate, and each thread's compaction state. */
	struct mm_migrate_src migrate_src;
	_Atomic(struct compact_state *) compact_threads;
	atomic_ulong compact_skip_sets; /* skip bits set under threads (the checker's) */
};

/*
 * models smp_processor_id(): the simulated CPU the calling thread runs as
 * (topology.c). Inline, as mm_current_cpu() is not: every vmstat diff and
 * every stat an op counts asks for it.
 */
extern _Thread_local int _mm_current_cpu;

static MM_ALWAYS_INLINE int smp_processor_id(void)
{
	return _mm_current_cpu;
}

/* Pages allocated from the zone, counted on the CPU that allocated or freed them. */
static MM_ALWAYS_INLINE void zone_account_allocated(struct zone *z, long nr_pages)
{
	unsigned int cpu = (unsigned int)smp_processor_id();

	this_cpu_long_add(&z->per_cpu_pageset[cpu < z->sim->nr_cpus ? cpu : 0].nr_allocated,
			  nr_pages);
}

/*
 * Σ over the CPUs of the pages on the zone's pcp lists and of the pages
 * they allocated (nr_allocated), in one pass. Only exact when quiescent.
 */
struct pcp_totals {
	long pcp, allocated;
};
struct pcp_totals zone_pcp_totals(const struct zone *z);

/*
 * The kernel's clamp(): hi wins when lo > hi, which pcp sizing produces
 * when the low mark exceeds managed / 8 (high_min > high_max).
 */
static MM_ALWAYS_INLINE int clamp_int(int v, int lo, int hi)
{
	return v >= hi ? hi : v <= lo ? lo : v;
}

static MM_ALWAYS_INLINE struct page *pfn_to_page(struct mm_sim *sim, uint64_t pfn)
{
	return &sim->mem_map[pfn];
}

static MM_ALWAYS_INLINE uint64_t page_to_pfn(const struct mm_sim *sim, const struct page *page)
{
	return (uint64_t)(page - sim->mem_map);
}

static MM_ALWAYS_INLINE struct zone *zone_by_id(struct mm_sim *sim, unsigned int zone_id)
{
	return &sim->node_data[zone_id / MAX_NR_ZONES]->node_zones[zone_id % MAX_NR_ZONES];
}

static MM_ALWAYS_INLINE struct zone *page_zone(struct mm_sim *sim, const struct page *page)
{
	return zone_by_id(sim, page->zone_id);
}

static MM_ALWAYS_INLINE bool zone_spans_pfn(const struct zone *z, uint64_t pfn)
{
	return pfn >= z->zone_start_pfn && pfn < z->zone_start_pfn + z->spanned_pages;
}

static MM_ALWAYS_INLINE unsigned long zone_managed_pages(const struct zone *z)
{
	return (unsigned long)atomic_long_read(&z->managed_pages);
}

static MM_ALWAYS_INLINE bool populated_zone(const struct zone *z)
{
	return z->present_pages != 0;
}

static MM_ALWAYS_INLINE bool managed_zone(const struct zone *z)
{
	return zone_managed_pages(z) != 0;
}

static MM_ALWAYS_INLINE unsigned long wmark_pages(const struct zone *z, int i)
{
	return READ_ONCE(z->_watermark[i]) + READ_ONCE(z->watermark_boost);
}

/* models zone_page_state(): the estimate, clamped at 0; off by up to the CPUs' diffs */
static MM_ALWAYS_INLINE long zone_page_state(const struct zone *z, enum zone_stat_item item)
{
	long x = atomic_long_read(&z->vm_stat[item]);
	return x < 0 ? 0 : x;
}

/*
 * mm_cpu_is_online() for the loops over every CPU: a relaxed load, as the
 * kernel's cpumask tests are plain reads; the hotplug lock orders what matters.
 * A macro, so that it inlines into the MM_SCAN loops as well.
 */
#define cpu_online(sim, cpu)                                                                       \
	((bool)atomic_load_explicit(&(sim)->cpu_online[(cpu)], memory_order_relaxed))

/* The calling thread's simulated CPU's counters. */
static MM_ALWAYS_INLINE struct mm_cpu_stats *this_cpu_stats(struct mm_sim *sim)
{
	unsigned int cpu = (unsigned int)smp_processor_id();

	return &sim->cpu_stats[cpu < sim->nr_cpus ? cpu : 0];
}

#define count_events(sim, item, n) stat_add(&this_cpu_stats(sim)->item, (unsigned long long)(n))
#define count_event(sim, item)	   count_events(sim, item, 1)

/* zone->lock, counted, with stress --jitter's delay points: src/lockdep.c, out of line */
void zone_lock(struct zone *z);
void zone_unlock(struct zone *z);

static MM_ALWAYS_INLINE bool migratetype_is_mergeable(int mt)
{
	return mt < MIGRATE_PCPTYPES;
}

static MM_ALWAYS_INLINE uint64_t pageblock_start_pfn(const struct mm_sim *sim, uint64_t pfn)
{
	return pfn & ~((UINT64_C(1) << sim->pageblock_order) - 1);
}

static MM_ALWAYS_INLINE int get_pfnblock_migratetype(const struct mm_sim *sim, uint64_t pfn)
{
	/* Written under zone->lock, read by frees that do not hold it (pcp). */
	return READ_ONCE(sim->pageblock_flags[pfn >> sim->pageblock_order]) & PB_MIGRATETYPE_MASK;
}

/* page.c */
void pfn_list_add(struct mm_sim *sim, uint32_t *head, uint32_t *tail, uint64_t pfn, bool at_tail);
void pfn_list_del(struct mm_sim *sim, uint32_t *head, uint32_t *tail, uint64_t pfn);
void pfn_list_rotate_to(struct mm_sim *sim, uint32_t *head, uint32_t *tail, uint32_t pfn);
void set_pageblock_migratetype(struct mm_sim *sim, uint64_t pfn, int mt);
void change_pageblock_range(struct mm_sim *sim, uint64_t pfn, unsigned int order, int mt);
const char *_mm_page_state_name(int state);

/* buddy.c */
/* fpi_t: how a block is freed */
#define FPI_NONE    0u
#define FPI_TO_TAIL 0x2u /* boot and hotplug: to the tail of the lists */
void move_freepages_block_isolate(struct zone *zone, uint64_t start, int mt);
void remove_isolated_free_block(struct zone *zone, uint64_t pfn);
void putback_pageblock_buddy(struct zone *zone, uint64_t start);
void move_free_block_apart(struct zone *zone, uint64_t pfn, unsigned int order, int old_mt,
			   int new_mt);
void __free_one_page(struct zone *zone, uint64_t pfn, unsigned int order, int mt,
		     unsigned int fpi_flags);
struct page *__rmqueue_smallest(struct zone *zone, unsigned int order, int mt);
struct page *__rmqueue(struct zone *zone, unsigned int order, int mt, unsigned int alloc_flags);
bool free_area_empty(const struct free_area *area, int mt);
void _mm_free_area_init(struct zone *zone);
void _mm_free_pfn_range(struct zone *zone, uint64_t start, uint64_t end);
void _mm_free_boot_range(struct zone *zone, uint64_t start, uint64_t end);
bool prep_move_freepages_block(struct zone *zone, uint64_t pfn, uint64_t *start_pfn,
			       unsigned long *free_pages, unsigned long *movable_pages);
void __move_freepages_block(struct zone *zone, uint64_t start, int old_mt, int new_mt);
int find_suitable_fallback(const struct zone *zone, unsigned int order, int mt, bool only_stealable,
			   bool *can_steal);
unsigned long __isolate_free_page(struct zone *zone, uint64_t pfn, unsigned int order);
unsigned long _mm_buddy_check_zone(struct zone *zone, const struct pcp_totals *t);
unsigned long _mm_buddy_check_counts(struct zone *zone);

/* pcp.c */
int default_zone_batchsize(unsigned long managed);
int default_zone_highsize(unsigned long total_pages, int batch, int nr_split_cpus);
int decayed_pcp_high(int high, int count, int batch, int high_min);
void zone_set_pageset_high_and_batch(struct zone *zone, int cpu_online);
void zone_pcp_update(struct zone *zone, int cpu_online);
void _mm_pcp_init_zone(struct zone *zone);
/* INV-PCP-FLUSH's bound on the pages a flush asked for expect returns */
bool _mm_pcp_flush_count_ok(int expect, int freed);
/*
 * models pcp_allowed_order() without the THP list. Real configurations
 * have pageblock_order >= 9 > 3; the model's small machines may not, and a
 * pcp block must stay inside one pageblock (free_pcppages_bulk frees it
 * whole, with its pageblock's type), so larger orders skip the lists.
 */
static MM_ALWAYS_INLINE bool pcp_allowed_order(const struct mm_sim *sim, unsigned int order)
{
	return order <= PAGE_ALLOC_COSTLY_ORDER && order < sim->pageblock_order;
}
struct page *rmqueue_pcplist(struct zone *zone, unsigned int order, int mt,
			     unsigned int alloc_flags);
void free_unref_page(struct mm_sim *sim, uint64_t pfn, unsigned int order);
long drain_pages_zone(unsigned int cpu, struct zone *zone);
void page_alloc_cpu_dead(struct mm_sim *sim, unsigned int cpu);
void page_alloc_cpu_online(struct mm_sim *sim, unsigned int cpu);
unsigned long _mm_pcp_check_zone(struct zone *zone, struct pcp_totals *t);
unsigned long _mm_pcp_check_sizing(struct zone *zone);
int decay_pcp_high(struct zone *zone, unsigned int cpu);
unsigned long _mm_pcp_check_high_range(struct zone *zone, unsigned int cpu, int high_before,
				       int count_before);

/* oracle_pcp.c: the free_high decision of free_unref_page_commit(), from its inputs */
struct pcp_free_inputs {
	uint8_t flags;	  /* pcp->flags before the free */
	short free_count; /* pcp->free_count before the free */
	int count;	  /* pcp->count with the freed block */
	int batch;
	unsigned int order;
};
bool _mm_oracle_free_high(const struct pcp_free_inputs *in);
void _mm_oracle_note_cacheinfo(struct zone *zone, unsigned int cpu);
void _mm_oracle_note_cacheinfo_boot(struct zone *zone);
void cacheinfo_cpu_online(struct mm_sim *sim, unsigned int cpu);
void cacheinfo_boot(struct mm_sim *sim);
void _mm_oracle_check_free_high(struct zone *zone, unsigned int cpu,
				const struct pcp_free_inputs *in, uint8_t flags_after,
				bool free_high, int freed);

/* vmstat.c */
int calculate_normal_threshold(const struct zone *zone);
int calculate_pressure_threshold(const struct zone *zone);
void refresh_zone_stat_thresholds(struct mm_sim *sim);
void set_pgdat_percpu_threshold(struct pglist_data *pgdat,
				int (*calculate_threshold)(const struct zone *zone));
void __mod_zone_page_state(struct zone *zone, enum zone_stat_item item, long delta);
void __inc_zone_state(struct zone *zone, enum zone_stat_item item);
void __dec_zone_state(struct zone *zone, enum zone_stat_item item);
long zone_page_state_snapshot(struct zone *zone, enum zone_stat_item item);
long _mm_vmstat_drift_bound(const struct zone *zone, enum zone_stat_item item);
bool _mm_vmstat_pressure_in_force(const struct zone *zone);
bool _mm_vmstat_pressure_in_force_locked(const struct zone *zone);
int refresh_cpu_vm_stats(struct mm_sim *sim, unsigned int cpu);
/* INV-VMSTAT-REARM: what a vmstat_update's CPU held before it (src/vmstat.c) */
struct vmstat_rearm_view {
	long global[NR_VM_ZONE_STAT_ITEMS];
	int count[MM_MAX_NODES * MAX_NR_ZONES];
};
void _mm_vmstat_rearm_before(struct mm_sim *sim, unsigned int cpu, struct vmstat_rearm_view *v);
void _mm_vmstat_check_rearm(struct mm_sim *sim, unsigned int cpu, const struct vmstat_rearm_view *v,
			    int changes);
void cpu_vm_stats_fold(struct mm_sim *sim, unsigned int cpu);
void drain_zonestat(struct zone *zone, unsigned int cpu);
void _mm_vmstat_init_zone(struct zone *zone);
void _mm_vmstat_note_free(struct zone *zone);
unsigned long _mm_vmstat_check_zone(struct zone *zone);
unsigned long _mm_vmstat_check_global(struct mm_sim *sim);

/* reclaim.c */
void wakeup_kswapd(struct zone *zone, unsigned int gfp, unsigned int order, int highest_zoneidx);
void wake_all_kswapds(struct mm_sim *sim, unsigned int order, unsigned int gfp,
		      struct zone **zonelist, int highest_zoneidx);
bool pgdat_balanced(struct pglist_data *pgdat, unsigned int order, int highest_zoneidx);
int _mm_kswapd_step(struct mm_sim *sim, int node);
int _mm_kswapd_try_to_sleep(struct mm_sim *sim, int node);
void _mm_kswapd_reset(struct mm_sim *sim);
unsigned long _mm_check_boost_wake(struct zone *zone, unsigned int factor);
unsigned long _mm_check_boost_decay(struct pglist_data *pgdat, int highest_zoneidx,
				    const unsigned long *boost_before);

/* deferred_init.c */
void _mm_deferred_init_layout(struct mm_sim *sim);
void page_alloc_init_late(struct mm_sim *sim);

/* watermark.c */
unsigned int calculate_min_free_kbytes(const struct mm_sim *sim);
void __setup_per_zone_wmarks(struct mm_sim *sim);
void setup_per_zone_lowmem_reserve(struct mm_sim *sim);
void init_per_zone_wmark_min(struct mm_sim *sim);
void setup_per_zone_wmarks(struct mm_sim *sim);
long __zone_watermark_unusable_free(const struct zone *z, unsigned int order,
				    unsigned int alloc_flags);
long _mm_wmark_reserve_floor(long mark, unsigned int alloc_flags);
bool __zone_watermark_ok(const struct zone *z, unsigned int order, unsigned long mark,
			 int highest_zoneidx, unsigned int alloc_flags, long free_pages);
bool zone_watermark_ok(const struct zone *z, unsigned int order, unsigned long mark,
		       int highest_zoneidx, unsigned int alloc_flags);
bool zone_watermark_fast(const struct zone *z, unsigned int order, unsigned long mark,
			 int highest_zoneidx, unsigned int alloc_flags);
bool zone_watermark_ok_safe(struct zone *z, unsigned int order, unsigned long mark,
			    int highest_zoneidx);
bool boost_watermark(struct zone *zone);
unsigned long _mm_boost_bound(const struct zone *zone, unsigned int factor);
unsigned long _mm_check_boost_bound(struct zone *zone);

/* alloc.c */
void _mm_build_zonelists(struct mm_sim *sim);
unsigned int alloc_flags_nofragment(const struct zone *zone, unsigned int gfp);
/* nofragment_check.c: INV-NOFRAG-RETRY, the no-fallback pass failed before its retry */
unsigned long _mm_check_nofrag_retry(struct mm_sim *sim, struct zone *const *zonelist,
				     int highest_zoneidx, int local_nid, unsigned int order,
				     int migratetype, const uint32_t *refused_mask);
void account_freepages(struct zone *zone, long nr_pages, int mt);

/* topology.c */
void _mm_topology_init(struct mm_sim *sim);
/*
 * The nodes of local's fallback zonelist in build_zonelists()' order;
 * node_load is the kernel's, zeroed once per rebuild of all zonelists.
 * Returns how many.
 */
unsigned int _mm_zonelist_node_order(const struct mm_sim *sim, unsigned int local,
				     unsigned int *node_load, unsigned int *order);

/* report.c */
void mm_report_violation(struct mm_sim *sim, const char *id, int node, int zone, int cpu,
			 long long pfn, long long expected, long long actual, const char *fmt, ...)
	__attribute__((format(printf, 9, 10)));
#define zone_report(z, id, pfn, exp, act, ...)                                                     \
	mm_report_violation((z)->sim, id, (z)->node, (int)(z)->type, smp_processor_id(), pfn, exp, \
			    act, __VA_ARGS__)

/* alloc.c */
void free_one_page(struct zone *zone, uint64_t pfn, unsigned int order);
void free_frozen_pages(struct zone *zone, uint64_t pfn, unsigned int order);
/* threaded INV-VMSTAT-PRESSURE: the admission at low evaluated again under zone->lock */
void _mm_check_admission_under_pressure_locked(struct zone *zone, unsigned int order);

/* check.c */
unsigned long _mm_check_zone_cheap(struct zone *z);

/*
 * config.c: a config's rows past nr_nodes are zero; these write the used
 * rows and the scalar fields only (per-input decode and boot)
 */
void _mm_config_clear(struct mm_config *cfg);
void _mm_config_copy(struct mm_config *dst, const struct mm_config *src);

/* check_derived.c: derived state equals the kernel's rule (INV-DERIVED-*) */
void _mm_derived_boot(struct mm_sim *sim);
void _mm_derived_vmstat_op(struct mm_sim *sim, const struct mm_op *op, int skipped);
unsigned long _mm_derived_check_vmstat(struct mm_sim *sim);
unsigned long _mm_derived_check_counters(struct mm_sim *sim);
unsigned long _mm_derived_check_kswapd_request(struct mm_sim *sim, int node, unsigned int order,
					       int highest_zoneidx);
void _mm_derived_check_kswapd_wakes(struct mm_sim *sim, struct zone **zonelist, unsigned int order,
				    int highest_zoneidx);
unsigned long _mm_check_derived(struct mm_sim *sim);
unsigned long _mm_check_derived_full(struct mm_sim *sim);
/* The rules a hotplug event's recompute follows, for the stress checker. */
struct derived_hotplug_rules {
	int threshold; /* the normal stat_threshold of every online CPU */
	unsigned long drift_mark;
	int batch, high_min, high_max; /* the zone's pcp sizing */
};
void _mm_derived_hotplug_rules(const struct mm_sim *sim, const struct zone *z,
			       unsigned long old_mark, struct derived_hotplug_rules *r);

/* oracle_gfp.c: what a gfp mask entitles an allocation to, from the kernel's rules */
unsigned int _mm_oracle_alloc_flags(unsigned int gfp, unsigned int order);
int _mm_oracle_gfp_zone(unsigned int gfp);
int _mm_oracle_gfp_migratetype(unsigned int gfp);
long _mm_oracle_reserve_floor(long mark, unsigned int flags);
unsigned long _mm_oracle_check_alloc(struct mm_sim *sim, unsigned int gfp, unsigned int order,
				     unsigned int alloc_flags, int highest_zoneidx,
				     int migratetype);

/* ------------------------------------------------------------------------
 * percpu_counter, vm_committed_as, mm_struct (seeds 003 and 004)
 * ---------------------------------------------------------------------- */

struct list_head {
	struct list_head *next, *prev;
};

/* models struct percpu_counter (lib/percpu_counter.c, CONFIG_HOTPLUG_CPU) */
struct percpu_counter {
	spinlock_t lock;
	int64_t count;	   /* under lock; read racily by percpu_counter_read() */
	int32_t *counters; /* CPU c's local is counters[c * stride] */
	unsigned int stride;
	struct list_head list; /* on pcpu_state.percpu_counters */
	/*
	 * The checker's shadow, not the kernel's: the exact sum of every
	 * amount added or set, and per CPU (maxb[c * stride], in the same
	 * allocation as the locals) the largest batch of an add since that
	 * CPU's local was last folded: |local| <= maxb - 1.
	 */
	int64_t truth;
	int32_t *maxb;
};

struct mm_struct {
	bool live;
	struct percpu_counter rss_stat[NR_MM_COUNTERS];
	void *pcpu_cid;			      /* mm_alloc_cid()'s per-cpu allocation */
	unsigned long total_vm;		      /* pages mapped */
	unsigned long committed;	      /* pages charged to vm_committed_as */
	unsigned long mapped[NR_MM_COUNTERS]; /* the page tables: pages present per type */
	bool rss_one_by_one; /* each rss counter has its own allocation (the variant's mm_init) */
};

/*
 * One cache slot for every per-cpu area a machine holds at once: the ops'
 * counters, vm_committed_as and each mm's rss counters.
 */
#define PCPU_CACHE_SLOTS (2 + MM_MAX_MMS)

struct pcpu_state {
	spinlock_t percpu_counters_lock;
	struct list_head percpu_counters;
	int percpu_counter_batch;
	long pcpu_live; /* per-cpu allocations not yet freed (the ledger) */
	/*
	 * Freed per-cpu areas kept for reuse, by size: every fuzz input frees
	 * and re-allocates the same boot counters, and a malloc per input
	 * costs page faults under ASan. A leaked area is still unreachable.
	 */
	void *pcpu_cache[PCPU_CACHE_SLOTS];
	size_t pcpu_cache_size[PCPU_CACHE_SLOTS];

	struct percpu_counter vm_committed_as;
	int vm_committed_as_batch;
	int sysctl_overcommit_memory;
	unsigned long totalram, admin_reserve, user_reserve;
	int never_bound; /* checker: the drift per CPU NEVER allows, plus one */

	struct percpu_counter ctr[MM_MAX_PCPU_COUNTERS];
	struct mm_struct mm[MM_MAX_MMS];
	/*
	 * A counter op ran since the reset. Until then every local is 0, and
	 * a hotplug fold or batch change cannot break what the checks check.
	 */
	bool touched;

	atomic_ullong pcpu_adds, pcpu_folds, pcpu_sums, pcpu_sum_cpus_read;
	atomic_ullong committed_adds, committed_folds, vm_enough_refused;
	atomic_ullong pcpu_allocs, pcpu_frees, list_lock_acquisitions;
	atomic_ullong forks, forks_failed, exits, fork_pcpu_allocs, fork_list_locks;

	/*
	 * Threads (mmfuzz stress). pcpu_alloc_lock models pcpu_alloc_mutex:
	 * the per-cpu allocator's cache and ledger. cpu_lock[c] models CPU
	 * c's preempt_disable() as hotplug sees it: a counter op runs as c
	 * holding it, and c's dead-CPU fold and the overcommit switch's sync
	 * on c take it, so no fold of c's locals races an add on c (the
	 * kernel's stop_machine waits out preempt-disabled sections).
	 * mm_lock[m] models m's mmap_lock. Order: mm_lock, hotplug_lock,
	 * cpu_lock, pcpu_alloc_lock, percpu_counters_lock, fbc->lock.
	 */
	spinlock_t pcpu_alloc_lock;
	spinlock_t cpu_lock[MM_MAX_CPUS];
	mm_mutex_t mm_lock[MM_MAX_MMS];
	/* cpu_dying_mask: from before a CPU leaves the online mask until its locals are folded */
	atomic_bool cpu_dying[MM_MAX_CPUS];
};

/*
 * fork's failure injection (the Nth next per-cpu allocation of this fork
 * fails, 0: none) and whether a fork is running: the calling thread's, as
 * forks on other CPUs run at the same time.
 */
extern _Thread_local unsigned int _mm_pcpu_fail_countdown;
extern _Thread_local bool _mm_pcpu_in_fork;

/* The calling CPU's cpu_lock (above); false, and no lock held, when it is offline. */
bool pcpu_preempt_disable(struct mm_sim *sim);
void pcpu_preempt_enable(struct mm_sim *sim);
/* Called before CPU hotplug clears cpu's online bit; percpu_counter_cpu_dead() ends it. */
void percpu_counter_cpu_dying(struct mm_sim *sim, unsigned int cpu);

#define pcc_stat(s, f, n) atomic_fetch_add_explicit(&(s)->f, (n), memory_order_relaxed)

/* percpu_counter.c */
void *__alloc_percpu_gfp(struct mm_sim *sim, size_t size);
void free_percpu(struct mm_sim *sim, void *p);
int percpu_counter_init_many(struct mm_sim *sim, struct percpu_counter *fbc, int64_t amount,
			     unsigned int nr_counters);
void percpu_counter_destroy_many(struct mm_sim *sim, struct percpu_counter *fbc,
				 unsigned int nr_counters);
static inline int percpu_counter_init(struct mm_sim *sim, struct percpu_counter *fbc,
				      int64_t amount)
{
	return percpu_counter_init_many(sim, fbc, amount, 1);
}
static inline void percpu_counter_destroy(struct mm_sim *sim, struct percpu_counter *fbc)
{
	percpu_counter_destroy_many(sim, fbc, 1);
}
/* Returns true when it folded into fbc->count (the model's statistic). */
bool percpu_counter_add_batch(struct mm_sim *sim, struct percpu_counter *fbc, int64_t amount,
			      int32_t batch);
void percpu_counter_add(struct mm_sim *sim, struct percpu_counter *fbc, int64_t amount);
static inline int64_t percpu_counter_read(const struct percpu_counter *fbc)
{
	return READ_ONCE(fbc->count);
}
static inline int64_t percpu_counter_read_positive(const struct percpu_counter *fbc)
{
	int64_t ret = READ_ONCE(fbc->count);

	return ret >= 0 ? ret : 0;
}
int64_t __percpu_counter_sum(struct mm_sim *sim, struct percpu_counter *fbc);
int __percpu_counter_compare(struct mm_sim *sim, struct percpu_counter *fbc, int64_t rhs,
			     int32_t batch);
void percpu_counter_set(struct mm_sim *sim, struct percpu_counter *fbc, int64_t amount);
void percpu_counter_sync(struct mm_sim *sim, struct percpu_counter *fbc);
void percpu_counter_cpu_dead(struct mm_sim *sim, unsigned int cpu);
void percpu_counter_cpu_online(struct mm_sim *sim, unsigned int cpu);
/* Checker: INV-PCPU-SUM and INV-PCPU-DRIFT of one counter; returns violations. */
unsigned long _mm_pcpu_check_counter(struct mm_sim *sim, struct percpu_counter *fbc,
				     const char *what, int idx);
/* The same for a group of nr counters (at most MM_MAX_PCPU_COUNTERS): true if all hold. */
bool _mm_pcpu_group_ok(struct mm_sim *sim, struct percpu_counter *fbc, unsigned int nr);
/* Checker: INV-PCPU-SYNC, given what count and cpu's local held before the sync. */
void _mm_pcpu_check_synced(struct mm_sim *sim, const struct percpu_counter *fbc, unsigned int cpu,
			   int64_t count_before, int32_t local_before, const char *what, int idx);
int _mm_pcpu_state_reset(struct mm_sim *sim);
void _mm_pcpu_state_destroy(struct mm_sim *sim);

/* committed.c */
void vm_acct_memory(struct mm_sim *sim, long pages);
void vm_unacct_memory(struct mm_sim *sim, long pages);
int __vm_enough_memory(struct mm_sim *sim, unsigned long total_vm, long pages, bool cap_sys_admin);
int _mm_committed_init(struct mm_sim *sim);
unsigned long _mm_committed_check(struct mm_sim *sim);

/* mm_struct.c */
void _mm_mm_teardown_all(struct mm_sim *sim);
unsigned long _mm_mm_check_ledger(struct mm_sim *sim);
/* Every counter invariant over the whole state (the executor's full checks). */
unsigned long _mm_counters_check_full(struct mm_sim *sim);

/* ------------------------------------------------------------------------
 * Compaction (seed 001): pageblock.c, compaction.c, compaction_pool.c,
 * compaction_check.c
 * ---------------------------------------------------------------------- */

#define COMPACT_MAX_DEFER_SHIFT 6
#define COMPACT_CLUSTER_MAX	32 /* SWAP_CLUSTER_MAX */
/* Stamp owners of pages that belong to no executor handle. */
#define OWNER_FILL	    0x80000000u /* | index in the fill pool */
#define OWNER_ISOLATED_FREE 0x7fffffffu /* a free page compaction isolated */

/* models struct compact_control (mm/internal.h) */
struct compact_control {
	struct zone *zone;
	uint32_t *freepages; /* isolated free order-0 pages: a stack */
	unsigned long nr_freepages;
	uint32_t *migratepages; /* isolated migration sources */
	unsigned long nr_migratepages;
	unsigned long total_migrate_scanned, total_free_scanned;
	uint64_t free_pfn, migrate_pfn, fast_start_pfn;
	int order, search_order;
	int migratetype;
	unsigned int alloc_flags;
	int highest_zoneidx;
	int mode; /* MM_MIGRATE_* */
	unsigned int fast_search_fail;
	bool ignore_skip_hint, no_set_skip_hint, ignore_block_suitable;
	bool direct_compaction, whole_zone, contended, finish_pageblock;
	/*
	 * checker: the shadow pass of INV-COMPACT-SKIP-HINT tests the skip bits
	 * as they were when its scan began (skip_seen[0] is block
	 * skip_seen_first's flags), blind to the bits it sets itself
	 */
	uint8_t *skip_seen;
	size_t skip_seen_first;
	/* checker: the free scanner marked a block this pass (the comparison is then moot) */
	bool free_side_marked;
	/* checker: the block fast_find_migrateblock() returned, until it is scanned */
	uint64_t fast_found_pfn;
	/* checker: the priority's rule asks for a whole-zone pass (compaction_oracle.c) */
	bool prio_whole_zone;
	/* checker: the pass scans the whole zone by the rule, set at its start */
	bool whole_zone_rule;
	/* the pass's own lists and checker state: the machine's, or its thread's */
	struct compact_state *cs;
	/* checker, under threads: zone->compact_resets at the pass's start */
	unsigned int resets_at_start;
	/* checker, under threads: skip-bit sets (all, this thread's) when fast_find returned */
	unsigned long skip_sets_at_find, own_sets_at_find;
	/* checker, under threads: the whole-zone rule could not be judged (a reset raced) */
	bool rule_unjudged;
};

#define COMPACT_NO_PFN UINT64_MAX

/* The pass's compaction state; a control built by hand (a unit test) has the machine's. */
static MM_ALWAYS_INLINE struct compact_state *cc_state(const struct compact_control *cc)
{
	return cc->cs ? cc->cs : cc->zone->sim->compact;
}

/* possible outcome of isolate_migratepages() */
typedef enum {
	ISOLATE_ABORT,	 /* abort compaction now */
	ISOLATE_NONE,	 /* no pages isolated, continue scanning */
	ISOLATE_SUCCESS, /* pages isolated, migrate */
} isolate_migrate_t;

/* models freelist_scan_limit(): the fast searches shorten as they keep failing */
static MM_ALWAYS_INLINE unsigned int freelist_scan_limit(const struct compact_control *cc)
{
	unsigned int shift = cc->fast_search_fail < 31 ? cc->fast_search_fail : 31;

	return (COMPACT_CLUSTER_MAX >> shift) + 1;
}

/* compaction_free.c: the free scanner */
uint64_t compaction_alloc(struct compact_control *cc);
uint64_t release_freepages(struct compact_control *cc);

/* compaction_migrate.c: the migration scanner and migration */
isolate_migrate_t isolate_migratepages(struct compact_control *cc);
uint64_t fast_find_migrateblock(struct compact_control *cc);
long migrate_pages(struct compact_control *cc);
/* models putback_movable_pages(): the isolated sources back where they came from */
void putback_movable_pages(struct compact_control *cc);

/* compaction.c */
int compact_zone(struct compact_control *cc);
int try_to_compact_pages(struct mm_sim *sim, unsigned int order, unsigned int alloc_flags,
			 struct zone **zonelist, int highest_zoneidx, int migratetype, int prio);
bool compaction_deferred(struct zone *zone, int order);
void defer_compaction(struct zone *zone, int order);
void compaction_defer_reset(struct zone *zone, int order, bool alloc_success);
bool compaction_restarting(struct zone *zone, int order);
bool compaction_suitable(struct zone *zone, int order, int highest_zoneidx);
/* Can compaction run here: a serial run that lends its handles, or threads a migrate_src. */
bool compaction_possible(struct mm_sim *sim);
int compact_min_priority(unsigned int order);
void compaction_direct_outcome(struct mm_sim *sim, struct zone *zone, unsigned int order);

/* pageblock.c */
bool get_pageblock_skip(const struct mm_sim *sim, uint64_t pfn);
/* Skip bits this thread set under threads (the checker's, beside sim->compact_skip_sets). */
extern _Thread_local unsigned long compact_own_skip_sets;
void set_pageblock_skip(struct mm_sim *sim, uint64_t pfn);
void clear_pageblock_skip(struct mm_sim *sim, uint64_t pfn);
bool pageblock_skip_seen(const struct compact_control *cc, uint64_t pfn);
bool isolation_suitable(const struct compact_control *cc, uint64_t pfn);
bool test_and_set_skip(struct compact_control *cc, uint64_t pfn);
void update_pageblock_skip(struct compact_control *cc, uint64_t block_pfn, uint64_t pfn);
void __reset_isolation_suitable(struct zone *zone);
void reset_isolation_suitable(struct pglist_data *pgdat);
void reset_cached_positions(struct zone *zone);
/* models pageblock_skip_persistent(): pfn's pageblock lies in an allocation of pageblock_order+ */
bool _mm_pageblock_skip_persistent(const struct mm_sim *sim, uint64_t pfn);
bool compact_skip_test_pfn_default(const struct zone *zone, uint64_t pfn);
bool compact_skip_test_pfn_aligned_only(const struct zone *zone, uint64_t pfn);
bool compact_lru_skip_default(struct compact_control *cc, uint64_t valid_pfn, uint64_t lru_pfn,
			      bool *skip_updated);
bool compact_lru_skip_aligned(struct compact_control *cc, uint64_t valid_pfn, uint64_t lru_pfn,
			      bool *skip_updated);
static MM_ALWAYS_INLINE uint64_t zone_end_pfn(const struct zone *z)
{
	return z->zone_start_pfn + z->spanned_pages;
}
static MM_ALWAYS_INLINE uint64_t pageblock_end_pfn(const struct mm_sim *sim, uint64_t pfn)
{
	return pageblock_start_pfn(sim, pfn) + (UINT64_C(1) << sim->pageblock_order);
}
static MM_ALWAYS_INLINE bool pageblock_aligned(const struct mm_sim *sim, uint64_t pfn)
{
	return !(pfn & ((UINT64_C(1) << sim->pageblock_order) - 1));
}

/* Compaction's per-machine scratch, reused across inputs (compaction_pool.c). */
struct compact_state {
	uint32_t *freepages, *migratepages; /* cc's lists: max_pfn entries each */
	size_t pfn_cap;
	uint8_t *visits, *scanned_by; /* per pageblock, this pass (compaction_check.c) */
	/* INV-COMPACT-SKIP-FLUSH: the machine's pageblock flags before a flush point */
	uint8_t *flush_before;
	bool flush_saved;
	size_t block_cap;
	struct mm_handle *fill; /* the fill pool: OWNER_FILL | slot */
	uint32_t nr_fill, cap_fill, fill_cursor;
	unsigned int pass_iterations;
	/* INV-COMPACT-SOURCES: sources isolated since the list was last drained */
	unsigned long src_held;
	struct mm_compact_stats stats;
	/* INV-COMPACT-SKIP-HINT: the state before and after the real pass */
	struct compact_snapshot *before, *after;
	bool before_valid; /* before holds the state the real pass started from */
	bool in_shadow;	   /* the shadow pass runs: its own findings are not reported */
	/* Under threads: the stamps isolate returned, beside migratepages (ground truth). */
	uint32_t *mig_owner, *mig_gen;
	struct compact_state *next_thread; /* sim->compact_threads: a thread's own state */
	uint64_t cookie; /* the machine's state: unique per allocation (compaction_pool.c) */
};

/* compaction_pool.c: the fill pool, the handle lookup (migration, reclaim), the ops */
struct mm_handle *handle_of_block(struct mm_sim *sim, uint64_t pfn);
int _mm_compaction_reset(struct mm_sim *sim);
void _mm_compaction_destroy(struct mm_sim *sim);
struct mm_compact_stats *compact_stats(struct mm_sim *sim);
/* The compaction state a pass on this thread uses: the machine's (serial) or its own. */
struct compact_state *compact_state_current(struct mm_sim *sim);

/* compaction_shadow.c: INV-COMPACT-SKIP-HINT, a pass rerun blind to the skip bits */
bool compact_skip_hint_wanted(const struct compact_control *cc);
void compact_skip_hint_pass_begin(struct compact_control *cc);
void compact_skip_hint_before(struct compact_control *cc);
void compact_skip_hint_after(const struct compact_control *cc0, int result, bool free_side_marked);
void _mm_compaction_shadow_destroy(struct compact_state *cs);

/* compaction_check.c: the invariants of a pass */
void compact_check_pass_begin(struct compact_control *cc);
/* A visit of the migration scanner to the block at pfn; false: abort the pass. */
bool compact_check_migrate_visit(struct compact_control *cc, uint64_t pfn);
void compact_check_free_visit(struct compact_control *cc, uint64_t pfn);
/* After each round of a pass; false: the pass runs away, stop it. */
bool compact_check_round(struct compact_control *cc);
void compact_check_fast_found(struct compact_control *cc, uint64_t block_pfn,
			      unsigned long scanned_past_test);
/* fast_find_migrateblock() returns a block: the checker notes the skip bits set so far. */
void compact_check_fast_returned(struct compact_control *cc);
/* A source joins the migrate list; the list is drained (migrated or put back), or ends a pass. */
void compact_check_source_isolated(struct compact_control *cc);
void compact_check_sources(struct compact_control *cc, const char *where, bool drain);
void compact_check_defer(struct zone *zone);
/* oracle_compact_free.c: after isolate_freepages()'s linear scan, from its before-image */
void _mm_oracle_free_scan(struct compact_control *cc, uint64_t start_pfn, long isolated_before);
/* oracle_compact_free.c: the linear scan enters a block (from compact_check_free_visit()) */
void _mm_oracle_free_visit(struct compact_control *cc, uint64_t block_pfn);
/* oracle_compact_free.c: before each free block a scanner isolates */
void _mm_oracle_free_take(struct compact_control *cc, uint64_t pfn, unsigned int order);
void compact_check_migrated(struct mm_sim *sim, uint64_t dst, long long handle_pfn, uint32_t owner,
			    uint32_t gen);

/* compaction_oracle.c: compaction's decisions and resets against the kernel's rules */
void compact_check_priority(struct compact_control *cc, int prio);
void compact_check_prio_start(struct compact_control *cc);
void compact_check_scanners_met(const struct compact_control *cc, unsigned int quiet);
/* Under threads, before a write the checker reads back: a mark compact_quiet_end() checks. */
unsigned int compact_quiet_begin(struct zone *zone);
/* True if no other pass ran and no reset ran on the zone since compact_quiet_begin(). */
bool compact_quiet_end(struct zone *zone, unsigned int mark);
void compact_check_result(const struct compact_control *cc, int result);
bool compact_flush_due(const struct zone *zone, int order);
/* A zone's deferral fields before an event: the deferral rule's input. */
struct compact_defer_state {
	unsigned int considered, shift;
	int order_failed;
};
enum compact_defer_event {
	DEFER_EVENT_FAILED,  /* defer_compaction() */
	DEFER_EVENT_ASKED,   /* compaction_deferred(), with its answer */
	DEFER_EVENT_SUCCESS, /* compaction_defer_reset(), with alloc_success */
};
struct compact_defer_state zone_defer_state(const struct zone *zone);
void compact_check_defer_rule(struct zone *zone, const struct compact_defer_state *before,
			      enum compact_defer_event ev, int order, bool arg);
void compact_check_flush_begin(struct mm_sim *sim);
void compact_check_flushed(struct zone *zone);

/* ------------------------------------------------------------------------
 * The op table (op_table.c): one row per op kind, which the binary form
 * (ops.c), the text form (op_line.c) and mm_apply_op() (exec.c) follow
 * ---------------------------------------------------------------------- */

enum mm_op_family {
	MM_FAMILY_BUDDY, /* allocations, frees, hotplug, watermark sysctls */
	MM_FAMILY_PCP,	 /* the per-cpu lists, drains, deferred init */
	MM_FAMILY_COUNTERS,
	MM_FAMILY_VMSTAT,
	MM_FAMILY_COMPACTION,
};

/* How a field is written in a trace and which values it takes */
enum mm_field_type {
	MM_FIELD_NUM,	 /* a decimal in min..max */
	MM_FIELD_ORDER,	 /* 0..the machine's max_order (and at most max) */
	MM_FIELD_NODE,	 /* 0..the machine's nodes - 1 */
	MM_FIELD_ZONE,	 /* a zone name below ZONE_DEVICE */
	MM_FIELD_GFP,	 /* MM_GFP_* names joined by '|', or a number */
	MM_FIELD_ENUM,	 /* one of names[] */
	MM_FIELD_INDEX,	 /* prefix and a number in min..max ("c3", "m1") */
	MM_FIELD_FLAG,	 /* the key alone sets it to 1 */
	MM_FIELD_HANDLE, /* "aN": an allocation's number */
};

struct mm_op_field {
	const char *key;
	uint8_t off, size; /* where it sits in struct mm_op */
	uint8_t type;	   /* enum mm_field_type; size 0: not stored (an alloc's own handle) */
	bool is_signed;
	bool optional;	/* absent: dflt (as stored) */
	bool hide_dflt; /* printed only when it differs from dflt */
	bool bare;	/* printed without "key=", the value saying what it is */
	char prefix;	/* MM_FIELD_INDEX, MM_FIELD_HANDLE */
	int64_t min, max, dflt;
	int8_t bias;		  /* stored = value + bias: fork's parent is stored + 1 */
	const char *const *names; /* MM_FIELD_ENUM, nr_names of them */
	uint8_t nr_names;
};

/* The decoder's state: the bytes, and the program whose live set frees pick from */
struct mm_decoder {
	const uint8_t *data;
	size_t len, pos;
	struct mm_prog *prog;
	unsigned int ncpus;
	unsigned int sub;      /* the sub byte after OPC_CHECK, MM_OP_NO_SUB without one */
	unsigned int sub_kind; /* the first kind whose row owns sub */
};

struct mm_encoder {
	const struct mm_config *cfg; /* the machine the ops run on */
	uint8_t *buf;
	size_t len, pos;
	struct mm_prog live; /* only its live set: the decoder's, replayed */
	uint32_t next_alloc;
};

/* What an op's entry point gets besides the op */
struct mm_op_ctx {
	struct mm_sim *sim;
	struct mm_handle *handles;
	uint32_t nr_handles, alloc_handle;
};

/* Decodes the op of a slot; 0, 1 when it decodes to nothing, -1 when memory is short. */
typedef int (*mm_op_decode_fn)(struct mm_decoder *d, struct mm_op *op);
/* Writes op's bytes; -1 when the binary form cannot hold it, -3 when memory is short. */
typedef int (*mm_op_encode_fn)(struct mm_encoder *e, const struct mm_op *op);
/* Runs op on ctx->sim as the current CPU; 0, or 1 when it was skipped. */
typedef int (*mm_op_apply_fn)(struct mm_op_ctx *ctx, const struct mm_op *op);

#define MM_OP_NO_SUB 0xff

/* Where a stress run may run a kind (which CPUs): see harness/stress/ */
enum mm_op_stress {
	MM_STRESS_WORKER,  /* any worker, as its own CPU */
	MM_STRESS_SERVICE, /* a service thread of its own, as any online CPU */
	MM_STRESS_QUIESCE, /* only while every worker waits (a full check) */
	MM_STRESS_SERIAL,  /* not under threads (yet): the stress workers drop it */
};

struct mm_op_desc {
	const char *name; /* unique: mm_op_name() */
	const char *verb; /* the trace's word, NULL: name; kinds may share one */
	const char *tag;  /* a word that picks this kind among its verb's ("drain all") */
	uint8_t family;	  /* enum mm_op_family */
	uint8_t stress;	  /* enum mm_op_stress */
	bool no_cpu;	  /* the line has no "cpuN" and any CPU state runs it (check) */
	bool offline_ok;  /* runs on an offline CPU (online) */
	/*
	 * The binary slot: opcode bytes opc_lo..opc_hi (mod 64), or, after
	 * the OPC_CHECK prefix, the sub byte sub (mod 16). The slot's width
	 * is the kind's weight in every fuzz target: they share the decoder
	 * and differ only in the machines they decode.
	 */
	uint8_t opc_lo, opc_hi, sub;
	const struct mm_op_field *fields;
	uint8_t nr_fields;
	/* Cross-field rules the ranges cannot say; NULL: none. Returns a reason or NULL. */
	const char *(*validate)(const struct mm_op *op, const struct mm_config *cfg);
	mm_op_decode_fn decode; /* kinds that share a slot share it */
	mm_op_encode_fn encode;
	mm_op_apply_fn apply;
};

extern const struct mm_op_desc mm_op_descs[MM_NR_OP_KINDS];
#define OPC_CHECK 63 /* a prefix: the next byte picks CHECK (sub 0) or a sub op */
#define OPC_MOD	  64
#define SUB_MOD	  16

/* The binary form's primitives the rows' codecs use; bytes past the end read as zero */
static MM_ALWAYS_INLINE unsigned int _mm_rd8(struct mm_decoder *d)
{
	return d->pos < d->len ? d->data[d->pos++] : (d->pos++, 0u);
}

static MM_ALWAYS_INLINE unsigned int _mm_rd16(struct mm_decoder *d)
{
	unsigned int lo = _mm_rd8(d);
	return lo | (_mm_rd8(d) << 8);
}

/* ops.c */
void _mm_wr8(struct mm_encoder *e, unsigned int v);
void _mm_wr16(struct mm_encoder *e, unsigned int v);
int _mm_live_add(struct mm_prog *p, uint32_t handle);
uint32_t _mm_live_take(struct mm_prog *p, unsigned int pick);
extern const enum zone_type _mm_hdr_zones[4];

/* op_line.c: an op's trace line, from its row's fields */
bool _mm_parse_u64(const char *s, uint64_t *v); /* decimal only; false on junk or overflow */
/*
 * Parses the words of an op's line (tok[0] "cpuN", or the op itself for
 * check) into op; next_alloc: the handle an alloc must name. Returns 0,
 * or -1 with the reason in why.
 */
int _mm_parse_op_words(char **tok, int ntok, const struct mm_config *cfg, uint32_t next_alloc,
		       struct mm_op *op, char *why, size_t whylen);
/* The line's form, as "cpuN kswapd_wake node=N zone=NAME order=0..10" (cfg: NULL for none) */
int _mm_op_usage(const struct mm_op_desc *d, const struct mm_config *cfg, char *buf, size_t len);

/* The entry points of the rows, in their subsystems' files */
int _mm_op_alloc(struct mm_op_ctx *ctx, const struct mm_op *op);       /* exec.c */
int _mm_op_free(struct mm_op_ctx *ctx, const struct mm_op *op);	       /* exec.c */
int _mm_op_check(struct mm_op_ctx *ctx, const struct mm_op *op);       /* exec.c */
int _mm_op_cpu_offline(struct mm_op_ctx *ctx, const struct mm_op *op); /* topology.c */
int _mm_op_cpu_online(struct mm_op_ctx *ctx, const struct mm_op *op);
int _mm_op_set_min_free_kbytes(struct mm_op_ctx *ctx, const struct mm_op *op); /* watermark.c */
int _mm_op_set_wsf(struct mm_op_ctx *ctx, const struct mm_op *op);
int _mm_op_set_boost_factor(struct mm_op_ctx *ctx, const struct mm_op *op);
int _mm_op_drain_local(struct mm_op_ctx *ctx, const struct mm_op *op); /* pcp.c */
int _mm_op_drain_all(struct mm_op_ctx *ctx, const struct mm_op *op);
int _mm_op_pcp_disable(struct mm_op_ctx *ctx, const struct mm_op *op);
int _mm_op_pcp_enable(struct mm_op_ctx *ctx, const struct mm_op *op);
int _mm_op_set_high_fraction(struct mm_op_ctx *ctx, const struct mm_op *op);
int _mm_op_deferred_step(struct mm_op_ctx *ctx, const struct mm_op *op); /* deferred_init.c */
int _mm_op_deferred_complete(struct mm_op_ctx *ctx, const struct mm_op *op);
int _mm_op_pcpu_add(struct mm_op_ctx *ctx, const struct mm_op *op); /* mm_struct.c */
int _mm_op_pcpu_compare(struct mm_op_ctx *ctx, const struct mm_op *op);
int _mm_op_pcpu_set(struct mm_op_ctx *ctx, const struct mm_op *op);
int _mm_op_pcpu_sync(struct mm_op_ctx *ctx, const struct mm_op *op);
int _mm_op_mmap(struct mm_op_ctx *ctx, const struct mm_op *op);
int _mm_op_brk(struct mm_op_ctx *ctx, const struct mm_op *op);
int _mm_op_munmap(struct mm_op_ctx *ctx, const struct mm_op *op);
int _mm_op_fork(struct mm_op_ctx *ctx, const struct mm_op *op);
int _mm_op_exit(struct mm_op_ctx *ctx, const struct mm_op *op);
int _mm_op_set_overcommit(struct mm_op_ctx *ctx, const struct mm_op *op);
int _mm_op_vmstat_fold(struct mm_op_ctx *ctx, const struct mm_op *op); /* reclaim.c */
int _mm_op_vmstat_read(struct mm_op_ctx *ctx, const struct mm_op *op);
int _mm_op_vmstat_refresh(struct mm_op_ctx *ctx, const struct mm_op *op);
int _mm_op_kswapd_wake(struct mm_op_ctx *ctx, const struct mm_op *op);
int _mm_op_kswapd_step(struct mm_op_ctx *ctx, const struct mm_op *op);
int _mm_op_kswapd_sleep(struct mm_op_ctx *ctx, const struct mm_op *op);
int _mm_op_stat_refresh(struct mm_op_ctx *ctx, const struct mm_op *op); /* vmstat.c */
int _mm_op_range(struct mm_op_ctx *ctx, const struct mm_op *op);	/* isolation.c */
int _mm_op_compact(struct mm_op_ctx *ctx, const struct mm_op *op);	/* compaction_pool.c */
int _mm_op_kcompactd(struct mm_op_ctx *ctx, const struct mm_op *op);
int _mm_op_reset_skip(struct mm_op_ctx *ctx, const struct mm_op *op);
int _mm_op_fill(struct mm_op_ctx *ctx, const struct mm_op *op);
int _mm_op_free_pattern(struct mm_op_ctx *ctx, const struct mm_op *op);
/* exec.c: after an event the kernel resizes the pcp lists for, is the sizing current? */
void _mm_check_sizing(struct mm_sim *sim);
/* isolation.c: INV-ISOLATE-UNDO after an undo; tests call it on states built by hand */
void _mm_check_undone_range(struct zone *zone, uint64_t start, uint64_t end, long want_free);
/*
 * isolation.c: test_pages_isolated(), 0 or -EBUSY; a serial run only ever
 * meets a range that passes, so tests build the failing ones by hand
 */
int test_pages_isolated(struct zone *zone, uint64_t start, uint64_t end);

/* Iterate over the populated zones of every node. */
#define for_each_zone(sim, z)                                                                      \
	for (unsigned int _n = 0; _n < (sim)->nr_nodes; _n++)                                      \
		for (struct zone *z = (sim)->node_data[_n]->node_zones;                            \
		     z < (sim)->node_data[_n]->node_zones + MAX_NR_ZONES; z++)

#endif /* MM_INTERNAL_H */
