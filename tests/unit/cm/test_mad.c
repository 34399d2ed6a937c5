/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * CM MADs: every field where IBA 12.6 puts it, no two fields of a message
 * overlapping, parse and build agreeing on random messages, every reason
 * the parser refuses a MAD, and rdma_cm's private-data header.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cm/cma_hdr.h"
#include "cm/mad.h"
#include "sr_check.h"

/* Offsets typed from IBA 12.6 (bytes into the attribute data, bit from
 * the MSB), independently of mad.h's table. */
static const struct { enum sr_cm_field f; unsigned byte, bit, width; } spec[] = {
	{ SR_CM_F_REQ_LOCAL_COMM_ID, 0, 0, 32 },
	{ SR_CM_F_REQ_SERVICE_ID, 8, 0, 64 },
	{ SR_CM_F_REQ_LOCAL_CA_GUID, 16, 0, 64 },
	{ SR_CM_F_REQ_LOCAL_QKEY, 28, 0, 32 },
	{ SR_CM_F_REQ_LOCAL_QPN, 32, 0, 24 },
	{ SR_CM_F_REQ_RESPONDER_RES, 35, 0, 8 },
	{ SR_CM_F_REQ_LOCAL_EECN, 36, 0, 24 },
	{ SR_CM_F_REQ_INITIATOR_DEPTH, 39, 0, 8 },
	{ SR_CM_F_REQ_REMOTE_EECN, 40, 0, 24 },
	{ SR_CM_F_REQ_REMOTE_RESP_TIMEOUT, 43, 0, 5 },
	{ SR_CM_F_REQ_TRANSPORT_TYPE, 43, 5, 2 },
	{ SR_CM_F_REQ_E2E_FLOW_CTRL, 43, 7, 1 },
	{ SR_CM_F_REQ_STARTING_PSN, 44, 0, 24 },
	{ SR_CM_F_REQ_LOCAL_RESP_TIMEOUT, 47, 0, 5 },
	{ SR_CM_F_REQ_RETRY_COUNT, 47, 5, 3 },
	{ SR_CM_F_REQ_PKEY, 48, 0, 16 },
	{ SR_CM_F_REQ_PATH_MTU, 50, 0, 4 },
	{ SR_CM_F_REQ_RDC_EXISTS, 50, 4, 1 },
	{ SR_CM_F_REQ_RNR_RETRY_COUNT, 50, 5, 3 },
	{ SR_CM_F_REQ_MAX_CM_RETRIES, 51, 0, 4 },
	{ SR_CM_F_REQ_SRQ, 51, 4, 1 },
	{ SR_CM_F_REQ_EXT_TRANSPORT, 51, 5, 3 },
	{ SR_CM_F_REQ_PRI_LOCAL_LID, 52, 0, 16 },
	{ SR_CM_F_REQ_PRI_REMOTE_LID, 54, 0, 16 },
	{ SR_CM_F_REQ_PRI_LOCAL_GID, 56, 0, 128 },
	{ SR_CM_F_REQ_PRI_REMOTE_GID, 72, 0, 128 },
	{ SR_CM_F_REQ_PRI_FLOW_LABEL, 88, 0, 20 },
	{ SR_CM_F_REQ_PRI_PACKET_RATE, 91, 2, 6 },
	{ SR_CM_F_REQ_ALT_PACKET_RATE, 135, 2, 6 },
	{ SR_CM_F_REQ_PRI_TRAFFIC_CLASS, 92, 0, 8 },
	{ SR_CM_F_REQ_PRI_HOP_LIMIT, 93, 0, 8 },
	{ SR_CM_F_REQ_PRI_SL, 94, 0, 4 },
	{ SR_CM_F_REQ_PRI_SUBNET_LOCAL, 94, 4, 1 },
	{ SR_CM_F_REQ_PRI_ACK_TIMEOUT, 95, 0, 5 },
	{ SR_CM_F_REQ_ALT_LOCAL_LID, 96, 0, 16 },
	{ SR_CM_F_REQ_ALT_ACK_TIMEOUT, 139, 0, 5 },
	{ SR_CM_F_MRA_MESSAGE_MRAED, 8, 0, 2 },
	{ SR_CM_F_MRA_SERVICE_TIMEOUT, 9, 0, 5 },
	{ SR_CM_F_REJ_MESSAGE_REJECTED, 8, 0, 2 },
	{ SR_CM_F_REJ_ARI_LENGTH, 9, 0, 7 },
	{ SR_CM_F_REJ_REASON, 10, 0, 16 },
	{ SR_CM_F_REJ_ARI, 12, 0, 576 },
	{ SR_CM_F_REP_LOCAL_QKEY, 8, 0, 32 },
	{ SR_CM_F_REP_LOCAL_QPN, 12, 0, 24 },
	{ SR_CM_F_REP_LOCAL_EECN, 16, 0, 24 },
	{ SR_CM_F_REP_STARTING_PSN, 20, 0, 24 },
	{ SR_CM_F_REP_RESPONDER_RES, 24, 0, 8 },
	{ SR_CM_F_REP_INITIATOR_DEPTH, 25, 0, 8 },
	{ SR_CM_F_REP_TARGET_ACK_DELAY, 26, 0, 5 },
	{ SR_CM_F_REP_FAILOVER_ACCEPTED, 26, 5, 2 },
	{ SR_CM_F_REP_E2E_FLOW_CTRL, 26, 7, 1 },
	{ SR_CM_F_REP_RNR_RETRY_COUNT, 27, 0, 3 },
	{ SR_CM_F_REP_SRQ, 27, 3, 1 },
	{ SR_CM_F_REP_LOCAL_CA_GUID, 28, 0, 64 },
	{ SR_CM_F_DREQ_REMOTE_QPN, 8, 0, 24 },
	{ SR_CM_F_SIDR_REQ_PKEY, 4, 0, 16 },
	{ SR_CM_F_SIDR_REQ_SERVICE_ID, 8, 0, 64 },
	{ SR_CM_F_SIDR_REP_STATUS, 4, 0, 8 },
	{ SR_CM_F_SIDR_REP_INFO_LENGTH, 5, 0, 8 },
	{ SR_CM_F_SIDR_REP_QPN, 8, 0, 24 },
	{ SR_CM_F_SIDR_REP_SERVICE_ID, 12, 0, 64 },
	{ SR_CM_F_SIDR_REP_QKEY, 20, 0, 32 },
	{ SR_CM_F_SIDR_REP_CLASS_PORT_INFO, 24, 0, 576 },
	{ SR_CM_F_APR_STATUS, 9, 0, 8 },
};

