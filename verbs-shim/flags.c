/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * flags.c — ibverbs access flags <-> lib/mr SR_ACCESS_*, through one table.
 *
 * Optional flags (IBV_ACCESS_OPTIONAL_RANGE, e.g. RELAXED_ORDERING) are
 * accepted and dropped, as rdma-core does for a device without them.
 * HUGETLB is advice only.  ON_DEMAND is lib/mr's SR_ACCESS_ON_DEMAND (a
 * registration option: a QP's or a window's rights drop or refuse it).  The FLUSH rights of rdma-core 45+ (bits 8 and 9,
 * not in the 44 headers) are accepted: lib/mr has no separate FLUSH right
 * and the responder checks FLUSH against remote read / write.
 */
#include <errno.h>

#include "shim.h"

#define SR_IBV_ACCESS_FLUSH_GLOBAL     (1u << 8)
#define SR_IBV_ACCESS_FLUSH_PERSISTENT (1u << 9)

/* X(ibverbs bit, SR_ACCESS_* or 0 = accepted, nothing to translate) */
#define SR_IBV_ACCESS_LIST(X)                                      \
	X(IBV_ACCESS_LOCAL_WRITE, SR_ACCESS_LOCAL_WRITE)           \
	X(IBV_ACCESS_REMOTE_WRITE, SR_ACCESS_REMOTE_WRITE)         \
	X(IBV_ACCESS_REMOTE_READ, SR_ACCESS_REMOTE_READ)           \
	X(IBV_ACCESS_REMOTE_ATOMIC, SR_ACCESS_REMOTE_ATOMIC)       \
	X(IBV_ACCESS_MW_BIND, SR_ACCESS_MW_BIND)                   \
	X(IBV_ACCESS_ZERO_BASED, SR_ACCESS_ZERO_BASED)             \
	X(IBV_ACCESS_ON_DEMAND, SR_ACCESS_ON_DEMAND)               \
	X(IBV_ACCESS_HUGETLB, 0)                                   \
	X(SR_IBV_ACCESS_FLUSH_GLOBAL, 0)                           \
	X(SR_IBV_ACCESS_FLUSH_PERSISTENT, 0)

static const struct {
	unsigned int ibv;
	uint32_t sr;
} sr_ibv_access_table[] = {
#define SR_X(i, s) { .ibv = (unsigned int)(i), .sr = (s) },
	SR_IBV_ACCESS_LIST(SR_X)
#undef SR_X
};

#define SR_IBV_ACCESS_N (sizeof(sr_ibv_access_table) / sizeof(sr_ibv_access_table[0]))

int sr_ibv_access_to_sr(unsigned int ibv, uint32_t *out)
{
	uint32_t sr = 0;

	ibv &= ~(unsigned int)IBV_ACCESS_OPTIONAL_RANGE;
	for (unsigned int i = 0; i < SR_IBV_ACCESS_N; i++) {
		if (ibv & sr_ibv_access_table[i].ibv) {
			sr |= sr_ibv_access_table[i].sr;
			ibv &= ~sr_ibv_access_table[i].ibv;
		}
	}
	if (ibv)
		return -EINVAL;   /* anything unknown */
	*out = sr;
	return 0;
}

int sr_ibv_mw_access_to_sr(unsigned int ibv, uint32_t *out)
{
	/*
	 * A window's rights are remote rights: a local-write bit adds
	 * nothing and mlx5 and rxe take it (rdma-core's tests pass it), so
	 * it is dropped, where the engine (and NDK's Bind) refuses it.
	 */
	return sr_ibv_access_to_sr(ibv & ~(unsigned int)IBV_ACCESS_LOCAL_WRITE,
				   out);
}

unsigned int sr_ibv_access_from_sr(uint32_t sr)
{
	unsigned int ibv = 0;

	for (unsigned int i = 0; i < SR_IBV_ACCESS_N; i++)
		if (sr_ibv_access_table[i].sr & sr)
			ibv |= sr_ibv_access_table[i].ibv;
	return ibv;
}
