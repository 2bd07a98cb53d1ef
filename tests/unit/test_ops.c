/* SPDX-License-Identifier: MIT */
/*
 * test_ops.c - the operation language: canonical text prints back byte for
 * byte, the binary form round-trips (decode -> encode -> decode, and
 * through the text form), parse errors name their line, and random byte
 * strings run clean on the correct model.
 */
#include "common.h"
#include "internal.h"

#include <stdlib.h>

/* ------------------------------------------------------------------------
 * Helpers
 * ---------------------------------------------------------------------- */

/* mm_print_prog() into a malloc'ed string. */
static char *print_prog(const struct mm_prog *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	mm_print_prog(f, p);
	ck_assert_int_eq(fclose(f), 0);
	return buf;
}

/* The decoder and the parser clear an op before they fill it: its bytes compare. */
static bool ops_equal(const struct mm_op *a, const struct mm_op *b)
{
	return !memcmp(a, b, sizeof(*a));
}

/* Returns NULL if equal, else what differs (a static string). */
static const char *prog_diff(const struct mm_prog *a, const struct mm_prog *b)
{
	if (memcmp(&a->cfg, &b->cfg, sizeof(a->cfg)))
		return "config";
	if (a->nr_ops != b->nr_ops)
		return "nr_ops";
	if (a->nr_allocs != b->nr_allocs)
		return "nr_allocs";
	for (unsigned int i = 0; i < a->nr_ops; i++)
		if (!ops_equal(&a->ops[i], &b->ops[i]))
			return "an op";
	return NULL;
}

static void random_bytes(struct rng *r, uint8_t *buf, size_t len)
{
	for (size_t i = 0; i < len; i++)
		buf[i] = (uint8_t)rng_next(r);
}

/* "0a1b..." of the first 40 bytes, for failure messages. */
static const char *hex(const uint8_t *d, size_t len)
{
	static char s[96];
	size_t n = len < 40 ? len : 40;

	for (size_t i = 0; i < n; i++)
		snprintf(s + 2 * i, 3, "%02x", d[i]);
	s[2 * n] = '\0';
	return s;
}

/* mm_encode() into a malloc'ed buffer; returns its length or mm_encode's error. */
static long encode(const struct mm_prog *p, uint8_t **out)
{
	long need = mm_encode(p, NULL, 0);

	*out = NULL;
	if (need < 0)
		return need;
	*out = malloc((size_t)need + 1);
	ck_assert_ptr_nonnull(*out);
	ck_assert_int_eq(mm_encode(p, *out, (size_t)need), need);
	if (need > 0)
		ck_assert_int_eq(mm_encode(p, *out, (size_t)need - 1), -1); /* one byte short */
	return need;
}

/* ------------------------------------------------------------------------
 * Text round trip
 * ---------------------------------------------------------------------- */

/* Every compaction op, each field at a bound; encodable (two nodes, DMA at pfn 1). */
#define COMPACTION_PROG                                                                            \
	"# mmfuzz trace v1\n"                                                                      \
	"config nodes=2 cpus=1,1 max_order=6 pageblock_order=5 min_free_kbytes=16 "                \
	"watermark_scale_factor=10 high_fraction=0\n"                                              \
	"zone 0 DMA start=1 spanned=255 present=255 managed=255\n"                                 \
	"zone 0 Normal start=256 spanned=256 present=256 managed=256\n"                            \
	"zone 1 Normal start=512 spanned=256 present=256 managed=256\n"                            \
	"cpu0 fill zone=Normal order=0 pages=256 unmovable_every=7 busy_every=3\n"                 \
	"cpu1 fill node=1 zone=DMA order=3 pages=1 unmovable_every=0 busy_every=15\n"              \
	"cpu0 free_pattern every=16 offset=15\n"                                                   \
	"cpu1 alloc a0 order=4 gfp=MOVABLE|DIRECT_RECLAIM|COMPACT node=1\n"                        \
	"cpu0 compact node=1 zone=Normal order=6 prio=sync_full mode=sync mt=unmovable\n"          \
	"cpu1 compact node=0 zone=DMA order=0 prio=async mode=sync_light mt=movable\n"             \
	"cpu0 kcompactd node=1 order=5\n"                                                          \
	"cpu1 reset_skip node=0\n"                                                                 \
	"cpu0 free_pattern every=1 offset=0\n"                                                     \
	"cpu0 free a0\n"