/* Private data: IBA 12.6 sizes, which Linux's ib_cm.h repeats. */
static const struct { enum sr_cm_attr a; unsigned id, off, len; } pdata_spec[] = {
	{ SR_CM_ATTR_REQ, 0x0010, 140, 92 },
	{ SR_CM_ATTR_MRA, 0x0011, 10, 222 },
	{ SR_CM_ATTR_REJ, 0x0012, 84, 148 },
	{ SR_CM_ATTR_REP, 0x0013, 36, 196 },
	{ SR_CM_ATTR_RTU, 0x0014, 8, 224 },
	{ SR_CM_ATTR_DREQ, 0x0015, 12, 220 },
	{ SR_CM_ATTR_DREP, 0x0016, 8, 224 },
	{ SR_CM_ATTR_SIDR_REQ, 0x0017, 16, 216 },
	{ SR_CM_ATTR_SIDR_REP, 0x0018, 96, 136 },
};

START_TEST(test_field_offsets)
{
	unsigned int i = (unsigned int)_i;
	const struct sr_cm_field_info *fi = &sr_cm_field_info[spec[i].f];

	ck_assert_msg(fi->byte == spec[i].byte && fi->bit == spec[i].bit &&
		      fi->width == spec[i].width, "%s at %u.%u/%u", fi->name,
		      fi->byte, fi->bit, fi->width);
}
END_TEST

