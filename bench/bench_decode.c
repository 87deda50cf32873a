/*
 * bench_decode - decodes per second of mt_tag_decode, against a baseline
 * measured in the same run: a plain mask-and-shift loop over the same tags
 * that extracts the same three fields for one fixed layout (what a
 * hand-written, single-layout decoder would cost).
 * Usage: bench_decode [MILLION_TAGS [ROUNDS]]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "mt_decode.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Keeps results alive without a store per element. */
static volatile uint64_t sink;

/* Scalar, like one decode per trace record: the compiler would otherwise
 * turn this loop into SIMD code that no per-record decoder can be compared
 * with (gcc: a function attribute; clang: a loop pragma). */
#ifdef __clang__
#define SCALAR_FN
#define SCALAR_LOOP _Pragma("clang loop vectorize(disable) interleave(disable)")
#else
#define SCALAR_FN __attribute__((optimize("no-tree-vectorize")))
#define SCALAR_LOOP
#endif
SCALAR_FN
static double baseline(const uint64_t *tags, const uint64_t *data, size_t n)
{
	uint64_t acc = 0;
	double t0 = now();
	SCALAR_LOOP
	for (size_t i = 0; i < n; i++) {
		uint64_t t = tags[i];
		uint32_t cid = (uint32_t)(t >> 34);
		int32_t tag = (int32_t)(uint32_t)t;
		int32_t src = (int32_t)data[i];
		acc += cid ^ (uint32_t)tag ^ (uint32_t)src;
	}
	double t1 = now();
	sink = acc;
	return t1 - t0;
}

static double decode(const struct mt_tag_layout *l, const uint64_t *tags,
		     const uint64_t *data, size_t n)
{
	uint64_t acc = 0;
	struct mt_tag_fields f;
	double t0 = now();
	for (size_t i = 0; i < n; i++) {
		mt_tag_decode(l, tags[i], data[i], MT_TAG_IN_DATA, &f);
		acc += f.cid ^ (uint32_t)f.tag ^ (uint32_t)f.source ^ f.flags;
	}
	double t1 = now();
	sink = acc;
	return t1 - t0;
}

int main(int argc, char **argv)
{
	size_t n = (size_t)(argc > 1 ? atof(argv[1]) : 16) * 1000000;
	int rounds = argc > 2 ? atoi(argv[2]) : 5;
	uint64_t *tags = malloc(n * sizeof(*tags)), *data = malloc(n * sizeof(*data));
	uint64_t x = 88172645463325252ull;
	static const enum mt_tag_layout_id ids[] = {
		MT_TAG_LAYOUT_OMPI_FULL, MT_TAG_LAYOUT_OMPI_TAG1,
		MT_TAG_LAYOUT_OMPI_TAG2, MT_TAG_LAYOUT_MPICH41_DATA };

	if (!tags || !data || !n || rounds < 1) {
		fprintf(stderr, "usage: bench_decode [MILLION_TAGS [ROUNDS]]\n");
		return 2;
	}
	/* Realistic mix: small cids and ranks, some negative and Ssend tags. */
	for (size_t i = 0; i < n; i++) {
		x ^= x << 13; x ^= x >> 7; x ^= x << 17;
		uint64_t tag = (x & 7) == 0 ? (uint32_t)-(int32_t)(x >> 8 & 63) : x >> 40 & 0xffff;
		tags[i] = ((x >> 3) & 63) << 34 | ((x >> 9 & 1) << 32) | tag;
		data[i] = x >> 20 & 1023;
	}
	double best_base = 1e30;
	for (int r = 0; r < rounds; r++) {
		double t = baseline(tags, data, n);
		best_base = t < best_base ? t : best_base;
	}
	printf("%zu tags, best of %d rounds\n", n, rounds);
	printf("%-22s %8.1f M decodes/s\n", "baseline mask+shift", n / best_base / 1e6);
	for (size_t k = 0; k < sizeof(ids) / sizeof(ids[0]); k++) {
		struct mt_tag_layout l;
		double best = 1e30;
		mt_tag_layout_get(ids[k], 0xaaaaaaaaaaaaaaaaull, &l);
		for (int r = 0; r < rounds; r++) {
			double t = decode(&l, tags, data, n);
			best = t < best ? t : best;
		}
		printf("mt_tag_decode %-8s %8.1f M decodes/s  (%.2fx baseline time)\n",
		       l.name + (l.name[0] == 'o' ? 4 : 0), n / best / 1e6, best / best_base);
	}
	free(tags);
	free(data);
	return 0;
}