static const char *const canonical[] = {
	/* The smallest program: a machine and no ops. */
	"# mmfuzz trace v1\n"
	"config nodes=1 cpus=1 max_order=10 pageblock_order=9 min_free_kbytes=0 "
	"watermark_scale_factor=10 high_fraction=0\n"
	"zone 0 Normal start=0 spanned=1024 present=1024 managed=1024\n",

	/* Every op kind, gfp in canonical bit order, an explicit node. */
	"# mmfuzz trace v1\n"
	"config nodes=1 cpus=2 max_order=10 pageblock_order=9 min_free_kbytes=0 "
	"watermark_scale_factor=10 high_fraction=0\n"
	"zone 0 DMA32 start=0 spanned=1024 present=1024 managed=1024\n"
	"zone 0 Normal start=1024 spanned=1024 present=1024 managed=1000\n"
	"cpu0 alloc a0 order=0 gfp=DIRECT_RECLAIM|KSWAPD_RECLAIM\n"
	"cpu1 alloc a1 order=3 gfp=MOVABLE|DIRECT_RECLAIM|KSWAPD_RECLAIM node=0\n"
	"cpu0 free a0\n"
	"cpu1 offline\n"
	"cpu1 online\n"
	"cpu0 sysctl min_free_kbytes=512\n"
	"cpu1 sysctl watermark_scale_factor=200\n"
	"check\n"
	"cpu1 free a1\n",

	/* Two nodes with uneven CPUs, holes and reserved pages, every gfp bit. */
	"# mmfuzz trace v1\n"
	"config nodes=2 cpus=1,3 max_order=9 pageblock_order=8 min_free_kbytes=1024 "
	"watermark_scale_factor=3000 high_fraction=8\n"
	"zone 0 DMA start=5 spanned=100 present=90 managed=80\n"
	"zone 0 Normal start=105 spanned=512 present=512 managed=512\n"
	"zone 1 Normal start=617 spanned=256 present=256 managed=250\n"
	"zone 1 Movable start=873 spanned=128 present=128 managed=128\n"
	"cpu3 alloc a0 order=9 gfp=0\n"
	"cpu2 alloc a1 order=1 gfp=DMA|HIGH|THISNODE|NOMEMALLOC|MEMALLOC|OOM node=1\n"
	"cpu0 alloc a2 order=2 gfp=HIGHMEM|MOVABLE|KSWAPD_RECLAIM\n"
	"cpu1 free a2\n"
	"cpu0 free a0\n"
	"cpu2 alloc a3 order=0 gfp=DMA32|RECLAIMABLE\n"
	"check\n"
	"cpu3 free a3\n",

	/* max_order 3 with pageblock_order 3, a DMA zone past pfn 0. */
	"# mmfuzz trace v1\n"
	"config nodes=1 cpus=4 max_order=3 pageblock_order=3 min_free_kbytes=65535 "
	"watermark_scale_factor=1 high_fraction=255\n"
	"zone 0 DMA start=255 spanned=8 present=8 managed=0\n"
	"zone 0 DMA32 start=263 spanned=16 present=16 managed=16\n"
	"cpu3 alloc a0 order=3 gfp=DMA32|DIRECT_RECLAIM\n"
	"cpu3 offline\n"
	"cpu2 free a0\n",

	/* The vmstat and kswapd ops (seed 002) on 2 nodes of 128 CPUs. */
	"# mmfuzz trace v1\n"
	"config nodes=2 cpus=128,100 max_order=10 pageblock_order=9 min_free_kbytes=0 "
	"watermark_scale_factor=10 high_fraction=0\n"
	"zone 0 DMA32 start=0 spanned=256 present=256 managed=256\n"
	"zone 1 Normal start=256 spanned=256 present=256 managed=256\n"
	"cpu127 alloc a0 order=0 gfp=RECLAIMABLE|DIRECT_RECLAIM|KSWAPD_RECLAIM\n"
	"cpu5 vmstat_fold\n"
	"cpu200 vmstat_read node=1 zone=Normal how=estimate\n"
	"cpu0 vmstat_read node=0 zone=DMA32 how=snapshot\n"
	"cpu1 vmstat_read node=0 zone=Movable how=safe\n"
	"cpu2 kswapd_wake node=1 zone=Normal order=10\n"
	"cpu3 kswapd_step node=1\n"
	"cpu4 kswapd_sleep node=0\n"
	"cpu227 vmstat_refresh\n"
	"cpu9 stat_refresh\n"
	"cpu6 free a0\n",
	/* The compaction ops (seed 001) and an allocation that may direct-compact. */
	COMPACTION_PROG,
};

START_TEST(test_text_round_trip)
{
	const char *text = canonical[_i];
	struct mm_prog p;
	char err[200] = "";
	char *out;

	mm_prog_init(&p);
	ck_assert_msg(mm_parse_prog(text, &p, err, sizeof(err)) == 0, "parse: %s", err);
	out = print_prog(&p);
	ck_assert_str_eq(out, text);
	free(out);
	mm_prog_free(&p);
}
END_TEST

/*
 * Comments, blank lines and gfp aliases parse but are not canonical:
 * printing gives the canonical form, which is a fixed point.
 */
