/*
 * sinks.c - the registry: every sink msgtrace has, by name.
 */
#include <string.h>

#include "mt_sink.h"

static const struct mt_sink_ops *const all[] = {
	&mt_sink_text, &mt_sink_json, &mt_sink_html, &mt_sink_csv,
	&mt_sink_tags, &mt_sink_tags_json,
	&mt_sink_otf2, &mt_sink_chrome, &mt_sink_csvset, &mt_sink_watch,
	&mt_sink_brief,
};

const struct mt_sink_ops *mt_sink_find(const char *key)
{
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (!strcmp(all[i]->key, key))
			return all[i];
	return NULL;
}
