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
	HOOK(calculate_normal_threshold, normal_threshold),
	HOOK(calculate_pressure_threshold, pressure_threshold),
	HOOK(compact_skip_test_pfn, compact_skip_test_pfn),
	HOOK(compact_lru_skip, compact_lru_skip),
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
