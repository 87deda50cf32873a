/* params.h - Criterion parameters shared by the decode tests. */
#ifndef MT_TEST_PARAMS_H
#define MT_TEST_PARAMS_H

#include <criterion/parameterized.h>

#include "mt_decode.h"

/* Every layout but raw, for ParameterizedTest(enum mt_tag_layout_id *, ...). */
static inline struct criterion_test_params all_mpi_layouts(void)
{
	static enum mt_tag_layout_id ids[MT_TAG_LAYOUT_COUNT - 1];
	for (int i = 1; i < MT_TAG_LAYOUT_COUNT; i++)
		ids[i - 1] = (enum mt_tag_layout_id)i;
	return cr_make_param_array(enum mt_tag_layout_id, ids, MT_TAG_LAYOUT_COUNT - 1);
}

#endif /* MT_TEST_PARAMS_H */
