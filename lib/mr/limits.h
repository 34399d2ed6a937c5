/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * limits.h — one structure with every limit of an sroce device.
 *
 * It carries every field of NDK_ADAPTER_INFO (so the NDK and ND2 shims
 * report it as is) plus sroce's own table sizes.  The list below is the
 * single source of truth: the struct, the defaults, the bounds accepted
 * by sr_dev_limits_check() and the per-request checks of
 * sr_dev_limit_check() all expand from it.
 *
 * Every engine enforces its limits through sr_dev_limit_check(): a
 * request over a limit fails with the class the limit names (-EINVAL for
 * invalid parameter, -E2BIG for implementation limit, -ENOMEM for
 * insufficient resources), never a crash.
 */
#ifndef SR_MR_LIMITS_H
#define SR_MR_LIMITS_H

#include <stdbool.h>
#include <stdint.h>

/* sroce's page: the unit of page lists and fast-register (PAGE_SIZE). */
#define SR_PAGE_SHIFT 12
#define SR_PAGE_SIZE  (UINT64_C(1) << SR_PAGE_SHIFT)
#define SR_PAGE_MASK  (SR_PAGE_SIZE - 1)

/* Keys: upper 24 bits index the device table, low 8 bits are the key byte. */
#define SR_KEY_INDEX_BITS 24
#define SR_KEY_INDEX_MAX  ((UINT32_C(1) << SR_KEY_INDEX_BITS) - 1)

/* NDK_ADAPTER_INFO.AdapterFlags bits, with the NDK values. */
#define SR_ADAPTER_FLAG_LIST(X)                                              \
	X(IN_ORDER_DMA_SUPPORTED,               0x00000001u)                 \
	X(RDMA_READ_SINK_NOT_REQUIRED,          0x00000002u)                 \
	X(CQ_INTERRUPT_MODERATION_SUPPORTED,    0x00000004u)                 \
	X(MULTI_ENGINE_SUPPORTED,               0x00000008u)                 \
	X(RDMA_READ_LOCAL_INVALIDATE_SUPPORTED, 0x00000010u)                 \
	X(CQ_RESIZE_SUPPORTED,                  0x00000100u)                 \
	X(LOOPBACK_CONNECTIONS_SUPPORTED,       0x00010000u)

enum sr_adapter_flag {
#define SR_X(name, val) SR_ADAPTER_FLAG_##name = val,
	SR_ADAPTER_FLAG_LIST(SR_X)
#undef SR_X
};

/* NDK_RDMA_TECHNOLOGY values. */
enum sr_rdma_technology {
	SR_RDMA_TECH_UNDEFINED  = 0,
	SR_RDMA_TECH_IWARP      = 1,
	SR_RDMA_TECH_INFINIBAND = 2,
	SR_RDMA_TECH_ROCE       = 3,
	SR_RDMA_TECH_ROCEV2     = 4,
};

/*
 * What going over a limit means:
 *   INFO   not a bound (identity, flags); never checked against a request.
 *   PARAM  the request is an invalid parameter               -> -EINVAL
 *   IMPL   the adapter's implementation limit                -> -E2BIG
 *   RES    a count of objects: insufficient resources        -> -ENOMEM
 */
enum sr_limit_class {
	SR_LIMIT_INFO,
	SR_LIMIT_PARAM,
	SR_LIMIT_IMPL,
	SR_LIMIT_RES,
};

#define SR_DEFAULT_ADAPTER_FLAGS                                             \
	(SR_ADAPTER_FLAG_IN_ORDER_DMA_SUPPORTED |                            \
	 SR_ADAPTER_FLAG_RDMA_READ_SINK_NOT_REQUIRED |                       \
	 SR_ADAPTER_FLAG_CQ_RESIZE_SUPPORTED |                               \
	 SR_ADAPTER_FLAG_LOOPBACK_CONNECTIONS_SUPPORTED)

/*
 * X(type, field, NDK name, default, minimum, maximum, class)
 *
 * NDK_ADAPTER_INFO fields in NDK order (Version is major << 16 | minor),
 * then sroce's table sizes.  SIZE_T fields are uint64_t, ULONG uint32_t.
 */