START_TEST(test_pdata_sizes)
{
	unsigned int i = (unsigned int)_i;
	const struct sr_cm_attr_info *ai = &sr_cm_attr_info[pdata_spec[i].a];

	ck_assert_uint_eq(ai->id, pdata_spec[i].id);
	ck_assert_uint_eq(ai->pdata_off, pdata_spec[i].off);
	ck_assert_uint_eq(ai->pdata_len, pdata_spec[i].len);
	ck_assert_uint_eq(ai->pdata_off + ai->pdata_len, SR_CM_DATA_SIZE);
}
END_TEST

/* Which bits of an attribute's data its fields and private data cover;
 * asserts that no two overlap. */
static void coverage(enum sr_cm_attr a, uint8_t map[SR_CM_DATA_SIZE])
{
	const struct sr_cm_attr_info *ai = &sr_cm_attr_info[a];

	memset(map, 0, SR_CM_DATA_SIZE);
	for (unsigned int f = 0; f < SR_CM_F_COUNT; f++) {
		const struct sr_cm_field_info *fi = &sr_cm_field_info[f];

		if (fi->attr != a)
			continue;
		ck_assert_msg(fi->host_size * 8u >= fi->width || fi->width > 64,
			      "%s does not fit its member", fi->name);
		for (unsigned int b = 0; b < fi->width; b++) {
			unsigned int pos = fi->byte * 8u + fi->bit + b;
			uint8_t m = (uint8_t)(0x80u >> (pos & 7));

			ck_assert_msg(pos < ai->pdata_off * 8u, "%s overruns", fi->name);
			ck_assert_msg(!(map[pos >> 3] & m), "%s overlaps", fi->name);
			map[pos >> 3] |= m;
		}
	}
	for (unsigned int b = ai->pdata_off; b < SR_CM_DATA_SIZE; b++)
		map[b] = 0xFF;
}

START_TEST(test_no_overlap)
{
	uint8_t map[SR_CM_DATA_SIZE];

	for (unsigned int a = SR_CM_ATTR_REQ; a < SR_CM_ATTR_COUNT; a++)
		coverage((enum sr_cm_attr)a, map);
}
END_TEST

static void random_mad(uint8_t *mad, enum sr_cm_attr a, unsigned int seed)
{
	uint8_t map[SR_CM_DATA_SIZE];

	srand(seed);
	for (unsigned int i = 0; i < SR_MAD_SIZE; i++)
		mad[i] = (uint8_t)rand();
	coverage(a, map);
	for (unsigned int i = 0; i < SR_CM_DATA_SIZE; i++)
		mad[SR_MAD_HDR_SIZE + i] &= map[i];   /* reserved bits are 0 */
	mad[0] = SR_MAD_BASE_VERSION;
	mad[1] = SR_MAD_CLASS_CM;
	mad[2] = SR_MAD_CM_CLASS_VERSION;
	mad[3] = SR_MAD_METHOD_SEND;
	mad[6] = mad[7] = 0;   /* class specific: 0 in the CM class */
	mad[16] = (uint8_t)(sr_cm_attr_info[a].id >> 8);
	mad[17] = (uint8_t)sr_cm_attr_info[a].id;
	mad[18] = mad[19] = 0;
	/* Info lengths must be at most 72 to parse. */
	if (a == SR_CM_ATTR_REJ)
		sr_cm_field_put(mad + SR_MAD_HDR_SIZE, SR_CM_F_REJ_ARI_LENGTH, seed % 73);
	if (a == SR_CM_ATTR_SIDR_REP)
		sr_cm_field_put(mad + SR_MAD_HDR_SIZE, SR_CM_F_SIDR_REP_INFO_LENGTH, seed % 73);
	if (a == SR_CM_ATTR_APR)
		sr_cm_field_put(mad + SR_MAD_HDR_SIZE, SR_CM_F_APR_INFO_LENGTH, seed % 73);
}