START_TEST(test_text_aliases_canonicalise)
{
	const char *in = "# a comment\n"
			 "\n"
			 "config nodes=1 cpus=2 max_order=10 pageblock_order=9 min_free_kbytes=0 "
			 "watermark_scale_factor=10 high_fraction=0   # trailing\n"
			 "zone 0 Normal start=0 spanned=1024 present=1024 managed=1024\n"
			 "cpu0 alloc a0 order=1 gfp=ATOMIC\n"
			 "cpu1 alloc a1 order=0 gfp=HIGHUSER_MOVABLE\n"
			 "cpu0 alloc a2 order=0 gfp=48\n"
			 "\tcheck\n";
	const char *want = "# mmfuzz trace v1\n"
			   "config nodes=1 cpus=2 max_order=10 pageblock_order=9 min_free_kbytes=0 "
			   "watermark_scale_factor=10 high_fraction=0\n"
			   "zone 0 Normal start=0 spanned=1024 present=1024 managed=1024\n"
			   "cpu0 alloc a0 order=1 gfp=HIGH|KSWAPD_RECLAIM\n"
			   "cpu1 alloc a1 order=0 "
			   "gfp=HIGHMEM|MOVABLE|DIRECT_RECLAIM|KSWAPD_RECLAIM\n"
			   "cpu0 alloc a2 order=0 gfp=HIGH|DIRECT_RECLAIM\n"
			   "check\n";
	struct mm_prog p;
	char err[200] = "";
	char *out;

	mm_prog_init(&p);
	ck_assert_msg(mm_parse_prog(in, &p, err, sizeof(err)) == 0, "parse: %s", err);
	ck_assert_uint_eq(p.nr_ops, 4);
	ck_assert_uint_eq(p.nr_allocs, 3);
	out = print_prog(&p);
	ck_assert_str_eq(out, want);
	free(out);
	mm_prog_free(&p);
}
END_TEST

/* ------------------------------------------------------------------------
 * Parse errors
 * ---------------------------------------------------------------------- */

#define HDR                                                                                        \
	"config nodes=1 cpus=2 max_order=10 pageblock_order=9 min_free_kbytes=0 "                  \
	"watermark_scale_factor=10 high_fraction=0\n"                                              \
	"zone 0 Normal start=0 spanned=1024 present=1024 managed=1024\n"

