/*
 * refmap.c - OTF2 references (sparse: EZTrace numbers each process's
 * definitions from rank * 2^29) to dense indices.
 */
#include <stdlib.h>

#include "otf2in_int.h"

static uint32_t slot_of(uint64_t key, uint32_t cap)
{
	return (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 32) & (cap - 1);
}

static int grow(struct oi_map *m)
{
	uint32_t cap = m->cap ? m->cap * 2 : 64;
	uint64_t *key = malloc(cap * sizeof(*key));
	uint32_t *val = malloc(cap * sizeof(*val));

	if (!key || !val || cap < m->cap) {
		free(key);
		free(val);
		return -1;
	}
	for (uint32_t i = 0; i < cap; i++)
		val[i] = OI_NONE;
	for (uint32_t i = 0; i < m->cap; i++) {
		if (m->val[i] == OI_NONE)
			continue;
		uint32_t s = slot_of(m->key[i], cap);

		while (val[s] != OI_NONE)
			s = (s + 1) & (cap - 1);
		key[s] = m->key[i];
		val[s] = m->val[i];
	}
	free(m->key);
	free(m->val);
	m->key = key;
	m->val = val;
	m->cap = cap;
	return 0;
}

/* A key defined again keeps its first value (EZTrace repeats some). */
int mt_otf2in_map_put(struct oi_map *m, uint64_t key, uint32_t val)
{
	if ((m->n + 1) * 2 > m->cap && grow(m))
		return -1;
	uint32_t s = slot_of(key, m->cap);

	while (m->val[s] != OI_NONE) {
		if (m->key[s] == key)
			return 0;
		s = (s + 1) & (m->cap - 1);
	}
	m->key[s] = key;
	m->val[s] = val;
	m->n++;
	return 0;
}

uint32_t mt_otf2in_map_get(const struct oi_map *m, uint64_t key)
{
	if (!m->cap)
		return OI_NONE;
	for (uint32_t s = slot_of(key, m->cap);; s = (s + 1) & (m->cap - 1))
		if (m->val[s] == OI_NONE || m->key[s] == key)
			return m->val[s];
}

void mt_otf2in_map_free(struct oi_map *m)
{
	free(m->key);
	free(m->val);
	*m = (struct oi_map){ 0 };
}