/* Random messages of every attribute: parse, build, same bytes. */
START_TEST(test_round_trip)
{
	uint8_t mad[SR_MAD_SIZE], out[SR_MAD_SIZE];
	struct sr_cm_msg msg;

	for (unsigned int a = SR_CM_ATTR_REQ; a < SR_CM_ATTR_COUNT; a++) {
		for (unsigned int seed = 1; seed < 200; seed++) {
			random_mad(mad, (enum sr_cm_attr)a, seed * 31 + a);
			ck_assert_int_eq(sr_mad_parse(mad, sizeof(mad), &msg),
					 SR_MAD_ERR_OK);
			ck_assert_int_eq(msg.attr, a);
			ck_assert_int_eq(sr_mad_build(&msg, out), (int)SR_MAD_SIZE);
			ck_assert_msg(memcmp(mad, out, SR_MAD_SIZE) == 0,
				      "%s seed %u", sr_cm_attr_info[a].name, seed);
		}
	}
}
END_TEST

/* A known REQ: host fields land where the spec puts them. */
START_TEST(test_req_fields)
{
	struct sr_cm_msg m = {
		.attr = SR_CM_ATTR_REQ, .tid = 0x1122334455667788ull,
		.local_comm_id = 0xA1B2C3D4, .service_id = 0x0000000001061C46ull,
		.qpn = 0x123456, .psn = 0xABCDEF, .remote_cm_timeout = 20,
		.local_cm_timeout = 20, .transport_type = SR_CM_TRANSPORT_RC,
		.retry_count = 7, .rnr_retry_count = 7, .path_mtu = 3,
		.max_cm_retries = 15, .pkey = 0xFFFF,
		.pri = { .local_lid = 0xFFFF, .remote_lid = 0xFFFF,
			 .flow_label = 0xABCDE, .hop_limit = 64, .sl = 5,
			 .ack_timeout = 18, .packet_rate = 2 },
		.pdata_len = 2, .pdata = { 0xEE, 0xFF },
	};
	uint8_t mad[SR_MAD_SIZE];
	const uint8_t *d = mad + SR_MAD_HDR_SIZE;

	ck_assert_int_eq(sr_mad_build(&m, mad), 256);
	ck_assert_uint_eq(mad[0], 1);
	ck_assert_uint_eq(mad[1], 7);
	ck_assert_uint_eq(mad[2], 2);
	ck_assert_uint_eq(mad[3], 3);
	ck_assert_uint_eq(sr_get_be64(mad + 8), 0x1122334455667788ull);
	ck_assert_uint_eq(sr_get_be16(mad + 16), 0x0010);
	ck_assert_uint_eq(sr_get_be32(d), 0xA1B2C3D4);
	ck_assert_uint_eq(sr_get_be64(d + 8), 0x0000000001061C46ull);
	ck_assert_uint_eq(sr_get_be32(d + 32), 0x12345600u);
	ck_assert_uint_eq(d[43], 20u << 3 | 0);                /* timeout, RC, no E2E */
	ck_assert_uint_eq(sr_get_be32(d + 44), 0xABCDEF00u | 20u << 3 | 7);
	ck_assert_uint_eq(sr_get_be16(d + 48), 0xFFFF);
	ck_assert_uint_eq(d[50], 3u << 4 | 7);
	ck_assert_uint_eq(d[51], 15u << 4);
	ck_assert_uint_eq(sr_get_be16(d + 52), 0xFFFF);
	ck_assert_uint_eq(sr_get_be32(d + 88), 0xABCDEu << 12 | 2);
	ck_assert_uint_eq(d[93], 64);
	ck_assert_uint_eq(d[94], 5u << 4);
	ck_assert_uint_eq(d[95], 18u << 3);
	ck_assert_uint_eq(d[140], 0xEE);
	ck_assert_uint_eq(d[141], 0xFF);
}
END_TEST

static void valid_rtu(uint8_t *mad)
{
	struct sr_cm_msg m = { .attr = SR_CM_ATTR_RTU, .local_comm_id = 1 };

	ck_assert_int_eq(sr_mad_build(&m, mad), 256);
}