#define SR_DEV_LIMIT_LIST(X)                                                 \
	X(uint32_t, version,                   "Version",                    \
	  UINT32_C(0x00010002), 0, UINT32_MAX, SR_LIMIT_INFO)                \
	X(uint32_t, vendor_id,                 "VendorId",                   \
	  0, 0, UINT32_MAX, SR_LIMIT_INFO)                                   \
	X(uint32_t, device_id,                 "DeviceId",                   \
	  0, 0, UINT32_MAX, SR_LIMIT_INFO)                                   \
	X(uint64_t, max_registration_size,     "MaxRegistrationSize",        \
	  UINT64_C(1) << 40, SR_PAGE_SIZE, UINT64_C(1) << 56, SR_LIMIT_PARAM) \
	X(uint64_t, max_window_size,           "MaxWindowSize",              \
	  UINT64_C(1) << 40, SR_PAGE_SIZE, UINT64_C(1) << 56, SR_LIMIT_PARAM) \
	X(uint32_t, frmr_page_count,           "FRMRPageCount",              \
	  256, 16, UINT32_C(1) << 20, SR_LIMIT_IMPL)                         \
	X(uint32_t, max_initiator_request_sge, "MaxInitiatorRequestSge",     \
	  16, 1, 4096, SR_LIMIT_PARAM)                                       \
	X(uint32_t, max_receive_request_sge,   "MaxReceiveRequestSge",       \
	  16, 1, 4096, SR_LIMIT_PARAM)                                       \
	X(uint32_t, max_read_request_sge,      "MaxReadRequestSge",          \
	  16, 1, 4096, SR_LIMIT_PARAM)                                       \
	X(uint32_t, max_transfer_length,       "MaxTransferLength",          \
	  UINT32_C(1) << 31, 1, UINT32_C(1) << 31, SR_LIMIT_PARAM)           \
	X(uint32_t, max_inline_data_size,      "MaxInlineDataSize",          \
	  256, 0, 65536, SR_LIMIT_PARAM)                                     \
	X(uint32_t, max_inbound_read_limit,    "MaxInboundReadLimit",        \
	  16, 1, 255, SR_LIMIT_PARAM)                                        \
	X(uint32_t, max_outbound_read_limit,   "MaxOutboundReadLimit",       \
	  16, 1, 255, SR_LIMIT_PARAM)                                        \
	X(uint32_t, max_receive_queue_depth,   "MaxReceiveQueueDepth",       \
	  16384, 1, UINT32_C(1) << 24, SR_LIMIT_PARAM)                       \
	X(uint32_t, max_initiator_queue_depth, "MaxInitiatorQueueDepth",     \
	  16384, 1, UINT32_C(1) << 24, SR_LIMIT_PARAM)                       \
	X(uint32_t, max_srq_depth,             "MaxSrqDepth",                \
	  16384, 1, UINT32_C(1) << 24, SR_LIMIT_PARAM)                       \
	X(uint32_t, max_cq_depth,              "MaxCqDepth",                 \
	  4194303, 1, UINT32_C(1) << 24, SR_LIMIT_PARAM)                     \
	X(uint32_t, large_request_threshold,   "LargeRequestThreshold",      \
	  65536, 0, UINT32_MAX, SR_LIMIT_INFO)                               \
	X(uint32_t, max_caller_data,           "MaxCallerData",              \
	  56, 0, 65536, SR_LIMIT_PARAM)                                      \
	X(uint32_t, max_callee_data,           "MaxCalleeData",              \
	  196, 0, 65536, SR_LIMIT_PARAM)                                     \
	X(uint32_t, adapter_flags,             "AdapterFlags",               \
	  SR_DEFAULT_ADAPTER_FLAGS, 0, UINT32_MAX, SR_LIMIT_INFO)            \
	X(uint32_t, rdma_technology,           "RdmaTechnology",             \
	  SR_RDMA_TECH_ROCEV2, 0, SR_RDMA_TECH_ROCEV2, SR_LIMIT_INFO)        \
	X(uint32_t, max_pd,                    "sroce.MaxPd",                \
	  4096, 1, UINT32_C(1) << 24, SR_LIMIT_RES)                          \
	X(uint32_t, max_mr,                    "sroce.MaxMr",                \
	  65536, 1, SR_KEY_INDEX_MAX / 2, SR_LIMIT_RES)                      \
	X(uint32_t, max_mw,                    "sroce.MaxMw",                \
	  16384, 0, SR_KEY_INDEX_MAX / 2, SR_LIMIT_RES)

struct sr_dev_limits {
#define SR_X(type, field, ndk, def, lo, hi, cls) type field;
	SR_DEV_LIMIT_LIST(SR_X)
#undef SR_X
};

/* One id per field, for sr_dev_limit_check() and the info table. */
enum sr_limit_id {
#define SR_X(type, field, ndk, def, lo, hi, cls) SR_LIMIT_ID_##field,
	SR_DEV_LIMIT_LIST(SR_X)
#undef SR_X
	SR_LIMIT_ID_COUNT
};

/* Description of one field, expanded from the list. */
struct sr_limit_info {
	const char *field;       /* C name, e.g. "frmr_page_count" */
	const char *ndk_name;    /* NDK_ADAPTER_INFO member name */
	uint32_t offset;         /* offsetof in struct sr_dev_limits */
	uint8_t size;            /* 4 or 8 */
	uint8_t cls;             /* enum sr_limit_class */
	uint64_t def, min, max;  /* default and accepted configuration range */
};

/* The field table, indexed by enum sr_limit_id. */
extern const struct sr_limit_info sr_limit_info[SR_LIMIT_ID_COUNT];

/* The defaults sroce advertises. */
struct sr_dev_limits sr_dev_limits_default(void);

/*
 * Validate a configuration: every field within its [min, max] (so
 * FRMRPageCount >= 16, key-table sizes fit the 24-bit key index).
 * Returns 0, or -EINVAL with the first field out of range in *bad_field
 * (bad_field may be NULL).
 */
int sr_dev_limits_check(const struct sr_dev_limits *l, enum sr_limit_id *bad_field);

/* The value of one field, widened. */
uint64_t sr_dev_limit_get(const struct sr_dev_limits *l, enum sr_limit_id id);

/*
 * Check one request value against one limit.
 * Returns 0 if value <= limit, else the limit's class errno:
 *   -EINVAL (PARAM), -E2BIG (IMPL), -ENOMEM (RES).
 * INFO fields are not bounds: checking one returns -EINVAL always (a bug
 * in the caller, made loud).
 */
int sr_dev_limit_check(const struct sr_dev_limits *l, enum sr_limit_id id, uint64_t value);

#endif /* SR_MR_LIMITS_H */
