/* SPDX-License-Identifier: MIT */
/*
 * policy_plugin.c - a policy plugin: a shared object defining any of the
 * model's policy functions under their kernel names, with the signatures
 * of struct mm_policy's hooks (src/internal.h). Loaded once per process
 * (--policy, MMFUZZ_POLICY) and applied by mm_sim_init() after the
 * variant, so every machine of the run uses it; a hook the object does
 * not define keeps the model's rule. docs/policy-lab.md has the walk-through.
 */
#include "internal.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

static struct mm_policy plugin;
static const char *plugin_path;

/* The symbol a plugin defines and the hook of struct mm_policy it replaces */
#define HOOK(sym, field)                                                                           \
	{                                                                                          \
#sym, offsetof(struct mm_policy, field)                                            \
	}
static const struct {
	const char *sym;
	size_t offset;
} hooks[] = {
	HOOK(zone_batchsize, zone_batchsize),
	HOOK(zone_highsize, zone_highsize),
	HOOK(decayed_pcp_high, decayed_pcp_high),
	HOOK(calculate_normal_threshold, normal_threshold),
	HOOK(calculate_pressure_threshold, pressure_threshold),
	HOOK(compact_skip_test_pfn, compact_skip_test_pfn),
	HOOK(compact_lru_skip, compact_lru_skip),
	HOOK(mm_compute_batch, mm_compute_batch),
};
#undef HOOK

#define NR_HOOKS (sizeof(hooks) / sizeof(hooks[0]))

size_t mm_policy_hook_count(void)
{
	return NR_HOOKS;
}

const char *mm_policy_hook_name(size_t i)
{
	return i < NR_HOOKS ? hooks[i].sym : NULL;
}

/* A hook's function pointer, as data: dlsym's answer goes in and out by bytes */
static void *hook_get(const struct mm_policy *p, size_t i)
{
	void *fn;

	memcpy(&fn, (const char *)p + hooks[i].offset, sizeof(fn));
	return fn;
}

static void hook_set(struct mm_policy *p, size_t i, void *fn)
{
	memcpy((char *)p + hooks[i].offset, &fn, sizeof(fn));
}

int mm_policy_plugin_load(const char *path, char *err, size_t errlen)
{
	struct mm_policy found;
	char local[4096];
	void *handle;
	int nr = 0;

	if (plugin_path)
		return snprintf(err, errlen, "%s: a policy plugin is loaded already", path), -1;
	/* without a slash dlopen would search the library path: a plugin is a file */
	if (!strchr(path, '/') && snprintf(local, sizeof(local), "./%s", path) < (int)sizeof(local))
		handle = dlopen(local, RTLD_NOW | RTLD_LOCAL);
	else
		handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!handle)
		return snprintf(err, errlen, "%s", dlerror()), -1;
	memset(&found, 0, sizeof(found));
	for (size_t i = 0; i < NR_HOOKS; i++) {
		void *sym = dlsym(handle, hooks[i].sym);

		hook_set(&found, i, sym);
		nr += sym != NULL;
	}
	if (!nr) {
		dlclose(handle);
		snprintf(err, errlen, "%s: defines none of the policy hooks (%s, ...)", path,
			 hooks[0].sym);
		return -1;
	}
	plugin = found; /* the handle stays open for the process's life */
	plugin_path = path;
	return nr;
}

const char *mm_policy_plugin_path(void)
{
	return plugin_path;
}

bool mm_policy_plugin_defines(size_t i)
{
	return plugin_path && i < NR_HOOKS && hook_get(&plugin, i);
}

/*
 * A knob: one policy returning a fixed value, set like a plugin (explore).
 * May be set again; it replaces what a previous knob set.
 */
static long knob_value;

static int knob_threshold(const struct zone *zone)
{
	(void)zone;
	return (int)knob_value;
}

static int knob_batchsize(unsigned long managed)
{
	(void)managed;
	return (int)knob_value;
}

static int knob_highsize(unsigned long total_pages, int batch, int nr_split_cpus)
{
	(void)total_pages;
	(void)nr_split_cpus;
	return knob_value > batch ? (int)knob_value : batch;
}

static int knob_commit_batch(unsigned int nr_present_cpus, unsigned long ram_pages, int policy)
{
	(void)nr_present_cpus;
	(void)ram_pages;
	(void)policy;
	return (int)knob_value;
}

int mm_policy_knob_set(const char *knob, long value)
{
	static const char tag[] = "(knob)";

	if (plugin_path && plugin_path != tag)
		return -1; /* a plugin is loaded: it is the policy under test */
	memset(&plugin, 0, sizeof(plugin));
	plugin_path = NULL;
	if (!value)
		return 0; /* back to the model's rules */
	if (!strcmp(knob, "pressure-threshold") && value >= 1 && value <= 125)
		plugin.pressure_threshold = knob_threshold;
	else if (!strcmp(knob, "normal-threshold") && value >= 1 && value <= 125)
		plugin.normal_threshold = knob_threshold;
	else if (!strcmp(knob, "pcp-batch") && value >= 1 && value <= 1 << 20)
		plugin.zone_batchsize = knob_batchsize;
	else if (!strcmp(knob, "pcp-high") && value >= 1 && value <= 1 << 24)
		plugin.zone_highsize = knob_highsize;
	else if (!strcmp(knob, "percpu-batch") && value >= 1 && value <= 1 << 24)
		plugin.mm_compute_batch = knob_commit_batch;
	else
		return -1;
	knob_value = value;
	plugin_path = tag;
	return 0;
}

const struct mm_policy *_mm_policy_plugin(void)
{
	return plugin_path ? &plugin : NULL;
}

void _mm_policy_apply_plugin(struct mm_policy *p)
{
	if (!plugin_path)
		return;
	for (size_t i = 0; i < NR_HOOKS; i++)
		if (hook_get(&plugin, i))
			hook_set(p, i, hook_get(&plugin, i));
}