START_TEST(test_refusals)
{
	static const struct { unsigned off; uint8_t v; enum sr_mad_err e; } bad[] = {
		{ 0, 2, SR_MAD_ERR_BASE_VERSION },
		{ 1, 0x03, SR_MAD_ERR_CLASS },
		{ 1, 0x81, SR_MAD_ERR_CLASS },
		{ 2, 1, SR_MAD_ERR_CLASS_VERSION },
		{ 2, 3, SR_MAD_ERR_CLASS_VERSION },
		{ 3, 0x05, SR_MAD_ERR_METHOD },
		{ 3, 0x83, SR_MAD_ERR_RESPONSE },
		{ 3, 0x81, SR_MAD_ERR_RESPONSE },
		{ 17, 0x20, SR_MAD_ERR_ATTR },
		{ 17, 0x01, SR_MAD_ERR_ATTR },   /* ClassPortInfo in a Send */
		{ 16, 0xFF, SR_MAD_ERR_ATTR },
	};
	uint8_t mad[SR_MAD_SIZE];
	struct sr_cm_msg msg;

	for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		valid_rtu(mad);
		mad[bad[i].off] = bad[i].v;
		ck_assert_msg(sr_mad_parse(mad, sizeof(mad), &msg) == bad[i].e,
			      "case %u: %s", i,
			      sr_mad_err_name[sr_mad_parse(mad, sizeof(mad), &msg)]);
	}
	valid_rtu(mad);
	for (uint32_t len = 0; len < SR_MAD_SIZE; len++)
		ck_assert_int_eq(sr_mad_parse(mad, len, &msg), SR_MAD_ERR_SHORT);
	ck_assert_int_eq(sr_mad_parse(NULL, 256, &msg), SR_MAD_ERR_SHORT);
	ck_assert_int_eq(sr_mad_parse(mad, 256, &msg), SR_MAD_ERR_OK);
	/* A REJ whose ARI length says more than 72 bytes. */
	{
		struct sr_cm_msg m = { .attr = SR_CM_ATTR_REJ };

		sr_mad_build(&m, mad);
		mad[SR_MAD_HDR_SIZE + 9] = 73u << 1;
		ck_assert_int_eq(sr_mad_parse(mad, 256, &msg), SR_MAD_ERR_FIELD);
	}
}
END_TEST

START_TEST(test_builder_refuses)
{
	uint8_t mad[SR_MAD_SIZE];
	struct sr_cm_msg m = { .attr = SR_CM_ATTR_REQ, .pdata_len = 93 };

	ck_assert_int_eq(sr_mad_build(&m, mad), -EINVAL);
	m.pdata_len = 92;
	ck_assert_int_eq(sr_mad_build(&m, mad), 256);
	m.attr = SR_CM_ATTR_CLASS_PORT_INFO;
	ck_assert_int_eq(sr_mad_build(&m, mad), -EINVAL);
	m.attr = SR_CM_ATTR_COUNT;
	ck_assert_int_eq(sr_mad_build(&m, mad), -EINVAL);
}
END_TEST

/* A Get(ClassPortInfo) parses and is answered as Linux's MAD layer does. */
START_TEST(test_get_resp)
{
	uint8_t mad[SR_MAD_SIZE] = { 1, 7, 2, SR_MAD_METHOD_GET }, out[SR_MAD_SIZE];
	struct sr_cm_msg msg;

	mad[8] = 0x42;
	mad[17] = 0x01;
	ck_assert_int_eq(sr_mad_parse(mad, 256, &msg), SR_MAD_ERR_OK);
	ck_assert_int_eq(msg.attr, SR_CM_ATTR_CLASS_PORT_INFO);
	sr_mad_build_get_resp(mad, out);
	ck_assert_uint_eq(out[3], 0x81);
	ck_assert_uint_eq(sr_get_be16(out + 4), 0x000C);
	ck_assert_uint_eq(out[8], 0x42);
	ck_assert_uint_eq(sr_get_be16(out + 16), 0x0001);
}
END_TEST

START_TEST(test_cma_service_id)
{
	ck_assert_uint_eq(sr_cma_service_id(SR_RDMA_PS_TCP, 7174), 0x0000000001061C06ull);
	ck_assert_uint_eq(sr_cma_service_id(SR_RDMA_PS_UDP, 1), 0x0000000001110001ull);
	ck_assert_uint_eq(sr_cma_service_id(SR_RDMA_PS_IB, 0xFFFF), 0x00000000013FFFFFull);
	ck_assert_uint_eq(sr_cma_service_ps(0x0000000001061C06ull), SR_RDMA_PS_TCP);
	ck_assert_uint_eq(sr_cma_service_port(0x0000000001061C06ull), 7174);
	ck_assert_uint_eq(sr_cma_service_ps(0x1000000001061C06ull), 0);
}
END_TEST

