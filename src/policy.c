/* SPDX-License-Identifier: MIT */
/*
 * policy.c - the swappable policies and the variants registry.
 *
 * A variant switches one historical or plausible bug back on, chosen at run
 * time (--variant or MMFUZZ_VARIANT), never by the fuzz input, so that a
 * fuzz run tests one fixed system. The suite proves it catches each one.
 */
#include "internal.h"

#include <string.h>

/* The mis-set high of the variant: no room above one batch. */
static int highsize_equals_batch(unsigned long total_pages, int batch, int nr_split_cpus)
{
	(void)total_pages;
	(void)nr_split_cpus;
	return batch;
}

/*
 * The posted calculate_pressure_threshold(): the division binds to low
 * alone, so the result is about the high mark itself.
 */
static int pressure_threshold_v1(const struct zone *zone)
{
	long threshold = (long)wmark_pages(zone, WMARK_HIGH) -
			 (long)wmark_pages(zone, WMARK_LOW) / (long)mm_num_online_cpus(zone->sim);

	return threshold > 1 ? (int)threshold : 1;
}

/* The switches: each sets the policy fields where its bug lives */
static void no_merge_order3(struct mm_policy *p)
{
	p->buddy_no_merge_order = 3;
}

static void ignore_min(struct mm_policy *p)
{
	p->wmark_ignore_min = true;
}

static void free_without_zone_lock(struct mm_policy *p)
{
	p->free_without_zone_lock = true;
}

static void no_recalc_after_deferred_init(struct mm_policy *p)
{
	p->pcp_no_recalc_after_deferred_init = true;
}

static void high_equals_batch(struct mm_policy *p)
{
	p->zone_highsize = highsize_equals_batch;
}

static void commit_switch_no_sync(struct mm_policy *p)
{
	p->commit_switch_no_sync = true;
}

static void rss_check_uses_read(struct mm_policy *p)
{
	p->rss_check_uses_read = true;
}

static void rss_leak_on_fork_failure(struct mm_policy *p)
{
	p->rss_leak_on_fork_failure = true;
}

static void pcpu_batch_2ncpu(struct mm_policy *p)
{
	p->pcpu_batch_2ncpu = true;
}

static void rss_counters_one_by_one(struct mm_policy *p)
{
	p->rss_counters_one_by_one = true;
}

static void pressure_v1(struct mm_policy *p)
{
	p->pressure_threshold = pressure_threshold_v1;
}

static void no_pressure(struct mm_policy *p)
{
	/* kswapd's switch then sets what refresh_zone_stat_thresholds() did */
	p->pressure_threshold = calculate_normal_threshold;
}

static void fast_find_marks_skip(struct mm_policy *p)
{
	p->compact_fast_find_marks_skip = true;
}

static void fast_find_no_mark(struct mm_policy *p)
{
	p->compact_no_finish_pageblock = true;
	p->compact_lru_skip = compact_lru_skip_aligned;
}

static void target_pageblock_order(struct mm_policy *p)
{
	p->compact_target_pageblock_order = true;
}

static void aligned_only_skip_test(struct mm_policy *p)
{
	p->compact_skip_test_pfn = compact_skip_test_pfn_aligned_only;
}

static void merge_across_isolate(struct mm_policy *p)
{
	p->buddy_merge_across_isolate = true;
}

static void pcp_stale_migratetype(struct mm_policy *p)
{
	p->pcp_stale_migratetype = true;
}

static void highatomic_unusable_reserved(struct mm_policy *p)
{
	p->highatomic_unusable_reserved = true;
}

static void boost_wake_without_boost(struct mm_policy *p)
{
	p->boost_wake_without_boost = true;
}

static void boost_decay_whole_node(struct mm_policy *p)
{
	p->boost_decay_whole_node = true;
}

static void vmstat_decay_no_rearm(struct mm_policy *p)
{
	p->vmstat_decay_no_rearm = true;
}

static void compact_partial_as_complete(struct mm_policy *p)
{
	p->compact_partial_as_complete = true;
}

static void kswapd_wake_first_zone_only(struct mm_policy *p)
{
	p->kswapd_wake_first_zone_only = true;
}

static void compact_no_flush_request(struct mm_policy *p)
{
	p->compact_no_flush_request = true;
}