static const struct {
	const char *text;
	const char *line; /* the "line N:" prefix */
	const char *what; /* part of the reason */
} bad[] = {
	{HDR "cpu0 alloc a0 order=0 gfp=0\ncpu0 frob a0\n", "line 4:", "unknown op 'frob'"},
	{HDR "cpu2 alloc a0 order=0 gfp=0\n", "line 3:", "cpu2 does not exist"},
	{HDR "cpu0 alloc a0 order=0 gfp=0\ncpu1 free a0\ncpu0 free a0\n",
	 "line 5:", "a0 is freed twice"},
	{HDR "cpu0 free a0\n", "line 3:", "a0 is freed before it is allocated"},
	{HDR "cpu0 alloc a0 order=0 gfp=0\ncpu0 free a1\n",
	 "line 4:", "a1 is freed before it is allocated"},
	{HDR "cpu0 alloc a1 order=0 gfp=0\n", "line 3:", "expected a0, got a1"},
	{HDR "cpu0 alloc a0 order=0 gfp=0\ncpu0 alloc a0 order=0 gfp=0\n",
	 "line 4:", "expected a1, got a0"},
	{HDR "cpu0 alloc a0 order=0 gfp=KERNEL|BOGUS\n", "line 3:", "unknown gfp flag 'BOGUS'"},
	{HDR "cpu0 alloc a0 order=0 gfp=8192\n", "line 3:", "unknown bits"},
	{HDR "cpu0 alloc a0 order=11 gfp=0\n", "line 3:", "order must be 0..10"},
	/* past 64 bits, and past INT64_MAX: not a number the field can hold */
	{HDR "cpu0 alloc a0 order=99999999999999999999 gfp=0\n", "line 3:", "order must be 0..10"},
	{HDR "cpu0 alloc a0 order=9223372036854775808 gfp=0\n", "line 3:", "order must be 0..10"},
	{HDR "cpu0 alloc a0 gfp=0\n", "line 3:", "alloc needs order"},
	{"zone 0 Normal start=0 spanned=1024 present=1024 managed=1024\n",
	 "line 1:", "zone line before the config line"},
	{"cpu0 alloc a0 order=0 gfp=0\n", "line 1:", "ops must follow a config line"},
	{"# nothing here\n\n", "line 2:", "no config and zone lines"},
	{"# c\n\n" HDR "cpu9 offline\n", "line 5:", "cpu9 does not exist"},
	{HDR "config nodes=1 cpus=1\n", "line 3:", "a second config line"},
	{HDR "cpu0 sysctl watermark_scale_factor=0\n",
	 "line 3:", "watermark_scale_factor must be 1..3000"},
	{HDR "cpu0 vmstat_fold now\n", "line 3:", "unknown vmstat_fold argument 'now'"},
	{HDR "cpu0 vmstat_read node=0 zone=Normal how=exact\n",
	 "line 3:", "how must be estimate|snapshot|safe"},
	{HDR "cpu0 kswapd_wake node=1 zone=Normal order=0\n", "line 3:", "kswapd_wake node=N"},
	{HDR "cpu0 kswapd_wake node=0 zone=Normal order=11\n", "line 3:", "order=0..10"},
	{HDR "cpu0 kswapd_nap node=0\n", "line 3:", "unknown op 'kswapd_nap'"},
	{HDR "cpu0 kswapd_step\n", "line 3:", "expected 'cpuN kswapd_step node=N'"},
	{HDR "cpu0 compact node=0 zone=Normal order=4 prio=fast mode=async mt=movable\n",
	 "line 3:", "expected 'cpuN compact node=N"},
	{HDR "cpu0 compact node=0 zone=Normal order=4 prio=async mode=async\n",
	 "line 3:", "mt=unmovable|movable"},
	{HDR "cpu0 fill zone=Normal order=0 pages=0 unmovable_every=0 busy_every=0\n",
	 "line 3:", "pages=1..256"},
	{HDR "cpu0 free_pattern every=4 offset=4\n", "line 3:", "offset must be 0..every-1"},
	{HDR "cpu0 kcompactd node=0 order=4 extra=1\n",
	 "line 3:", "unknown kcompactd argument 'extra=1'"},
	{HDR "cpu0 reset_skip node=1\n", "line 3:", "expected 'cpuN reset_skip node=N'"},
	{"config cpus=2,x\n", "line 1:", "bad cpus list '2,x'"},
	{"config deferred_init_pages=lots\n",
	 "line 1:", "bad number in 'deferred_init_pages=lots'"},
	{"config colour=blue\n", "line 1:", "unknown config field 'colour=blue'"},
	{"config nodes=4294967296\n", "line 1:", "bad number in 'nodes=4294967296'"},
	{HDR "cpu0 alloc a0 order=0 gfp=0\n"
	     "zone 0 DMA32 start=2048 spanned=1024 present=1024 managed=1024\n",
	 "line 4:", "zone lines must come before the ops"},
	{"config nodes=1 cpus=1\nzone 0 Normal start=0\n",
	 "line 2:", "expected 'zone NODE NAME start= spanned= present= managed='"},
	{"config nodes=1 cpus=1\nzone 1 Normal start=0 spanned=1 present=1 managed=1\n",
	 "line 2:", "expected 'zone NODE NAME"},
	{"config nodes=1 cpus=1\nzone 0 Highmem start=0 spanned=1 present=1 managed=1\n",
	 "line 2:", "unknown zone 'Highmem'"},
	{"config nodes=1 cpus=1\nzone 0 Normal start=0 spanned=x present=1 managed=1\n",
	 "line 2:", "expected spanned=NUMBER, got 'spanned=x'"},
	{HDR "cpu0 a b c d e f g h i j k l m n o p\n", "line 3:", "too many words"},
	{HDR "cpuX alloc a0 order=0 gfp=0\n", "line 3:", "expected cpuN, got 'cpuX'"},
	{HDR "cpu0\n", "line 3:", "expected 'cpuN OP ...'"},
	{HDR "cpu0 check\n", "line 3:", "check takes no cpuN"},
	{HDR "alloc a0 order=0 gfp=0\n", "line 3:", "expected cpuN, got 'alloc'"},
	{HDR "cpu0 alloc a0 order=0 order=1 gfp=0\n", "line 3:", "order given twice"},
	{HDR "cpu0 vmstat_read node=0 zone=Highmem how=estimate\n",
	 "line 3:", "unknown zone 'Highmem'"},
	{"config nodes=1 cpus=2 watermark_scale_factor=0\n"
	 "zone 0 Normal start=0 spanned=1024 present=1024 managed=1024\n",
	 "config:", "watermark_scale_factor must be 1..3000, not 0"},
};

START_TEST(test_parse_errors_name_line)
{
	struct mm_prog p;
	char err[200] = "";

	mm_prog_init(&p);
	ck_assert_int_eq(mm_parse_prog(bad[_i].text, &p, err, sizeof(err)), -1);
	ck_assert_msg(!strncmp(err, bad[_i].line, strlen(bad[_i].line)), "err '%s', want '%s'", err,
		      bad[_i].line);
	ck_assert_msg(strstr(err, bad[_i].what), "err '%s', want '%s'", err, bad[_i].what);
	mm_prog_free(&p);
}
END_TEST

