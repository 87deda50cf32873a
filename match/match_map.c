/*
 * match_map.c - the matcher's hash map: 20-byte keys to uint32 values,
 * open addressing with linear probing and backward-shift deletion (no
 * tombstones, so lookups stay short however long the trace).
 */
#include <stdlib.h>
#include <string.h>

#include "match_priv.h"

static uint32_t hash(const struct map_key *k)
{
	uint64_t h = k->a * 0x9E3779B97F4A7C15ull;
	h ^= (k->b + k->c) * 0xC2B2AE3D27D4EB4Full;
	h ^= h >> 29;
	return (uint32_t)(h * 0x94D049BB133111EBull >> 32);
}

static int same(const struct map_key *x, const struct map_key *y)
{
	return x->a == y->a && x->b == y->b && x->c == y->c;
}

enum mt_status mt_match_map_init(struct map *mp, uint32_t cap)
{
	mp->slot = calloc(cap, sizeof(*mp->slot));
	if (!mp->slot)
		return MT_ERR_NOMEM;
	mp->mask = cap - 1;
	mp->used = 0;
	return MT_OK;
}

void mt_match_map_fini(struct map *mp)
{
	free(mp->slot);
	mp->slot = NULL;
}

struct map_slot *mt_match_map_get(const struct map *mp, const struct map_key *k)
{
	for (uint32_t i = hash(k) & mp->mask;; i = (i + 1) & mp->mask) {
		struct map_slot *s = &mp->slot[i];

		if (!s->v)
			return NULL;
		if (same(&s->k, k))
			return s;
	}
}

static int grow(struct map *mp)
{
	struct map old = *mp;

	if (mt_match_map_init(mp, (old.mask + 1) * 2))
		return (*mp = old), MT_ERR_NOMEM;
	for (uint32_t i = 0; i <= old.mask; i++)
		if (old.slot[i].v)
			mt_match_map_put(mp, &old.slot[i].k, old.slot[i].v);
	mt_match_map_fini(&old);
	return MT_OK;
}

struct map_slot *mt_match_map_find_or_add(struct map *mp, const struct map_key *k,
				  int *added)
{
	/* Keep the load under 1/2: probes stay short for any key set. */
	if ((mp->used + 1) * 2 > mp->mask + 1 && grow(mp))
		return NULL;
	for (uint32_t i = hash(k) & mp->mask;; i = (i + 1) & mp->mask) {
		struct map_slot *s = &mp->slot[i];

		if (!s->v) {
			s->k = *k;
			mp->used++;
			*added = 1;
			return s;
		}
		if (same(&s->k, k)) {
			*added = 0;
			return s;
		}
	}
}

enum mt_status mt_match_map_put(struct map *mp, const struct map_key *k, uint32_t v)
{
	int added;
	struct map_slot *s = mt_match_map_find_or_add(mp, k, &added);

	if (!s)
		return MT_ERR_NOMEM;
	s->v = v;
	return MT_OK;
}

void mt_match_map_del(struct map *mp, struct map_slot *s)
{
	uint32_t hole = (uint32_t)(s - mp->slot);

	/* Move back every later entry of the run whose home is not between
	 * the hole and itself, so that no lookup ever stops early. */
	for (uint32_t i = (hole + 1) & mp->mask; mp->slot[i].v;
	     i = (i + 1) & mp->mask) {
		uint32_t home = hash(&mp->slot[i].k) & mp->mask;

		if (((i - home) & mp->mask) >= ((i - hole) & mp->mask)) {
			mp->slot[hole] = mp->slot[i];
			hole = i;
		}
	}
	mp->slot[hole].v = 0;
	mp->used--;
}