START_TEST(test_cma_hdr_ipv4)
{
	static const uint8_t want[SR_CMA_HDR_SIZE] = {
		0x00, 0x40, 0x9C, 0x40,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 10, 77, 0, 11,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 10, 77, 0, 12,
	};
	struct sr_cma_addr a = { .ip_version = 4, .port = 40000 }, b;
	uint8_t out[SR_CMA_HDR_SIZE];

	memcpy(a.src + 12, (uint8_t[]){ 10, 77, 0, 11 }, 4);
	memcpy(a.dst + 12, (uint8_t[]){ 10, 77, 0, 12 }, 4);
	ck_assert_int_eq(sr_cma_hdr_put(out, &a), 0);
	ck_assert_mem_eq(out, want, sizeof(want));
	ck_assert_int_eq(sr_cma_hdr_get(out, sizeof(out), &b), 0);
	ck_assert_mem_eq(&a, &b, sizeof(a));
	ck_assert_int_eq(sr_cma_hdr_get(out, 35, &b), -EPROTO);
	out[0] = 1;
	ck_assert_int_eq(sr_cma_hdr_get(out, 36, &b), -EPROTONOSUPPORT);
	out[0] = 0;
	out[1] = 0x50;
	ck_assert_int_eq(sr_cma_hdr_get(out, 36, &b), -EPROTONOSUPPORT);
	a.ip_version = 5;
	ck_assert_int_eq(sr_cma_hdr_put(out, &a), -EINVAL);
}
END_TEST

START_TEST(test_cma_hdr_ipv6)
{
	struct sr_cma_addr a = { .ip_version = 6, .port = 1 }, b;
	uint8_t out[SR_CMA_HDR_SIZE];
	uint8_t gid[16];

	for (int i = 0; i < 16; i++) {
		a.src[i] = (uint8_t)i;
		a.dst[i] = (uint8_t)(0xF0 + i);
	}
	ck_assert_int_eq(sr_cma_hdr_put(out, &a), 0);
	ck_assert_uint_eq(out[1], 0x60);
	ck_assert_mem_eq(out + 4, a.src, 16);
	ck_assert_mem_eq(out + 20, a.dst, 16);
	ck_assert_int_eq(sr_cma_hdr_get(out, 36, &b), 0);
	ck_assert_mem_eq(&a, &b, sizeof(a));
	sr_cma_ipv4_gid(gid, (uint8_t[]){ 10, 77, 0, 11 });
	ck_assert_mem_eq(gid, ((uint8_t[]){ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF,
					     0xFF, 10, 77, 0, 11 }), 16);
}
END_TEST

static Suite *cm_mad_suite(void)
{
	Suite *s = suite_create("cm_mad");
	TCase *tc = tcase_create("mad");

	/* A hang guard, not a speed check: under ASan+UBSan on a loaded
	 * 2-core machine the round trips took over Check's default 4 s. */
	tcase_set_timeout(tc, 120);

	tcase_add_loop_test(tc, test_field_offsets, 0, sizeof(spec) / sizeof(spec[0]));
	tcase_add_loop_test(tc, test_pdata_sizes, 0,
			    sizeof(pdata_spec) / sizeof(pdata_spec[0]));
	tcase_add_test(tc, test_no_overlap);
	tcase_add_test(tc, test_round_trip);
	tcase_add_test(tc, test_req_fields);
	tcase_add_test(tc, test_refusals);
	tcase_add_test(tc, test_builder_refuses);
	tcase_add_test(tc, test_get_resp);
	tcase_add_test(tc, test_cma_service_id);
	tcase_add_test(tc, test_cma_hdr_ipv4);
	tcase_add_test(tc, test_cma_hdr_ipv6);
	suite_add_tcase(s, tc);
	return s;
}

SR_CHECK_MAIN(cm_mad_suite)
