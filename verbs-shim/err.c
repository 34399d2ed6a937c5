/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * err.c — the one place where lib/ and pmd/ errors become ibverbs errors.
 *
 * lib/ returns -errno by class (mr/mr.h documents them); ibverbs returns a
 * positive errno, or NULL with errno set.  Most classes keep their value;
 * those ibverbs has no use for are folded here, once.
 */
#include <errno.h>

#include "shim.h"

/* X(lib errno, ibverbs errno) — classes whose ibverbs value differs. */
#define SR_IBV_ERR_LIST(X)                                                 \
	X(E2BIG, EINVAL)        /* implementation limit: over a device cap */ \
	X(EPERM, EINVAL)        /* a rule of the object's kind or state */    \
	X(ENOSPC, ENOMEM)       /* a table is full */                          \
	X(EALREADY, EINVAL)                                                   \
	X(ENOENT, EINVAL)       /* no such index */                            \
	X(EHOSTUNREACH, ETIMEDOUT) /* the peer's MAC did not resolve */

static const struct {
	int lib, ibv;
} sr_ibv_err_table[] = {
#define SR_X(l, i) { .lib = l, .ibv = i },
	SR_IBV_ERR_LIST(SR_X)
#undef SR_X
};

int sr_ibv_err(int rc)
{
	int e = rc < 0 ? -rc : rc;

	if (e == 0)
		return 0;
	for (unsigned int i = 0;
	     i < sizeof(sr_ibv_err_table) / sizeof(sr_ibv_err_table[0]); i++)
		if (sr_ibv_err_table[i].lib == e)
			return sr_ibv_err_table[i].ibv;
	return e;
}
