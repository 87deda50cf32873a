/*
 * match_map.c - the matcher's hash map (match_map.h: its look-ups, and
 * deletion where nothing follows): growth, and backward-shift deletion
 * (no tombstones, so lookups stay short however long the trace).
 */
#include <stdlib.h>
#include <string.h>

#include "match_priv.h"

enum mt_status mt_match_map_init(struct map *mp, uint32_t cap, size_t size)
{
	if (size < sizeof(struct map_slot) || (size & (size - 1)))
		return MT_ERR_ARG;
	mp->slot = calloc(cap, size);
	if (!mp->slot)
		return MT_ERR_NOMEM;
	mp->mask = cap - 1;
	mp->half = cap / 2;
	mp->used = 0;
	mp->shift = (uint32_t)__builtin_ctzll(size);
	return MT_OK;
}

void mt_match_map_fini(struct map *mp)
{
	free(mp->slot);
	mp->slot = NULL;
}

enum mt_status mt_match_map_grow(struct map *mp)
{
	struct map old = *mp;

	if (mt_match_map_init(mp, (old.mask + 1) * 2, (size_t)1 << old.shift))
		return (*mp = old), MT_ERR_NOMEM;
	for (uint32_t i = 0; i <= old.mask; i++) {
		const struct map_slot *from = mt_match_map_slot(&old, i);
		int added;

		if (from->v)	/* no growth: the new map is twice as large */
			memcpy(mt_match_map_find_or_add(mp, &from->k, &added), from,
			       (size_t)1 << mp->shift);
	}
	mt_match_map_fini(&old);
	return MT_OK;
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

void mt_match_map_del_run(struct map *mp, struct map_slot *s)
{
	uint32_t hole = mt_match_map_index(mp, s);

	/* Move back every later entry of the run whose home is not between
	 * the hole and itself, so that no lookup ever stops early. */
	for (uint32_t i = (hole + 1) & mp->mask; mt_match_map_slot(mp, i)->v;
	     i = (i + 1) & mp->mask) {
		uint32_t home = mt_match_map_hash(&mt_match_map_slot(mp, i)->k) & mp->mask;

		if (((i - home) & mp->mask) >= ((i - hole) & mp->mask)) {
			memcpy(mt_match_map_slot(mp, hole), mt_match_map_slot(mp, i),
			       (size_t)1 << mp->shift);
			hole = i;
		}
	}
	mt_match_map_slot(mp, hole)->v = 0;
	mp->used--;
}