/* ------------------------------------------------------------------------
 * Binary round trips of random byte strings
 * ---------------------------------------------------------------------- */

#define NR_RANDOM_PROGS 2000
#define MAX_RANDOM_LEN	600

/* decode -> encode -> decode gives the same program. */
START_TEST(test_binary_round_trip)
{
	struct rng r = {0x6f7073ULL};
	uint8_t data[MAX_RANDOM_LEN];
	struct mm_prog p, q;
	unsigned int nr_bad = 0;
	char first[200] = "";

	mm_prog_init(&p);
	mm_prog_init(&q);
	for (int i = 0; i < NR_RANDOM_PROGS; i++) {
		size_t len = rng_below(&r, MAX_RANDOM_LEN + 1);
		const char *why = NULL;
		uint8_t *enc;
		long n;

		random_bytes(&r, data, len);
		ck_assert_int_eq(mm_decode(data, len, NULL, &p), 0);
		n = encode(&p, &enc);
		if (n < 0)
			why = "encode failed";
		else if (mm_decode(enc, (size_t)n, NULL, &q) != 0)
			why = "decode of encoding failed";
		else
			why = prog_diff(&p, &q);
		if (why && !nr_bad++)
			snprintf(first, sizeof(first), "input %d (len %zu, %s): %s (encode %ld)", i,
				 len, hex(data, len), why, n);
		free(enc);
	}
	ck_assert_msg(nr_bad == 0, "%u of %d programs do not round-trip; first: %s", nr_bad,
		      NR_RANDOM_PROGS, first);
	mm_prog_free(&p);
	mm_prog_free(&q);
}
END_TEST

/*
 * Headers random strings seldom hit (header offsets: 0 nodes, 10..17 zone
 * sizes DMA/DMA32/Normal/Movable as u16, 18..21 reserved pages per type).
 */
static const struct {
	const char *what;
	uint8_t hdr[32];
	size_t len;
} edge[] = {
	/* 2 nodes and no zone sizes: the decoder's default machine. */
	{"no sizes, 2 nodes", {1}, 1},
	/* 2 nodes, Normal 100 pages each. */
	{"Normal on 2 nodes", {[0] = 1, [14] = 100}, 32},
	/*
	 * 2 nodes, Normal 10 pages each, 255 of them reserved: every page is
	 * reserved, so the decoder gives node 0's Normal its 10 pages back
	 * and node 1's stays at 0 managed. That machine is a decoded program
	 * like any other and must encode (mmcore.h: decode(encode(p)) == p).
	 */
	{"all reserved, 2 nodes", {[0] = 1, [14] = 10, [20] = 255}, 32},
	/* The same on one node, DMA first: DMA gets its pages back. */
	{"all reserved, DMA + Normal", {[10] = 4, [14] = 10, [18] = 9, [20] = 255}, 32},
};

START_TEST(test_binary_round_trip_edge_headers)
{
	struct mm_prog p, q;
	uint8_t *enc;
	long n;

	mm_prog_init(&p);
	mm_prog_init(&q);
	ck_assert_int_eq(mm_decode(edge[_i].hdr, edge[_i].len, NULL, &p), 0);
	n = encode(&p, &enc);
	ck_assert_msg(n == 32, "%s: encode returned %ld", edge[_i].what, n);
	ck_assert_int_eq(mm_decode(enc, (size_t)n, NULL, &q), 0);
	ck_assert_msg(!prog_diff(&p, &q), "%s: %s differs", edge[_i].what, prog_diff(&p, &q));
	free(enc);
	mm_prog_free(&p);
	mm_prog_free(&q);
}
END_TEST

/*
 * A program with no binary form: more nodes than the header holds, a
 * machine the header would decode to another (1000 CPUs on a node, past
 * its 256), or an op of no kind. mm_encode() says -2 and the trace stays
 * text; the same program without the fault encodes.
 */
START_TEST(test_encode_no_binary_form)
{
	struct mm_op bad = {.kind = MM_NR_OP_KINDS};
	struct mm_config cfg;
	struct mm_prog p;
	char err[200] = "";

	mm_prog_init(&p);
	ck_assert_msg(mm_parse_prog(HDR "check\n", &p, err, sizeof(err)) == 0, "%s", err);
	cfg = p.cfg;
	ck_assert_int_gt(mm_encode(&p, NULL, 0), 0);
	p.cfg.nr_nodes = 9;
	ck_assert_int_eq(mm_encode(&p, NULL, 0), -2);
	p.cfg = cfg;
	p.cfg.cpus_per_node[0] = 1000;
	ck_assert_int_eq(mm_encode(&p, NULL, 0), -2);
	p.cfg = cfg;
	ck_assert_int_gt(mm_encode(&p, NULL, 0), 0);
	ck_assert_int_eq(mm_prog_push(&p, &bad), 0);
	ck_assert_int_eq(mm_encode(&p, NULL, 0), -2);
	mm_prog_free(&p);
}
END_TEST

