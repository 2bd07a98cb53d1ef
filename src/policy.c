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

void _mm_policy_default(struct mm_policy *p)
{
	memset(p, 0, sizeof(*p));
	p->buddy_no_merge_order = -1;
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
	default:
		break;
	}
}