static void compact_migrate_drops_stamp(struct mm_policy *p)
{
	p->compact_migrate_drops_stamp = true;
}

static void pcpu_set_keeps_locals(struct mm_policy *p)
{
	p->pcpu_set_keeps_locals = true;
}

static void compact_reset_keeps_request(struct mm_policy *p)
{
	p->compact_reset_keeps_request = true;
}

static void rss_vec_skips_last(struct mm_policy *p)
{
	p->rss_vec_skips_last = true;
}

/*
 * One row per variant: what mmfuzz variants lists (docs/variants.md's
 * index is checked against it by ctest) and the switch that applies it.
 * The index is the variant's number: rows are only ever appended.
 */
static const struct {
	struct mm_variant v;
	void (*apply)(struct mm_policy *p);
} variants[] = {
	{{"buddy-no-merge-order3", MM_VARIANT_BUG, "fuzz_buddy",
	  "plausible: the merge loop's bound off by its order",
	  "__free_one_page stops merging at order 3, leaving mergeable buddies apart"},
	 no_merge_order3},
	{{"wmark-ignore-min", MM_VARIANT_BUG, "fuzz_buddy",
	  "plausible: the slow path's min pass ignored",
	  "get_page_from_freelist uses a zone the min watermark refused, so ordinary "
	  "allocations eat the reserves"},
	 ignore_min},
	{{"buddy-free-without-zone-lock", MM_VARIANT_RACE, "stress",
	  "plausible: free_one_page's spin_lock dropped",
	  "free_one_page merges into the free lists without taking zone->lock: a race only "
	  "real threads show"},
	 free_without_zone_lock},
	{{"pcp-no-recalc-after-deferred-init", MM_VARIANT_BUG, "fuzz_pcp",
	  "seed 000: page_alloc_init_late() without zone_pcp_update()",
	  "pcp batch/high stay as sized from the boot-time managed pages after deferred init "
	  "(seed 000)"},
	 no_recalc_after_deferred_init},
	{{"pcp-high-equals-batch", MM_VARIANT_BUG, "fuzz_pcp",
	  "plausible: zone_highsize()'s 4 * batch floor lost",
	  "zone_highsize returns batch: no room above a batch (nr_pcp_free finds high - batch "
	  "= 0), the 4*batch floor broken"},
	 high_equals_batch},
	{{"commit-policy-switch-no-sync", MM_VARIANT_BUG, "fuzz_counters",
	  "seed 003: overcommit_policy_handler() before its sync",
	  "vm.overcommit_memory=2 is published before the new vm_committed_as batch and no CPU "
	  "syncs: the old batch's locals hide committed memory (seed 003)"},
	 commit_switch_no_sync},
	{{"rss-check-uses-read", MM_VARIANT_BUG, "fuzz_counters",
	  "seed 004: check_mm() on percpu_counter_read()",
	  "check_mm reads fbc->count instead of summing the locals: a false \"Bad rss-counter "
	  "state\" (seed 004)"},
	 rss_check_uses_read},
	{{"rss-leak-on-fork-failure", MM_VARIANT_BUG, "fuzz_counters",
	  "seed 004: mm_init()'s error path",
	  "mm_init's rss init_many failure path skips mm_destroy_cid: a per-cpu area leaks per "
	  "failed fork"},
	 rss_leak_on_fork_failure},
	{{"pcpu-batch-2ncpu", MM_VARIANT_COST, "bench",
	  "before Tim Chen's mm_compute_batch() (3.11)",
	  "vm_committed_as adds with max(32, 2 * ncpus) (before Tim Chen, 3.11): not wrong, "
	  "every large brk folds (seed 003's 73x)"},
	 pcpu_batch_2ncpu},
	{{"rss-counters-one-by-one", MM_VARIANT_COST, "bench",
	  "f1a7941243c1 to c439d5e8a0de (6.2-6.5)",
	  "four percpu_counter_init per fork instead of one init_many (6.2-6.5): four "
	  "allocations and list locks"},
	 rss_counters_one_by_one},
	{{"vmstat-pressure-v1", MM_VARIANT_BUG, "fuzz_vmstat",
	  "calculate_pressure_threshold() as first posted (Oct 2010)",
	  "the pressure threshold as first posted (Oct 2010), max(1, high - low / ncpus): "
	  "about high, not (low - min) / ncpus, wrapped into the s8 field (seed 002)"},
	 pressure_v1},
	{{"vmstat-no-pressure", MM_VARIANT_BUG, "fuzz_vmstat", "before 88f5acf88ae6",
	  "kswapd keeps the normal thresholds while awake (before 88f5acf88ae6): the drift "
	  "outgrows low - min (seed 002)"},
	 no_pressure},
	{{"compaction-fast-find-marks-skip", MM_VARIANT_BUG, "fuzz_compaction",
	  "70b44595eafe (5.1)",
	  "fast_find_migrateblock marks the block it returns skip, so the block's own "
	  "first-pfn test aborts it unscanned (70b44595eafe, seed 001)"},
	 fast_find_marks_skip},
	{{"compaction-fast-find-no-mark", MM_VARIANT_BUG, "fuzz_compaction",
	  "7efc3b726103, reverted by 95e7a450b819 (SUSE bz 1206848)",
	  "no finish_pageblock rescans and the skip bit only set on an aligned first LRU page: "
	  "partially scanned blocks are reselected forever (7efc3b726103, seed 001)"},
	 fast_find_no_mark},
	{{"compaction-aligned-only-skip-test", MM_VARIANT_BUG, "fuzz_compaction",
	  "seed 001's 2023 follow-up: unaligned zone starts",
	  "the skip bit is tested and set only at aligned pfns: the first block of a zone with "
	  "an unaligned start is never marked and is reselected forever (seed 001)"},
	 aligned_only_skip_test},
	{{"compaction-target-pageblock-order", MM_VARIANT_BUG, "fuzz_compaction",
	  "before 1883e8ac96dd (6.9)",
	  "suitable_migration_target bars a block by a free page of pageblock_order or more "
	  "whatever the pass's order: a pass below pageblock_order splits free pages of its own "
	  "order for targets, one above it passes over blocks 6.9 scans"},
	 target_pageblock_order},
	{{"isolate-merge-across", MM_VARIANT_BUG, "fuzz_buddy", "before d9dddbf55667 (4.6)",
	  "__free_one_page merges a free pageblock with its isolated buddy: isolated pages are "
	  "counted free, or free ones uncounted, and MemFree can exceed MemTotal"},
	 merge_across_isolate},
	{{"pcp-stale-migratetype", MM_VARIANT_BUG, "fuzz_pcp",
	  "before 51bb1a4093cc and ad53f92eb416 (3.18)",
	  "free_pcppages_bulk frees a page as the migratetype cached when it entered the pcp "
	  "list: pages of a pageblock isolated meanwhile go back to normal free lists"},
	 pcp_stale_migratetype},
	{{"highatomic-unusable-reserved", MM_VARIANT_BUG, "fuzz_buddy",
	  "before c928807f6f6b (6.12)",
	  "__zone_watermark_unusable_free counts the whole highatomic reserve as unusable, "
	  "allocated pages included: order-0 requests refused with memory free (spurious OOM)"},
	 highatomic_unusable_reserved},
	{{"boost-wake-without-boost", MM_VARIANT_BUG, "fuzz_buddy", "before 597c892038e0 (5.11)",
	  "steal_suitable_fallback asks rmqueue to wake kswapd after every fallback steal, "
	  "whether boost_watermark boosted or not (boosting off, a small zone): kswapd reclaims "
	  "a node with plenty free"},
	 boost_wake_without_boost},
	{{"boost-decay-whole-node", MM_VARIANT_BUG, "fuzz_vmstat",
	  "plausible: balance_pgdat()'s boost loops past highest_zoneidx",
	  "a kswapd run for a lower zone takes back the boost of every zone of the node: a "
	  "higher zone's fallback boost is dropped before any reclaim for it"},
	 boost_decay_whole_node},
	{{"vmstat-decay-no-rearm", MM_VARIANT_BUG, "fuzz_vmstat",
	  "plausible: 51a755c56dc0's decay_pcp_high() return ignored",
	  "refresh_cpu_vm_stats counts only the folded diffs, not the pcp highs still above "
	  "high_min: vmstat_update stops re-arming on an idle CPU and its high stays inflated"},
	 vmstat_decay_no_rearm},
	{{"compaction-partial-as-complete", MM_VARIANT_BUG, "fuzz_compaction",
	  "before c8f7de0bfae3 (4.7)",
	  "__compact_finished ends every pass whose scanners met COMPLETE, one begun at the "
	  "cached pfns too: a pass that never saw the zone's start reads as a whole-zone "
	  "failure"},
	 compact_partial_as_complete},
	{{"kswapd-wake-first-zone-only", MM_VARIANT_BUG, "fuzz_vmstat",
	  "plausible: wakeup_kswapd()'s max() of the zone index lost",
	  "wakeup_kswapd records the highest zone only while none is recorded: a Normal "
	  "request after a DMA32 one leaves kswapd balancing DMA32 alone"},
	 kswapd_wake_first_zone_only},
	{{"compaction-no-flush-request", MM_VARIANT_BUG, "fuzz_compaction",
	  "plausible: __compact_finished()'s compact_blockskip_flush request dropped",
	  "a direct compaction whose scanners met does not ask kswapd to clear the skip bits: "
	  "they stay set until a restart after the maximum deferrals (seed 001)"},
	 compact_no_flush_request},
	{{"compaction-migrate-drops-contents", MM_VARIANT_BUG, "fuzz_compaction",
	  "plausible: the copy of a migrated page's contents lost",
	  "migrate_page moves a page's handle and type to its target but not its contents (the "
	  "owner's stamp): the owner finds another's data at its page"},
	 compact_migrate_drops_stamp},
	{{"percpu-counter-set-keeps-locals", MM_VARIANT_BUG, "fuzz_counters",
	  "plausible: percpu_counter_set()'s loop over the CPUs lost",
	  "percpu_counter_set writes the count but leaves each CPU's local: the sum reads the "
	  "value set plus what the CPUs held before"},
	 pcpu_set_keeps_locals},
	{{"compaction-reset-keeps-request", MM_VARIANT_BUG, "fuzz_compaction",
	  "plausible: __reset_isolation_suitable()'s clear of compact_blockskip_flush lost",
	  "the skip bits are reset but the flush request stays: every later kswapd sleep and "
	  "compaction restart walks the zone again and drops the hints passes have set since "
	  "(seed 001)"},
	 compact_reset_keeps_request},
	{{"rss-fork-skips-shmem", MM_VARIANT_BUG, "fuzz_counters",
	  "plausible: add_mm_rss_vec()'s loop a type short",
	  "a fork charges the child's rss counters for every type but MM_SHMEMPAGES: the "
	  "child maps shmem pages its counter never saw, and its exit reports a bad rss "
	  "state (seed 004)"},
	 rss_vec_skips_last},
};