/* decode -> print -> parse gives the same program; -> encode -> decode too. */
START_TEST(test_binary_text_round_trip)
{
	struct rng r = {0x74657874ULL};
	uint8_t data[MAX_RANDOM_LEN];
	struct mm_prog p, t, q;
	unsigned int nr_bad = 0;
	char first[300] = "";

	mm_prog_init(&p);
	mm_prog_init(&t);
	mm_prog_init(&q);
	for (int i = 0; i < NR_RANDOM_PROGS; i++) {
		size_t len = rng_below(&r, MAX_RANDOM_LEN + 1);
		const char *why = NULL;
		char err[200] = "";
		uint8_t *enc = NULL;
		char *text;
		long n = 0;

		random_bytes(&r, data, len);
		ck_assert_int_eq(mm_decode(data, len, NULL, &p), 0);
		text = print_prog(&p);
		if (mm_parse_prog(text, &t, err, sizeof(err)) != 0)
			why = err;
		else if ((why = prog_diff(&p, &t)))
			;
		else if ((n = encode(&t, &enc)) < 0)
			why = "encode failed";
		else if (mm_decode(enc, (size_t)n, NULL, &q) != 0)
			why = "decode of encoding failed";
		else
			why = prog_diff(&p, &q);
		if (why && !nr_bad++)
			snprintf(first, sizeof(first), "input %d (len %zu, %s): %s (encode %ld)", i,
				 len, hex(data, len), why, n);
		free(enc);
		free(text);
	}
	ck_assert_msg(nr_bad == 0, "%u of %d programs do not round-trip; first: %s", nr_bad,
		      NR_RANDOM_PROGS, first);
	mm_prog_free(&p);
	mm_prog_free(&t);
	mm_prog_free(&q);
}
END_TEST

/* The compaction ops' text encodes and decodes back to the same program. */
START_TEST(test_compaction_ops_binary_round_trip)
{
	struct mm_prog p, q;
	char err[200] = "";
	uint8_t *enc;
	long n;

	mm_prog_init(&p);
	mm_prog_init(&q);
	ck_assert_msg(mm_parse_prog(COMPACTION_PROG, &p, err, sizeof(err)) == 0, "parse: %s", err);
	ck_assert_uint_eq(p.nr_ops, 10);
	n = encode(&p, &enc);
	ck_assert_int_gt(n, 0);
	ck_assert_int_eq(mm_decode(enc, (size_t)n, NULL, &q), 0);
	ck_assert_msg(prog_diff(&p, &q) == NULL, "differs in %s", prog_diff(&p, &q));
	free(enc);
	mm_prog_free(&p);
	mm_prog_free(&q);
}
END_TEST

/*
 * One grammar: every argument as key=value, in any order, parses to the
 * program the canonical line (keys dropped where the value says what it
 * is) means.
 */
START_TEST(test_keys_any_order)
{
	static const char *const pairs[][2] = {
		{"cpu1 kswapd_wake order=3 zone=Normal node=0",
		 "cpu1 kswapd_wake node=0 zone=Normal order=3"},
		{"cpu0 pcpu_add batch=4 amount=-7 counter=c2",
		 "cpu0 pcpu_add c2 amount=-7 batch=4"},
		{"cpu0 fork fail=alloc2 parent=m0 mm=m3", "cpu0 fork m3 parent=m0 fail=alloc2"},
		{"cpu1 brk admin=1 pages=5 mm=m0", "cpu1 brk m0 pages=5 admin"},
		{"cpu0 deferred_init pageblocks=2 node=0",
		 "cpu0 deferred_init node=0 pageblocks=2"},
		{"cpu0 alloc node=0 gfp=MOVABLE order=2 handle=a1",
		 "cpu0 alloc a1 order=2 gfp=MOVABLE node=0"},
		{"cpu1 free handle=a0", "cpu1 free a0"},
	};

	for (size_t i = 0; i < ARRAY_SIZE(pairs); i++) {
		char a[512], b[512], err[200] = "";
		struct mm_prog p, q;
		snprintf(a, sizeof(a), "%scpu0 alloc a0 order=0\n%s\n", HDR, pairs[i][0]);
		snprintf(b, sizeof(b), "%scpu0 alloc a0 order=0\n%s\n", HDR, pairs[i][1]);
		mm_prog_init(&p);
		mm_prog_init(&q);
		ck_assert_msg(!mm_parse_prog(a, &p, err, sizeof(err)), "%s: %s", pairs[i][0], err);
		ck_assert_msg(!mm_parse_prog(b, &q, err, sizeof(err)), "%s: %s", pairs[i][1], err);
		ck_assert_msg(!prog_diff(&p, &q), "'%s' is not '%s'", pairs[i][0], pairs[i][1]);
		mm_prog_free(&p);
		mm_prog_free(&q);
	}
}
END_TEST

