/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mad.h — management datagrams of the communication manager (IBA 13.4, 12.6).
 *
 * A CM MAD is 256 bytes: the 24-byte MAD common header, then 232 bytes of
 * attribute data.  Every field of every CM attribute is one row of the
 * SR_CM_FIELDS table (byte offset in the attribute data, bit offset from
 * that byte's most significant bit, width in bits), so the parser, the
 * builder, the dissector and the layout test read one source of truth.
 * The wire is big-endian; fields are read bit by bit through the table,
 * never through a C bitfield.
 */
#ifndef SR_CM_MAD_H
#define SR_CM_MAD_H

#include <assert.h>
#include <stddef.h>
#include <stdint.h>

#include "wire/endian.h"

#define SR_MAD_SIZE          256u
#define SR_MAD_HDR_SIZE      24u
#define SR_CM_DATA_SIZE      (SR_MAD_SIZE - SR_MAD_HDR_SIZE)

#define SR_MAD_BASE_VERSION  1u
#define SR_MAD_CLASS_CM      0x07u
#define SR_MAD_CM_CLASS_VERSION 2u

/* Methods (IBA 13.4.5). */
#define SR_MAD_METHOD_GET      0x01u
#define SR_MAD_METHOD_SET      0x02u
#define SR_MAD_METHOD_SEND     0x03u
#define SR_MAD_METHOD_GET_RESP 0x81u

/* MAD status: the invalid-field code sits in bits 4..2 (IBA 13.4.7). */
#define SR_MAD_STATUS_BAD_VERSION        0x0004u
#define SR_MAD_STATUS_UNSUPPORTED_METHOD 0x0008u
#define SR_MAD_STATUS_UNSUPPORTED_ATTR   0x000Cu

/* The GSI's well-known Q_Key (IBA 13.5.1). */
#define SR_GSI_QKEY 0x80010000u
#define SR_GSI_QPN  1u

/* The 24-byte MAD common header (IBA 13.4.2). */
struct sr_mad_hdr {
	uint8_t base_version;
	uint8_t mgmt_class;
	uint8_t class_version;
	uint8_t method;          /* bit 7 = R (response) */
	uint8_t status[2];
	uint8_t class_specific[2];
	uint8_t tid[8];
	uint8_t attr_id[2];
	uint8_t reserved[2];
	uint8_t attr_mod[4];
};
static_assert(sizeof(struct sr_mad_hdr) == SR_MAD_HDR_SIZE, "MAD header");

/* CM attributes: X(name, id, private-data offset, private-data length). */
#define SR_CM_ATTRS(X)                          \
	X(CLASS_PORT_INFO, 0x0001,   0,   0)    \
	X(REQ,             0x0010, 140,  92)    \
	X(MRA,             0x0011,  10, 222)    \
	X(REJ,             0x0012,  84, 148)    \
	X(REP,             0x0013,  36, 196)    \
	X(RTU,             0x0014,   8, 224)    \
	X(DREQ,            0x0015,  12, 220)    \
	X(DREP,            0x0016,   8, 224)    \
	X(SIDR_REQ,        0x0017,  16, 216)    \
	X(SIDR_REP,        0x0018,  96, 136)    \
	X(LAP,             0x0019,  64, 168)    \
	X(APR,             0x001A,  84, 148)

enum sr_cm_attr {
#define SR_X(n, id, po, pl) SR_CM_ATTR_##n,
	SR_CM_ATTRS(SR_X)
#undef SR_X
	SR_CM_ATTR_COUNT
};

struct sr_cm_attr_info {
	const char *name;
	uint16_t id;
	uint8_t pdata_off;   /* in the attribute data */
	uint8_t pdata_len;
};
extern const struct sr_cm_attr_info sr_cm_attr_info[SR_CM_ATTR_COUNT];

/*
 * Every field: X(name, attr, byte, bit, width, member).  byte is the offset
 * in the 232-byte attribute data (IBA 12.6), bit counts from that byte's
 * most significant bit, member is the host-order field in struct sr_cm_msg.
 * Widths above 64 are whole-byte arrays (GIDs, ARI, ClassPortInfo).
 */
#define SR_CM_FIELDS(X)                                                         \
	X(REQ_LOCAL_COMM_ID,     REQ,   0, 0, 32, local_comm_id)                 \
	X(REQ_SERVICE_ID,        REQ,   8, 0, 64, service_id)                    \
	X(REQ_LOCAL_CA_GUID,     REQ,  16, 0, 64, ca_guid)                       \
	X(REQ_LOCAL_QKEY,        REQ,  28, 0, 32, qkey)                          \
	X(REQ_LOCAL_QPN,         REQ,  32, 0, 24, qpn)                           \
	X(REQ_RESPONDER_RES,     REQ,  35, 0,  8, responder_resources)           \
	X(REQ_LOCAL_EECN,        REQ,  36, 0, 24, eecn)                          \
	X(REQ_INITIATOR_DEPTH,   REQ,  39, 0,  8, initiator_depth)               \
	X(REQ_REMOTE_EECN,       REQ,  40, 0, 24, remote_eecn)                   \
	X(REQ_REMOTE_RESP_TIMEOUT, REQ, 43, 0, 5, remote_cm_timeout)             \
	X(REQ_TRANSPORT_TYPE,    REQ,  43, 5,  2, transport_type)                \
	X(REQ_E2E_FLOW_CTRL,     REQ,  43, 7,  1, e2e_flow_ctrl)                 \
	X(REQ_STARTING_PSN,      REQ,  44, 0, 24, psn)                           \
	X(REQ_LOCAL_RESP_TIMEOUT, REQ, 47, 0,  5, local_cm_timeout)              \
	X(REQ_RETRY_COUNT,       REQ,  47, 5,  3, retry_count)                   \
	X(REQ_PKEY,              REQ,  48, 0, 16, pkey)                          \
	X(REQ_PATH_MTU,          REQ,  50, 0,  4, path_mtu)                      \
	X(REQ_RDC_EXISTS,        REQ,  50, 4,  1, rdc_exists)                    \
	X(REQ_RNR_RETRY_COUNT,   REQ,  50, 5,  3, rnr_retry_count)               \
	X(REQ_MAX_CM_RETRIES,    REQ,  51, 0,  4, max_cm_retries)                \
	X(REQ_SRQ,               REQ,  51, 4,  1, srq)                           \
	X(REQ_EXT_TRANSPORT,     REQ,  51, 5,  3, ext_transport)                 \
	X(REQ_PRI_LOCAL_LID,     REQ,  52, 0, 16, pri.local_lid)                 \
	X(REQ_PRI_REMOTE_LID,    REQ,  54, 0, 16, pri.remote_lid)                \
	X(REQ_PRI_LOCAL_GID,     REQ,  56, 0,128, pri.local_gid)                 \
	X(REQ_PRI_REMOTE_GID,    REQ,  72, 0,128, pri.remote_gid)                \
	X(REQ_PRI_FLOW_LABEL,    REQ,  88, 0, 20, pri.flow_label)                \
	X(REQ_PRI_PACKET_RATE,   REQ,  91, 2,  6, pri.packet_rate)               \
	X(REQ_PRI_TRAFFIC_CLASS, REQ,  92, 0,  8, pri.traffic_class)             \
	X(REQ_PRI_HOP_LIMIT,     REQ,  93, 0,  8, pri.hop_limit)                 \
	X(REQ_PRI_SL,            REQ,  94, 0,  4, pri.sl)                        \
	X(REQ_PRI_SUBNET_LOCAL,  REQ,  94, 4,  1, pri.subnet_local)              \
	X(REQ_PRI_ACK_TIMEOUT,   REQ,  95, 0,  5, pri.ack_timeout)               \
	X(REQ_ALT_LOCAL_LID,     REQ,  96, 0, 16, alt.local_lid)                 \
	X(REQ_ALT_REMOTE_LID,    REQ,  98, 0, 16, alt.remote_lid)                \
	X(REQ_ALT_LOCAL_GID,     REQ, 100, 0,128, alt.local_gid)                 \
	X(REQ_ALT_REMOTE_GID,    REQ, 116, 0,128, alt.remote_gid)                \
	X(REQ_ALT_FLOW_LABEL,    REQ, 132, 0, 20, alt.flow_label)                \
	X(REQ_ALT_PACKET_RATE,   REQ, 135, 2,  6, alt.packet_rate)               \
	X(REQ_ALT_TRAFFIC_CLASS, REQ, 136, 0,  8, alt.traffic_class)             \
	X(REQ_ALT_HOP_LIMIT,     REQ, 137, 0,  8, alt.hop_limit)                 \
	X(REQ_ALT_SL,            REQ, 138, 0,  4, alt.sl)                        \
	X(REQ_ALT_SUBNET_LOCAL,  REQ, 138, 4,  1, alt.subnet_local)              \
	X(REQ_ALT_ACK_TIMEOUT,   REQ, 139, 0,  5, alt.ack_timeout)               \
	X(MRA_LOCAL_COMM_ID,     MRA,   0, 0, 32, local_comm_id)                 \
	X(MRA_REMOTE_COMM_ID,    MRA,   4, 0, 32, remote_comm_id)                \
	X(MRA_MESSAGE_MRAED,     MRA,   8, 0,  2, msg_type)                      \
	X(MRA_SERVICE_TIMEOUT,   MRA,   9, 0,  5, service_timeout)               \
	X(REJ_LOCAL_COMM_ID,     REJ,   0, 0, 32, local_comm_id)                 \
	X(REJ_REMOTE_COMM_ID,    REJ,   4, 0, 32, remote_comm_id)                \
	X(REJ_MESSAGE_REJECTED,  REJ,   8, 0,  2, msg_type)                      \
	X(REJ_ARI_LENGTH,        REJ,   9, 0,  7, info_len)                      \
	X(REJ_REASON,            REJ,  10, 0, 16, reason)                        \
	X(REJ_ARI,               REJ,  12, 0,576, info)                          \
	X(REP_LOCAL_COMM_ID,     REP,   0, 0, 32, local_comm_id)                 \
	X(REP_REMOTE_COMM_ID,    REP,   4, 0, 32, remote_comm_id)                \
	X(REP_LOCAL_QKEY,        REP,   8, 0, 32, qkey)                          \
	X(REP_LOCAL_QPN,         REP,  12, 0, 24, qpn)                           \
	X(REP_LOCAL_EECN,        REP,  16, 0, 24, eecn)                          \
	X(REP_STARTING_PSN,      REP,  20, 0, 24, psn)                           \
	X(REP_RESPONDER_RES,     REP,  24, 0,  8, responder_resources)           \
	X(REP_INITIATOR_DEPTH,   REP,  25, 0,  8, initiator_depth)               \
	X(REP_TARGET_ACK_DELAY,  REP,  26, 0,  5, target_ack_delay)              \
	X(REP_FAILOVER_ACCEPTED, REP,  26, 5,  2, failover_accepted)             \
	X(REP_E2E_FLOW_CTRL,     REP,  26, 7,  1, e2e_flow_ctrl)                 \
	X(REP_RNR_RETRY_COUNT,   REP,  27, 0,  3, rnr_retry_count)               \
	X(REP_SRQ,               REP,  27, 3,  1, srq)                           \
	X(REP_LOCAL_CA_GUID,     REP,  28, 0, 64, ca_guid)                       \
	X(RTU_LOCAL_COMM_ID,     RTU,   0, 0, 32, local_comm_id)                 \
	X(RTU_REMOTE_COMM_ID,    RTU,   4, 0, 32, remote_comm_id)                \
	X(DREQ_LOCAL_COMM_ID,    DREQ,  0, 0, 32, local_comm_id)                 \
	X(DREQ_REMOTE_COMM_ID,   DREQ,  4, 0, 32, remote_comm_id)                \
	X(DREQ_REMOTE_QPN,       DREQ,  8, 0, 24, qpn)                           \
	X(DREP_LOCAL_COMM_ID,    DREP,  0, 0, 32, local_comm_id)                 \
	X(DREP_REMOTE_COMM_ID,   DREP,  4, 0, 32, remote_comm_id)                \
	X(SIDR_REQ_REQUEST_ID,   SIDR_REQ, 0, 0, 32, local_comm_id)              \
	X(SIDR_REQ_PKEY,         SIDR_REQ, 4, 0, 16, pkey)                       \
	X(SIDR_REQ_SERVICE_ID,   SIDR_REQ, 8, 0, 64, service_id)                 \
	X(SIDR_REP_REQUEST_ID,   SIDR_REP, 0, 0, 32, local_comm_id)              \
	X(SIDR_REP_STATUS,       SIDR_REP, 4, 0,  8, status)                     \
	X(SIDR_REP_INFO_LENGTH,  SIDR_REP, 5, 0,  8, info_len)                   \
	X(SIDR_REP_QPN,          SIDR_REP, 8, 0, 24, qpn)                        \
	X(SIDR_REP_SERVICE_ID,   SIDR_REP, 12, 0, 64, service_id)                \
	X(SIDR_REP_QKEY,         SIDR_REP, 20, 0, 32, qkey)                      \
	X(SIDR_REP_CLASS_PORT_INFO, SIDR_REP, 24, 0, 576, info)                  \
	X(LAP_LOCAL_COMM_ID,     LAP,   0, 0, 32, local_comm_id)                 \
	X(LAP_REMOTE_COMM_ID,    LAP,   4, 0, 32, remote_comm_id)                \
	X(APR_LOCAL_COMM_ID,     APR,   0, 0, 32, local_comm_id)                 \
	X(APR_REMOTE_COMM_ID,    APR,   4, 0, 32, remote_comm_id)                \
	X(APR_INFO_LENGTH,       APR,   8, 0,  8, info_len)                      \
	X(APR_STATUS,            APR,   9, 0,  8, status)                        \
	X(APR_INFO,              APR,  12, 0,576, info)

enum sr_cm_field {
#define SR_X(n, a, by, bi, w, m) SR_CM_F_##n,
	SR_CM_FIELDS(SR_X)
#undef SR_X
	SR_CM_F_COUNT
};

struct sr_cm_field_info {
	const char *name;
	uint8_t attr;        /* enum sr_cm_attr */
	uint8_t byte;        /* offset in the attribute data */
	uint8_t bit;         /* from the most significant bit of byte */
	uint16_t width;      /* bits */
	uint16_t host_off;   /* offsetof(struct sr_cm_msg, member) */
	uint16_t host_size;
};
extern const struct sr_cm_field_info sr_cm_field_info[SR_CM_F_COUNT];

/* REJ "message rejected" / MRA "message MRAed" (IBA 12.6.6, 12.6.7). */
enum sr_cm_msg_type { SR_CM_MSG_REQ = 0, SR_CM_MSG_REP = 1, SR_CM_MSG_OTHER = 2 };

/* Transport service type in the REQ (IBA 12.6.5). */
enum sr_cm_transport { SR_CM_TRANSPORT_RC = 0, SR_CM_TRANSPORT_UC = 1,
		       SR_CM_TRANSPORT_RD = 2 };

/* APR status "alternate path not supported" (IBA 12.6.14). */
#define SR_CM_APR_UNSUPPORTED 2u

struct sr_cm_path {
	uint16_t local_lid, remote_lid;
	uint8_t local_gid[16], remote_gid[16];
	uint32_t flow_label;
	uint8_t packet_rate, traffic_class, hop_limit, sl, subnet_local,
		ack_timeout;
};

/* One CM MAD in host order.  Fields a message does not carry stay 0. */
struct sr_cm_msg {
	/* common header */
	uint8_t method;
	uint8_t class_version;
	uint16_t mad_status;
	uint64_t tid;
	uint16_t attr_id;
	uint32_t attr_mod;
	enum sr_cm_attr attr;
	/* attribute fields, shared by name across messages */
	uint32_t local_comm_id, remote_comm_id;
	uint64_t service_id, ca_guid;
	uint32_t qkey, qpn, eecn, remote_eecn, psn;
	uint8_t responder_resources, initiator_depth;
	uint8_t remote_cm_timeout, local_cm_timeout, transport_type,
		e2e_flow_ctrl, retry_count, rnr_retry_count, path_mtu,
		rdc_exists, max_cm_retries, srq, ext_transport;
	uint16_t pkey;
	struct sr_cm_path pri, alt;
	uint8_t msg_type, service_timeout, info_len;
	uint16_t reason;
	uint8_t target_ack_delay, failover_accepted;
	uint8_t info[72];          /* REJ ARI, SIDR_REP ClassPortInfo, APR */
	uint8_t pdata[224];        /* private data, pdata_len bytes */
	uint8_t pdata_len;
	/* SIDR_REP and APR status */
	uint8_t status;
};

/* Why the parser refused a MAD: X(name, text). */
#define SR_MAD_ERRORS(X)                                           \
	X(OK,            "accepted")                               \
	X(SHORT,         "shorter than 256 bytes")                 \
	X(BASE_VERSION,  "base version is not 1")                  \
	X(CLASS,         "management class is not CM (0x07)")      \
	X(CLASS_VERSION, "CM class version is not 2")              \
	X(METHOD,        "method the CM does not serve")           \
	X(ATTR,          "attribute ID the CM does not know")      \
	X(RESPONSE,      "a response (R bit) the GSI did not ask") \
	X(FIELD,         "a field holds an invalid value")

enum sr_mad_err {
#define SR_X(n, t) SR_MAD_ERR_##n,
	SR_MAD_ERRORS(SR_X)
#undef SR_X
	SR_MAD_ERR_COUNT
};
extern const char *const sr_mad_err_name[SR_MAD_ERR_COUNT];

/*
 * Parse a CM MAD of len bytes into msg.  Returns SR_MAD_ERR_OK, or the
 * reason it was refused (msg then holds the header fields read so far).
 * A Get or Set of any attribute parses (the GSI answers it, see
 * sr_mad_build_get_resp); a Send must name a CM message.
 */
enum sr_mad_err sr_mad_parse(const uint8_t *buf, uint32_t len,
			     struct sr_cm_msg *msg);

/*
 * Build msg into out (SR_MAD_SIZE bytes): the header from msg (base
 * version 1, class CM, msg->class_version or 2), the fields of msg->attr
 * from the table, msg->pdata_len bytes of private data zero-padded to the
 * message's size.  Returns SR_MAD_SIZE, -EINVAL for an attribute the CM
 * never sends or private data longer than the message carries.
 */
int sr_mad_build(const struct sr_cm_msg *msg, uint8_t *out);

/* The GSI's answer to a Get/Set it does not serve, as Linux's MAD layer
 * gives it: the request echoed as GetResp with status 0x000C. */
void sr_mad_build_get_resp(const uint8_t *req, uint8_t *out);

/* Attribute by wire ID, or SR_CM_ATTR_COUNT. */
enum sr_cm_attr sr_cm_attr_by_id(uint16_t id);

/* Read/write one field of raw attribute data (data = MAD + 24). */
uint64_t sr_cm_field_get(const uint8_t *data, enum sr_cm_field f);
void sr_cm_field_put(uint8_t *data, enum sr_cm_field f, uint64_t v);

#endif /* SR_CM_MAD_H */
