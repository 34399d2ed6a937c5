/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * status.c — the error table (sr_status.h) and the NTSTATUS names.
 */
#include <stdlib.h>

#include "sr_status.h"

/* Every STATUS_* macro equals its row of SR_NTSTATUS_LIST. */
#define SR_X(name, val) static_assert(name == (NTSTATUS)(val), #name);
SR_NTSTATUS_LIST(SR_X)
#undef SR_X

struct sr_status_row {
	int err;
	NTSTATUS nt;
	HRESULT nd;
};

static const struct sr_status_row sr_status_rows[] = {
#define SR_X(e, ntv, ndv, what) { .err = (e), .nt = (ntv), .nd = (ndv) },
	SR_ERRNO_STATUS_LIST(SR_X)
#undef SR_X
};

#define SR_NROWS (sizeof(sr_status_rows) / sizeof(sr_status_rows[0]))

static const struct sr_status_row *sr_status_row_of(int err)
{
	err = abs(err);
	for (size_t i = 0; i < SR_NROWS; i++)
		if (sr_status_rows[i].err == err)
			return &sr_status_rows[i];
	return NULL;
}

NTSTATUS sr_ntstatus_from_errno(int err)
{
	const struct sr_status_row *r = sr_status_row_of(err);

	return r ? r->nt : STATUS_UNSUCCESSFUL;
}

HRESULT sr_hresult_from_errno(int err)
{
	const struct sr_status_row *r = sr_status_row_of(err);

	return r ? r->nd : ND_UNSUCCESSFUL;
}

HRESULT sr_hresult_from_ntstatus(NTSTATUS s)
{
	for (size_t i = 0; i < SR_NROWS; i++)
		if (sr_status_rows[i].nt == s)
			return sr_status_rows[i].nd;
	/* ND codes of the System facility are the NTSTATUS values */
	return (HRESULT)s;
}

/* X(transport completion status, NTSTATUS) */
#define SR_WC_NTSTATUS_LIST(X)                                   \
	X(SUCCESS,            STATUS_SUCCESS)                    \
	X(LOC_LEN_ERR,        STATUS_BUFFER_OVERFLOW)            \
	X(LOC_QP_OP_ERR,      STATUS_INVALID_DEVICE_STATE)       \
	X(LOC_EEC_OP_ERR,     STATUS_INTERNAL_ERROR)             \
	X(LOC_PROT_ERR,       STATUS_ACCESS_VIOLATION)           \
	X(WR_FLUSH_ERR,       STATUS_CANCELLED)                  \
	X(MW_BIND_ERR,        STATUS_ACCESS_VIOLATION)           \
	X(BAD_RESP_ERR,       STATUS_REMOTE_ERROR)               \
	X(LOC_ACCESS_ERR,     STATUS_ACCESS_VIOLATION)           \
	X(REM_INV_REQ_ERR,    STATUS_DATA_OVERRUN)               \
	X(REM_ACCESS_ERR,     STATUS_ACCESS_VIOLATION)           \
	X(REM_OP_ERR,         STATUS_REMOTE_ERROR)               \
	X(RETRY_EXC_ERR,      STATUS_IO_TIMEOUT)                 \
	X(RNR_RETRY_EXC_ERR,  STATUS_IO_TIMEOUT)                 \
	X(LOC_RDD_VIOL_ERR,   STATUS_ACCESS_VIOLATION)           \
	X(REM_INV_RD_REQ_ERR, STATUS_REMOTE_ERROR)               \
	X(REM_ABORT_ERR,      STATUS_CONNECTION_ABORTED)         \
	X(INV_EECN_ERR,       STATUS_INTERNAL_ERROR)             \
	X(INV_EEC_STATE_ERR,  STATUS_INTERNAL_ERROR)             \
	X(FATAL_ERR,          STATUS_INTERNAL_ERROR)             \
	X(RESP_TIMEOUT_ERR,   STATUS_IO_TIMEOUT)                 \
	X(GENERAL_ERR,        STATUS_UNSUCCESSFUL)               \
	X(TM_ERR,             STATUS_UNSUCCESSFUL)               \
	X(TM_RNDV_INCOMPLETE, STATUS_UNSUCCESSFUL)

static const NTSTATUS sr_wc_ntstatus[SR_WC_STATUS_MAX] = {
#define SR_X(wc, nt) [SR_WC_##wc] = (nt),
	SR_WC_NTSTATUS_LIST(SR_X)
#undef SR_X
};

/* one row per completion status, no more, no less */
#define SR_X(wc, nt) + 1
static_assert(0 SR_WC_NTSTATUS_LIST(SR_X) == SR_WC_STATUS_MAX,
	      "SR_WC_NTSTATUS_LIST covers every completion status");
#undef SR_X

NTSTATUS sr_ntstatus_from_wc(enum sr_wc_status s)
{
	if ((unsigned int)s >= SR_WC_STATUS_MAX)
		return STATUS_UNSUCCESSFUL;
	return sr_wc_ntstatus[s];
}

static const struct {
	NTSTATUS s;
	const char *name;
} sr_ntstatus_names[] = {
#define SR_X(name, val) { (NTSTATUS)(val), #name },
	SR_NTSTATUS_LIST(SR_X)
#undef SR_X
};

const char *sr_ntstatus_str(NTSTATUS s)
{
	for (size_t i = 0; i < sizeof(sr_ntstatus_names) / sizeof(sr_ntstatus_names[0]); i++)
		if (sr_ntstatus_names[i].s == s)
			return sr_ntstatus_names[i].name;
	return "STATUS_?";
}