/*
 * Every row of the op table is whole, and its own usage line (with the
 * smallest values) parses back to its kind: a row added without its
 * grammar or entry point fails here.
 */
START_TEST(test_every_row_parses)
{
	for (unsigned int k = 0; k < MM_NR_OP_KINDS; k++) {
		const struct mm_op_desc *d = &mm_op_descs[k];
		struct mm_op op;
		char line[300], why[200] = "", *tok[16], *save = NULL;
		int ntok = 0;

		ck_assert_msg(d->name && d->decode && d->encode && d->apply, "row %u", k);
		for (unsigned int j = 0; j < k; j++)
			ck_assert_str_ne(mm_op_descs[j].name, d->name);
		memset(&op, 0, sizeof(op));
		op.kind = (uint8_t)k;
		for (unsigned int f = 0; f < d->nr_fields; f++) {
			const struct mm_op_field *fd = &d->fields[f];
			uint32_t v = (uint32_t)fd->min; /* little-endian: the low bytes */
			if (fd->type == MM_FIELD_NUM)
				memcpy((uint8_t *)&op + fd->off, &v, fd->size);
		}
		if (k == MM_OP_FREE_PATTERN)
			op.pattern.every = 1;
		if (k >= MM_OP_OFFLINE_PAGES && k <= MM_OP_FREE_CONTIG) {
			op.range.pages = 512; /* a pageblock of the Normal zone */
			op.range.zone = ZONE_NORMAL;
		}
		mm_format_op(&op, 0, line, sizeof(line));
		for (char *t = strtok_r(line, " ", &save); t; t = strtok_r(NULL, " ", &save))
			tok[ntok++] = t;
		struct mm_config cfg;
		mm_config_init(&cfg);
		cfg.zones[0][ZONE_NORMAL] = (struct mm_zone_config){0, 1024, 1024, 1024};
		ck_assert_msg(_mm_parse_op_words(tok, ntok, &cfg, 0, &op, why, sizeof(why)) == 0,
			      "%s: %s", d->name, why);
		ck_assert_msg(op.kind == k, "%s parsed as %s", d->name, mm_op_name(op.kind));
	}
}
END_TEST

/* vm.stat_refresh owns sub byte 11, which decoded to nothing before: the op, then the rest as ever.
 */
START_TEST(test_stat_refresh_slot)
{
	uint8_t in[32 + 6] = {[1] = 3 /* 4 CPUs */};
	struct mm_prog p;
	uint8_t *enc;
	long n;

	memcpy(in + 32, (uint8_t[]){63, 11, 2, 63, 8, 1}, 6);
	mm_prog_init(&p);
	ck_assert_int_eq(mm_decode(in, sizeof(in), NULL, &p), 0);
	ck_assert_uint_eq(p.nr_ops, 2);
	ck_assert_uint_eq(p.ops[0].kind, MM_OP_STAT_REFRESH);
	ck_assert_uint_eq(p.ops[0].cpu, 2);
	ck_assert_uint_eq(p.ops[1].kind, MM_OP_VMSTAT_FOLD);
	n = encode(&p, &enc);
	ck_assert_int_eq(n, (long)sizeof(in));
	ck_assert_mem_eq(enc + 32, in + 32, 6);
	free(enc);
	mm_prog_free(&p);
}
END_TEST

/* ------------------------------------------------------------------------
 * Random byte strings run clean on the correct model
 * ---------------------------------------------------------------------- */

struct exec_stats {
	unsigned int violated, refused;
	char first[300];
};

static void run_random(uint64_t seed, int nr, unsigned int check_every, struct exec_stats *es)
{
	struct rng r = {seed};
	uint8_t data[MAX_RANDOM_LEN];
	struct mm_exec *ex = mm_exec_create();
	struct mm_exec_opts o;
	struct vrec vr;
	struct mm_prog p;

	ck_assert_ptr_nonnull(ex);
	mm_prog_init(&p);
	mm_exec_opts_default(&o);
	ck_assert_int_eq(o.check_every, 256);
	o.check_every = check_every;
	o.on_violation = vrec_handler;
	o.arg = &vr;
	memset(es, 0, sizeof(*es));
	for (int i = 0; i < nr; i++) {
		size_t len = rng_below(&r, MAX_RANDOM_LEN + 1);
		long failed_op, ret;

		random_bytes(&r, data, len);
		ck_assert_int_eq(mm_decode(data, len, NULL, &p), 0);
		vrec_init(&vr);
		ret = mm_exec_run(ex, &p, &o, &failed_op);
		if (ret < 0 && !es->refused++ && !es->violated)
			snprintf(es->first, sizeof(es->first), "input %d (len %zu, %s): refused", i,
				 len, hex(data, len));
		if (ret > 0 && !es->violated++ && !es->refused)
			snprintf(es->first, sizeof(es->first), "input %d (len %zu, %s): op %ld: %s",
				 i, len, hex(data, len), failed_op, vr.first);
		if (ret == 0)
			ck_assert_int_eq(failed_op, -1);
	}
	mm_prog_free(&p);
	mm_exec_destroy(ex);
}

