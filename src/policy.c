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

enum variant_id {
	V_BUDDY_NO_MERGE_ORDER3,
	V_WMARK_IGNORE_MIN,
	V_BUDDY_FREE_WITHOUT_ZONE_LOCK,
	V_PCP_NO_RECALC_AFTER_DEFERRED_INIT,
	V_PCP_HIGH_EQUALS_BATCH,
	V_COMMIT_POLICY_SWITCH_NO_SYNC,
	V_RSS_CHECK_USES_READ,
	V_RSS_LEAK_ON_FORK_FAILURE,
	V_PCPU_BATCH_2NCPU,
	V_RSS_COUNTERS_ONE_BY_ONE,
	V_VMSTAT_PRESSURE_V1,
	V_VMSTAT_NO_PRESSURE,
	V_COMPACTION_FAST_FIND_MARKS_SKIP,
	V_COMPACTION_FAST_FIND_NO_MARK,
	V_COMPACTION_ALIGNED_ONLY_SKIP_TEST,
	NR_VARIANTS
};

static const struct mm_variant variants[NR_VARIANTS] = {
	[V_BUDDY_NO_MERGE_ORDER3] = {"buddy-no-merge-order3", "fuzz_buddy",
				     "__free_one_page stops merging at order 3, leaving mergeable "
				     "buddies apart"},
	[V_WMARK_IGNORE_MIN] = {"wmark-ignore-min", "fuzz_buddy",
				"get_page_from_freelist uses a zone the min watermark refused, "
				"so ordinary allocations eat the reserves"},
	[V_BUDDY_FREE_WITHOUT_ZONE_LOCK] = {"buddy-free-without-zone-lock", "stress",
					    "free_one_page merges into the free lists without "
					    "taking zone->lock: a race only real threads show"},
	[V_PCP_NO_RECALC_AFTER_DEFERRED_INIT] = {"pcp-no-recalc-after-deferred-init", "fuzz_pcp",
						 "pcp batch/high stay as sized from the boot-time "
						 "managed pages after deferred init (seed 000)"},
	[V_PCP_HIGH_EQUALS_BATCH] =
		{"pcp-high-equals-batch", "fuzz_pcp",
		 "zone_highsize returns batch: no room above a batch "
		 "(nr_pcp_free finds high - batch = 0), the 4*batch floor broken"},
	[V_COMMIT_POLICY_SWITCH_NO_SYNC] = {"commit-policy-switch-no-sync", "fuzz_counters",
					    "vm.overcommit_memory=2 is published before the new "
					    "vm_committed_as batch and no CPU syncs: the old "
					    "batch's locals hide committed memory (seed 003)"},
	[V_RSS_CHECK_USES_READ] = {"rss-check-uses-read", "fuzz_counters",
				   "check_mm reads fbc->count instead of summing the locals: a "
				   "false \"Bad rss-counter state\" (seed 004)"},
	[V_RSS_LEAK_ON_FORK_FAILURE] = {"rss-leak-on-fork-failure", "fuzz_counters",
					"mm_init's rss init_many failure path skips "
					"mm_destroy_cid: a per-cpu area leaks per failed fork"},
	[V_PCPU_BATCH_2NCPU] = {"pcpu-batch-2ncpu", "bench",
				"vm_committed_as adds with max(32, 2 * ncpus) (before Tim Chen, "
				"3.11): not wrong, every large brk folds (seed 003's 73x)"},
	[V_RSS_COUNTERS_ONE_BY_ONE] = {"rss-counters-one-by-one", "bench",
				       "four percpu_counter_init per fork instead of one "
				       "init_many (6.2-6.5): four allocations and list locks"},
	[V_VMSTAT_PRESSURE_V1] = {"vmstat-pressure-v1", "fuzz_vmstat",
				  "the pressure threshold as first posted (Oct 2010), "
				  "max(1, high - low / ncpus): about high, not (low - min) / "
				  "ncpus, wrapped into the s8 field (seed 002)"},
	[V_VMSTAT_NO_PRESSURE] = {"vmstat-no-pressure", "fuzz_vmstat",
				  "kswapd keeps the normal thresholds while awake (before "
				  "88f5acf88ae6): the drift outgrows low - min (seed 002)"},
	[V_COMPACTION_FAST_FIND_MARKS_SKIP] = {"compaction-fast-find-marks-skip", "fuzz_compaction",
					       "fast_find_migrateblock marks the block it returns "
					       "skip, so the block's own first-pfn test aborts it "
					       "unscanned (70b44595eafe, seed 001)"},
	[V_COMPACTION_FAST_FIND_NO_MARK] =
		{"compaction-fast-find-no-mark", "fuzz_compaction",
		 "no finish_pageblock rescans and the skip bit only set "
		 "on an aligned first LRU page: partially scanned blocks "
		 "are reselected forever (7efc3b726103, seed 001)"},
	[V_COMPACTION_ALIGNED_ONLY_SKIP_TEST] =
		{"compaction-aligned-only-skip-test", "fuzz_compaction",
		 "the skip bit is tested and set only at aligned pfns: "
		 "the first block of a zone with an unaligned start is "
		 "never marked and is reselected forever (seed 001)"},
};