#define NR_VARIANTS (sizeof(variants) / sizeof(variants[0]))

size_t mm_variant_count(void)
{
	return NR_VARIANTS;
}

const struct mm_variant *mm_variant_at(size_t i)
{
	return i < NR_VARIANTS ? &variants[i].v : NULL;
}

const char *mm_variant_kind_name(enum mm_variant_kind kind)
{
	static const char *const names[] = {"bug", "race", "cost"};

	return (unsigned int)kind < 3 ? names[kind] : "?";
}

int mm_variant_lookup(const char *name)
{
	if (!name || !name[0] || !strcmp(name, "none"))
		return MM_VARIANT_NONE;
	for (size_t i = 0; i < NR_VARIANTS; i++)
		if (!strcmp(variants[i].v.name, name))
			return (int)i;
	return MM_VARIANT_UNKNOWN;
}

void _mm_policy_default(struct mm_policy *p)
{
	memset(p, 0, sizeof(*p));
	p->zone_batchsize = default_zone_batchsize;
	p->zone_highsize = default_zone_highsize;
	p->decayed_pcp_high = decayed_pcp_high;
	p->normal_threshold = calculate_normal_threshold;
	p->pressure_threshold = calculate_pressure_threshold;
	p->buddy_no_merge_order = -1;
	p->compact_skip_test_pfn = compact_skip_test_pfn_default;
	p->compact_lru_skip = compact_lru_skip_default;
	p->mm_compute_batch = mm_compute_batch_for;
}

void _mm_policy_apply_variant(struct mm_policy *p, int variant)
{
	if (variant >= 0 && (size_t)variant < NR_VARIANTS)
		variants[variant].apply(p);
}