static void assert_random_clean(uint64_t seed, int nr, unsigned int check_every)
{
	struct exec_stats es;

	run_random(seed, nr, check_every, &es);
	ck_assert_msg(es.violated == 0 && es.refused == 0,
		      "%u inputs violated, %u refused; first: %s", es.violated, es.refused,
		      es.first);
}

START_TEST(test_random_inputs_run_clean)
{
	assert_random_clean(0x636c65616eULL, 3000, 256);
}
END_TEST

START_TEST(test_random_inputs_run_clean_check_every_op)
{
	assert_random_clean(0x65766572ULL, 300, 1);
}
END_TEST

/*
 * The clean runs above mean something only if the executor reports what
 * it finds: the same program is clean on the correct model and caught
 * under the buddy-no-merge-order3 variant. a0 (order 0) splits the
 * order-10 block, a1 takes 8@3; both frees go to cpu0's pcp lists, and the
 * drain hands them back, leaving 0@3 and 8@3 free, which the variant does
 * not merge: the check op (index 5) finds INV-BUDDY-MERGED.
 */
START_TEST(test_exec_reports_variant)
{
	const char *text = HDR "cpu0 alloc a0 order=0 gfp=MOVABLE|DIRECT_RECLAIM|KSWAPD_RECLAIM\n"
			       "cpu0 alloc a1 order=3 gfp=MOVABLE|DIRECT_RECLAIM|KSWAPD_RECLAIM\n"
			       "cpu0 free a1\n"
			       "cpu0 free a0\n"
			       "cpu0 drain\n"
			       "check\n";
	struct vrec vr;
	struct mm_exec *ex = mm_exec_create();
	struct mm_exec_opts o;
	struct mm_prog p;
	char err[200] = "";
	long failed_op;

	mm_prog_init(&p);
	ck_assert_msg(mm_parse_prog(text, &p, err, sizeof(err)) == 0, "%s", err);
	mm_exec_opts_default(&o);
	o.on_violation = vrec_handler;
	o.arg = &vr;
	vrec_init(&vr);
	ck_assert_int_eq(mm_exec_run(ex, &p, &o, &failed_op), 0);
	ck_assert_int_eq(failed_op, -1);
	o.variant = mm_variant_lookup("buddy-no-merge-order3");
	ck_assert_int_ge(o.variant, 0);
	ck_assert_int_gt(mm_exec_run(ex, &p, &o, &failed_op), 0);
	ck_assert_int_eq(failed_op, 5);
	ck_assert_str_eq(vr.id[0], "INV-BUDDY-MERGED");
	mm_prog_free(&p);
	mm_exec_destroy(ex);
}
END_TEST

static Suite *ops_suite(void)
{
	Suite *s = suite_create("ops");
	TCase *tc = tcase_create("text");

	tcase_add_loop_test(tc, test_text_round_trip, 0, (int)ARRAY_SIZE(canonical));
	tcase_add_test(tc, test_text_aliases_canonicalise);
	tcase_add_loop_test(tc, test_parse_errors_name_line, 0, (int)ARRAY_SIZE(bad));
	tcase_add_test(tc, test_keys_any_order);
	tcase_add_test(tc, test_every_row_parses);
	suite_add_tcase(s, tc);

	tc = tcase_create("binary");
	tcase_add_test(tc, test_binary_round_trip);
	tcase_add_loop_test(tc, test_binary_round_trip_edge_headers, 0, (int)ARRAY_SIZE(edge));
	tcase_add_test(tc, test_binary_text_round_trip);
	tcase_add_test(tc, test_encode_no_binary_form);
	tcase_add_test(tc, test_compaction_ops_binary_round_trip);
	tcase_add_test(tc, test_stat_refresh_slot);
	suite_add_tcase(s, tc);

	tc = tcase_create("exec");
	tcase_add_test(tc, test_random_inputs_run_clean);
	tcase_add_test(tc, test_random_inputs_run_clean_check_every_op);
	tcase_add_test(tc, test_exec_reports_variant);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(ops_suite());
}
