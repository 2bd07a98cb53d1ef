/* SPDX-License-Identifier: MIT */
/*
 * fuzz_common.c - the glue between libFuzzer (or the standalone replay
 * main) and the executor. Per input it only decodes and re-initialises the
 * machine, reusing every buffer: no per-input setup beyond the reset.
 */
#include "fuzz_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct mm_exec *exec;
static struct mm_prog prog;
static struct mm_exec_opts opts;

/*
 * The coverage counters of the fuzz build (-fsanitize-coverage's
 * inline-8bit-counters): the linker bounds their section. Weak, so the
 * standalone replay build, which has none, sees NULL.
 */
extern uint8_t __start___sancov_cntrs[] __attribute__((weak));
extern uint8_t __stop___sancov_cntrs[] __attribute__((weak));

/*
 * Decoding and boot run before the first op. What they cover depends on
 * the header's bytes only, and each op that follows sees the machine they
 * built: the counters they set would be features libFuzzer collects after
 * every run (about a quarter of a fuzz_vmstat run's) and learns nothing
 * from. Clearing them here counts what the ops did, including the boot
 * code an op runs again (a sysctl, a hotplug).
 */
static void clear_boot_coverage(void *arg)
{
	uint8_t *start = __start___sancov_cntrs, *stop = __stop___sancov_cntrs;

	(void)arg;
	if (start && stop > start)
		memset(start, 0, (size_t)(stop - start));
}

static void abort_on_violation(const struct mm_violation *v, void *arg)
{
	char line[512];

	(void)arg;
	mm_violation_format(v, line, sizeof(line));
	fprintf(stderr, "mmfuzz: %s\n", line);
	if (opts.variant >= 0)
		fprintf(stderr, "mmfuzz: variant %s\n", mm_variant_at((size_t)opts.variant)->name);
	if (mm_policy_plugin_path())
		fprintf(stderr, "mmfuzz: policy %s\n", mm_policy_plugin_path());
	fflush(stderr);
	abort();
}

static void setup(void)
{
	const char *name = getenv("MMFUZZ_VARIANT");
	int variant = mm_variant_lookup(name);

	if (variant == MM_VARIANT_UNKNOWN) {
		fprintf(stderr, "mmfuzz: unknown MMFUZZ_VARIANT '%s' (see 'mmfuzz variants')\n",
			name);
		exit(2);
	}
	/* a policy plugin (docs/policy-lab.md): every machine of the run uses it */
	name = getenv("MMFUZZ_POLICY");
	if (name && name[0]) {
		char err[1024];

		if (mm_policy_plugin_load(name, err, sizeof(err)) < 0) {
			fprintf(stderr, "mmfuzz: MMFUZZ_POLICY: %s\n", err);
			exit(2);
		}
	}
	exec = mm_exec_create();
	if (!exec) {
		fprintf(stderr, "mmfuzz: out of memory\n");
		exit(2);
	}
	mm_prog_init(&prog);
	mm_exec_opts_default(&opts);
	opts.variant = variant;
	/* the stronger watermark property the kernel does not promise (docs/invariants.md) */
	opts.strict_watermarks = getenv("MMFUZZ_STRICT_WATERMARKS") != NULL;
	opts.on_violation = abort_on_violation;
	opts.on_boot = clear_boot_coverage;
}

int mmfuzz_run_input(const uint8_t *data, size_t size, const struct mm_limits *lim)
{
	long failed_op;

	if (!exec)
		setup();
	if (mm_decode(data, size, lim, &prog))
		return 0; /* out of memory while decoding: not the input's fault */
	mm_exec_run(exec, &prog, &opts, &failed_op);
	return 0;
}

int mmfuzz_run_target(const uint8_t *data, size_t size, const char *target)
{
	static struct mm_limits lim;
	static bool have_lim;

	if (!have_lim) {
		if (mm_limits_for_target(target, &lim)) {
			fprintf(stderr, "mmfuzz: no machine shape for target '%s'\n", target);
			exit(2);
		}
		have_lim = true;
	}
	return mmfuzz_run_input(data, size, &lim);
}
