/* SPDX-License-Identifier: MIT */
/*
 * minimize.c - a failing program cut down to the ops its violation needs:
 * delta debugging (Zeller's ddmin) over the op list, keeping a candidate
 * only when it fails with the same signature, then single ops until no one
 * more can go. The executor is deterministic, so a candidate's verdict is
 * one run.
 */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sig_probe {
	char id[48];
	bool seen;
};

static void probe_first(const struct mm_violation *v, void *arg)
{
	struct sig_probe *s = arg;

	if (!s->seen)
		snprintf(s->id, sizeof(s->id), "%s", v->id);
	s->seen = true;
}

int cli_signature(struct mm_exec *ex, const struct mm_prog *p, const struct mm_exec_opts *o,
		  struct cli_signature *sig)
{
	struct mm_exec_opts mine = *o;
	struct sig_probe s = {.seen = false};
	long failed_op;

	mine.on_violation = probe_first;
	mine.arg = &s;
	mine.stop_on_violation = true;
	memset(sig, 0, sizeof(*sig));
	if (mm_exec_run(ex, p, &mine, &failed_op) < 0)
		return -1;
	if (!s.seen)
		return 0;
	snprintf(sig->id, sizeof(sig->id), "%s", s.id);
	snprintf(sig->op, sizeof(sig->op), "%s",
		 failed_op < (long)p->nr_ops ? mm_op_name(p->ops[failed_op].kind) : "final-check");
	sig->failed_op = failed_op;
	return 1;
}

bool cli_signature_eq(const struct cli_signature *a, const struct cli_signature *b)
{
	return !strcmp(a->id, b->id) && !strcmp(a->op, b->op);
}

/*
 * The program of p's ops with keep[i] set. A free whose allocation was
 * dropped goes too; the kept allocations are numbered anew, in order, as
 * handles are. Returns 0, or -1 when memory is short.
 */
static int build_candidate(const struct mm_prog *p, const bool *keep, struct mm_prog *out)
{
	int32_t *renumber = malloc((p->nr_allocs + 1) * sizeof(*renumber));
	uint32_t alloc = 0, next = 0;

	if (!renumber)
		return -1;
	out->nr_ops = out->nr_allocs = 0;
	out->cfg = p->cfg;
	for (unsigned int i = 0; i < p->nr_ops; i++) {
		struct mm_op op = p->ops[i];

		if (op.kind == MM_OP_ALLOC)
			renumber[alloc++] = keep[i] ? (int32_t)next++ : -1;
		if (!keep[i])
			continue;
		if (op.kind == MM_OP_FREE) {
			if (op.free.handle >= alloc || renumber[op.free.handle] < 0)
				continue;
			op.free.handle = (uint32_t)renumber[op.free.handle];
		}
		if (mm_prog_push(out, &op)) {
			free(renumber);
			return -1;
		}
	}
	free(renumber);
	return 0;
}

struct ddmin {
	struct mm_exec *ex;
	const struct mm_exec_opts *o;
	const struct cli_signature *want;
	struct mm_prog cand;
	unsigned long runs;
};

/* Does the program with keep[] still fail the same way? -1 when memory is short. */
static int still_fails(struct ddmin *d, const struct mm_prog *p, const bool *keep)
{
	struct cli_signature got;

	if (build_candidate(p, keep, &d->cand))
		return -1;
	d->runs++;
	return cli_signature(d->ex, &d->cand, d->o, &got) == 1 && cli_signature_eq(&got, d->want);
}

int cli_minimize(struct mm_exec *ex, const struct mm_exec_opts *o, const struct cli_signature *want,
		 struct mm_prog *p, unsigned long *runs)
{
	struct ddmin d = {.ex = ex, .o = o, .want = want};
	bool *keep = NULL;
	int ret = -1;

	mm_prog_init(&d.cand);
	/* What runs after the failing op cannot matter, unless the final check found it. */
	if (want->failed_op >= 0 && want->failed_op < (long)p->nr_ops)
		p->nr_ops = (unsigned int)want->failed_op + 1;
	for (unsigned int n = 2;;) {
		unsigned int len = p->nr_ops, chunk = (len + n - 1) / n;
		bool reduced = false;

		if (len < 2)
			break;
		free(keep);
		if (!(keep = malloc(len * sizeof(*keep))))
			goto out;
		/* Each chunk's complement: the program without that chunk. */
		for (unsigned int start = 0; start < len && !reduced; start += chunk) {
			for (unsigned int i = 0; i < len; i++)
				keep[i] = i < start || i >= start + chunk;
			int r = still_fails(&d, p, keep);
			if (r < 0)
				goto out;
			if (r) {
				struct mm_prog tmp = *p;
				*p = d.cand;
				d.cand = tmp;
				reduced = true;
			}
		}
		if (reduced) {
			n = n > 2 ? n - 1 : 2;
			continue;
		}
		if (chunk == 1)
			break; /* 1-minimal: no single op can go */
		n = n * 2 < len ? n * 2 : len;
	}
	ret = 0;
out:
	free(keep);
	mm_prog_free(&d.cand);
	*runs = d.runs;
	return ret;
}
