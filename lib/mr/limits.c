/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * limits.c — defaults, validation and per-request checks of the device
 * limits, all expanded from SR_DEV_LIMIT_LIST.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "mr/limits.h"

const struct sr_limit_info sr_limit_info[SR_LIMIT_ID_COUNT] = {
#define SR_X(type, fld, ndk, dflt, lo, hi, klass)                            \
	[SR_LIMIT_ID_##fld] = {                                              \
		.field = #fld,                                               \
		.ndk_name = ndk,                                             \
		.offset = offsetof(struct sr_dev_limits, fld),               \
		.size = sizeof(type),                                        \
		.cls = klass,                                                \
		.def = dflt,                                                 \
		.min = lo,                                                   \
		.max = hi,                                                   \
	},
	SR_DEV_LIMIT_LIST(SR_X)
#undef SR_X
};

static const int sr_limit_class_errno[] = {
	[SR_LIMIT_INFO] = -EINVAL,
	[SR_LIMIT_PARAM] = -EINVAL,
	[SR_LIMIT_IMPL] = -E2BIG,
	[SR_LIMIT_RES] = -ENOMEM,
};

struct sr_dev_limits sr_dev_limits_default(void)
{
	return (struct sr_dev_limits){
#define SR_X(type, fld, ndk, dflt, lo, hi, klass) .fld = dflt,
		SR_DEV_LIMIT_LIST(SR_X)
#undef SR_X
	};
}

uint64_t sr_dev_limit_get(const struct sr_dev_limits *l, enum sr_limit_id id)
{
	const struct sr_limit_info *li = &sr_limit_info[id];
	const unsigned char *p = (const unsigned char *)l + li->offset;

	if (li->size == sizeof(uint64_t)) {
		uint64_t v;

		memcpy(&v, p, sizeof(v));
		return v;
	}
	uint32_t v32;

	memcpy(&v32, p, sizeof(v32));
	return v32;
}

int sr_dev_limits_check(const struct sr_dev_limits *l, enum sr_limit_id *bad_field)
{
	if (l == NULL)
		return -EINVAL;
	for (unsigned id = 0; id < SR_LIMIT_ID_COUNT; id++) {
		uint64_t v = sr_dev_limit_get(l, (enum sr_limit_id)id);

		if (v < sr_limit_info[id].min || v > sr_limit_info[id].max) {
			if (bad_field != NULL)
				*bad_field = (enum sr_limit_id)id;
			return -EINVAL;
		}
	}
	return 0;
}

int sr_dev_limit_check(const struct sr_dev_limits *l, enum sr_limit_id id, uint64_t value)
{
	if ((unsigned)id >= SR_LIMIT_ID_COUNT || sr_limit_info[id].cls == SR_LIMIT_INFO)
		return -EINVAL;
	if (value <= sr_dev_limit_get(l, id))
		return 0;
	return sr_limit_class_errno[sr_limit_info[id].cls];
}
