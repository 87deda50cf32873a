/*
 * match_map.h - the matcher's hash map: 20-byte keys to uint32 values,
 * open addressing with linear probing (match_map.c). A map's slots may
 * carry more than the value: the key map keeps each key's queues in its
 * slot (struct key_slot), with no pool entry to reach through it. Look-ups
 * are static inline: the matcher asks two or three per message, from every
 * file, and out of line each cost a call; so is deleting an entry with no
 * run after it, the usual case. Growth, and deletion's backward shift,
 * stay in match_map.c.
 */
#ifndef MATCH_MAP_H
#define MATCH_MAP_H

#include <stddef.h>
#include <stdint.h>

#include "mt_status.h"

struct map_key {
	uint64_t a, b;
	uint32_t c;
};

/* The head of every slot, followed by what the map's owner keeps there. */
struct map_slot {
	struct map_key k;
	uint32_t v;		/* 0: empty slot */
};

struct map {
	struct map_slot *slot;	/* mask + 1 slots of 2^shift bytes each */
	uint32_t mask;		/* capacity - 1; capacity a power of two */
	uint32_t used;
	uint32_t shift;		/* slot size a power of two: the slot of an
				 * index, and the index of a slot, are shifts,
				 * not a multiplication and a division */
	uint32_t half;		/* (mask + 1) / 2: the load an add grows at,
				 * one comparison for every add */
};

/* Slots of size bytes (a power of two, at least a struct map_slot, which
 * they start with), cleared; MT_ERR_ARG for another size. */
enum mt_status mt_match_map_init(struct map *mp, uint32_t cap, size_t size);
void mt_match_map_fini(struct map *mp);
/* Sets k -> v (v != 0), adding or replacing. */
enum mt_status mt_match_map_put(struct map *mp, const struct map_key *k, uint32_t v);
/* mt_match_map_del when the slot after s is taken: the run after it
 * moves back. */
void mt_match_map_del_run(struct map *mp, struct map_slot *s);
/* Doubles the capacity: MT_OK or MT_ERR_NOMEM (then mp is unchanged). */
enum mt_status mt_match_map_grow(struct map *mp);

static inline struct map_slot *mt_match_map_slot(const struct map *mp, uint32_t i)
{
	return (struct map_slot *)((char *)mp->slot + ((size_t)i << mp->shift));
}

static inline uint32_t mt_match_map_index(const struct map *mp,
					  const struct map_slot *s)
{
	return (uint32_t)(((const char *)s - (const char *)mp->slot) >> mp->shift);
}

/* Removes the entry of slot s; slots after it may move. Inline: the key
 * map loses a key with most messages, and the slot after it is most often
 * empty (the load stays under 1/2), with nothing to move back. */
static inline void mt_match_map_del(struct map *mp, struct map_slot *s)
{
	if (mt_match_map_slot(mp, (mt_match_map_index(mp, s) + 1) & mp->mask)->v) {
		mt_match_map_del_run(mp, s);
		return;
	}
	s->v = 0;
	mp->used--;
}

static inline uint32_t mt_match_map_hash(const struct map_key *k)
{
	uint64_t h = k->a * 0x9E3779B97F4A7C15ull;
	h ^= (k->b + k->c) * 0xC2B2AE3D27D4EB4Full;
	h ^= h >> 29;
	return (uint32_t)(h * 0x94D049BB133111EBull >> 32);
}

static inline int mt_match_map_same(const struct map_key *x, const struct map_key *y)
{
	return x->a == y->a && x->b == y->b && x->c == y->c;
}

/* Returns the slot of k, or NULL when absent. */
static inline struct map_slot *mt_match_map_get(const struct map *mp,
						const struct map_key *k)
{
	for (uint32_t i = mt_match_map_hash(k) & mp->mask;; i = (i + 1) & mp->mask) {
		struct map_slot *s = mt_match_map_slot(mp, i);

		if (!s->v)
			return NULL;
		if (mt_match_map_same(&s->k, k))
			return s;
	}
}

/* The slot of k, added (with v = 0: set it at once, and what follows it
 * in the slot) if absent; NULL when out of memory. The slot stays valid
 * until the next add or delete. */
static inline struct map_slot *mt_match_map_find_or_add(struct map *mp,
							const struct map_key *k,
							int *added)
{
	/* Keep the load under 1/2: probes stay short for any key set. */
	if (mp->used >= mp->half && mt_match_map_grow(mp))
		return NULL;
	for (uint32_t i = mt_match_map_hash(k) & mp->mask;; i = (i + 1) & mp->mask) {
		struct map_slot *s = mt_match_map_slot(mp, i);

		if (!s->v) {
			s->k = *k;
			mp->used++;
			*added = 1;
			return s;
		}
		if (mt_match_map_same(&s->k, k)) {
			*added = 0;
			return s;
		}
	}
}

#endif /* MATCH_MAP_H */