size_t mm_variant_count(void)
{
	return NR_VARIANTS;
}

const struct mm_variant *mm_variant_at(size_t i)
{
	return i < NR_VARIANTS ? &variants[i] : NULL;
}

int mm_variant_lookup(const char *name)
{
	if (!name || !name[0] || !strcmp(name, "none"))
		return -1;
	for (int i = 0; i < NR_VARIANTS; i++)
		if (!strcmp(variants[i].name, name))
			return i;
	return -2;
}

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

void _mm_policy_default(struct mm_policy *p)
{
	memset(p, 0, sizeof(*p));
	p->zone_batchsize = default_zone_batchsize;
	p->zone_highsize = default_zone_highsize;
	p->normal_threshold = calculate_normal_threshold;
	p->pressure_threshold = calculate_pressure_threshold;
	p->buddy_no_merge_order = -1;
	p->compact_skip_test_pfn = compact_skip_test_pfn_default;
	p->compact_lru_skip = compact_lru_skip_default;
}

void _mm_policy_apply_variant(struct mm_policy *p, int variant)
{
	switch (variant) {
	case V_BUDDY_NO_MERGE_ORDER3:
		p->buddy_no_merge_order = 3;
		break;
	case V_WMARK_IGNORE_MIN:
		p->wmark_ignore_min = true;
		break;
	case V_BUDDY_FREE_WITHOUT_ZONE_LOCK:
		p->free_without_zone_lock = true;
		break;
	case V_PCP_NO_RECALC_AFTER_DEFERRED_INIT:
		p->pcp_no_recalc_after_deferred_init = true;
		break;
	case V_PCP_HIGH_EQUALS_BATCH:
		p->zone_highsize = highsize_equals_batch;
		break;
	case V_COMMIT_POLICY_SWITCH_NO_SYNC:
		p->commit_switch_no_sync = true;
		break;
	case V_RSS_CHECK_USES_READ:
		p->rss_check_uses_read = true;
		break;
	case V_RSS_LEAK_ON_FORK_FAILURE:
		p->rss_leak_on_fork_failure = true;
		break;
	case V_PCPU_BATCH_2NCPU:
		p->pcpu_batch_2ncpu = true;
		break;
	case V_RSS_COUNTERS_ONE_BY_ONE:
		p->rss_counters_one_by_one = true;
		break;
	case V_VMSTAT_PRESSURE_V1:
		p->pressure_threshold = pressure_threshold_v1;
		break;
	case V_VMSTAT_NO_PRESSURE:
		/* kswapd's switch then sets what refresh_zone_stat_thresholds() did */
		p->pressure_threshold = calculate_normal_threshold;
		break;
	case V_COMPACTION_FAST_FIND_MARKS_SKIP:
		p->compact_fast_find_marks_skip = true;
		break;
	case V_COMPACTION_FAST_FIND_NO_MARK:
		p->compact_no_finish_pageblock = true;
		p->compact_lru_skip = compact_lru_skip_aligned;
		break;
	case V_COMPACTION_ALIGNED_ONLY_SKIP_TEST:
		p->compact_skip_test_pfn = compact_skip_test_pfn_aligned_only;
		break;
	default:
		break;
	}
}
