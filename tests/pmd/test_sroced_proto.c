/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_sroced_proto.c — sroced's control messages (pmd/sroced/proto.h):
 * every well-formed request and reply passes srd_check whole, and each
 * kind of damage is refused: short, stretched, bad magic / version /
 * type / status, the wrong direction, strings without their NUL, an
 * ATTACH reply with a QPN block that is not one.
 */
#include <check.h>
#include <errno.h>
#include <string.h>

#include "sr_check.h"
#include "sroced/proto.h"

static struct srd_hello hello(void)
{
	struct srd_hello h;

	srd_hdr_init(&h.h, SRD_HELLO, sizeof(h));
	strcpy(h.comm, "test");
	return h;
}

static struct srd_attach_reply attach_reply(void)
{
	struct srd_attach_reply r;

	srd_hdr_init(&r.h, SRD_ATTACH | SRD_REPLY, sizeof(r));
	strcpy(r.dev.name, "sroce0");
	strcpy(r.memif_socket, "/run/sroce/clients.sock");
	r.qpn_base = 3 * SRD_QPN_BLOCK;
	return r;
}

START_TEST(test_good)
{
	struct srd_hello h = hello();
	struct srd_dev_req q;
	struct srd_attach_reply r = attach_reply();
	struct srd_hdr e;
	uint16_t type = 0;

	ck_assert_int_eq(srd_check(&h, sizeof(h), 0, &type), 0);
	ck_assert_uint_eq(type, SRD_HELLO);
	srd_hdr_init(&q.h, SRD_ATTACH, sizeof(q));
	ck_assert_int_eq(srd_check(&q, sizeof(q), 0, &type), 0);
	ck_assert_uint_eq(type, SRD_ATTACH);
	ck_assert_int_eq(srd_check(&r, sizeof(r), 1, &type), 0);
	ck_assert_uint_eq(type, SRD_ATTACH | SRD_REPLY);
	{
		struct srd_qp_peer qp;
		struct srd_hdr ok;

		srd_hdr_init(&qp.h, SRD_QP_PEER, sizeof(qp));
		qp.qpn = 0x1005;
		qp.on = 1;
		ck_assert_int_eq(srd_check(&qp, sizeof(qp), 0, &type), 0);
		qp.on = 2;
		ck_assert_int_eq(srd_check(&qp, sizeof(qp), 0, &type), -EPROTO);
		qp.on = 0;
		qp.dqpn = 0x1000000;                 /* 25 bits */
		ck_assert_int_eq(srd_check(&qp, sizeof(qp), 0, &type), -EPROTO);
		/* its reply is a bare header, status 0 */
		srd_hdr_init(&ok, SRD_QP_PEER | SRD_REPLY, sizeof(ok));
		ck_assert_int_eq(srd_check(&ok, sizeof(ok), 1, &type), 0);
	}
	{
		struct srd_listen_req l;
		struct srd_hdr ok;

		srd_hdr_init(&l.h, SRD_LISTEN, sizeof(l));
		l.service_id = 0x0000000001061c06ull;
		l.on = 1;
		ck_assert_int_eq(srd_check(&l, sizeof(l), 0, &type), 0);
		ck_assert_uint_eq(type, SRD_LISTEN);
		l.on = 2;
		ck_assert_int_eq(srd_check(&l, sizeof(l), 0, &type), -EPROTO);
		l.on = 0;
		l.pad = 1;
		ck_assert_int_eq(srd_check(&l, sizeof(l), 0, &type), -EPROTO);
		l.pad = 0;
		ck_assert_int_eq(srd_check(&l, sizeof(l) - 1, 0, &type), -EPROTO);
		srd_hdr_init(&ok, SRD_LISTEN | SRD_REPLY, sizeof(ok));
		ck_assert_int_eq(srd_check(&ok, sizeof(ok), 1, &type), 0);
		ok.status = -EADDRINUSE;
		ck_assert_int_eq(srd_check(&ok, sizeof(ok), 1, &type), 0);
	}
	{
		struct srd_mcast_req m;

		srd_hdr_init(&m.h, SRD_MCAST, sizeof(m));
		m.gid[0] = 0xff;
		m.on = 1;
		ck_assert_int_eq(srd_check(&m, sizeof(m), 0, &type), 0);
		ck_assert_uint_eq(type, SRD_MCAST);
		m.on = 2;
		ck_assert_int_eq(srd_check(&m, sizeof(m), 0, &type), -EPROTO);
		m.on = 0;
		m.pad = 7;
		ck_assert_int_eq(srd_check(&m, sizeof(m), 0, &type), -EPROTO);
		m.pad = 0;
		ck_assert_int_eq(srd_check(&m, sizeof(m) + 1, 0, &type), -EPROTO);
	}
	/* an error reply is a bare header, also to a request of no type */
	srd_hdr_init(&e, SRD_UNKNOWN | SRD_REPLY, sizeof(e));
	e.status = -EPROTO;
	ck_assert_int_eq(srd_check(&e, sizeof(e), 1, &type), 0);
}
END_TEST

START_TEST(test_bad)
{
	struct srd_hello h = hello(), x;
	struct srd_attach_reply r = attach_reply(), y;
	struct srd_hdr e;
	uint16_t type;

	ck_assert_int_eq(srd_check(NULL, 0, 0, &type), -EPROTO);
	ck_assert_int_eq(srd_check(&h, sizeof(h) - 1, 0, &type), -EPROTO);
	ck_assert_int_eq(srd_check(&h, 4, 0, &type), -EPROTO);
	x = h; x.h.magic ^= 1;
	ck_assert_int_eq(srd_check(&x, sizeof(x), 0, &type), -EPROTO);
	x = h; x.h.version = 2;
	ck_assert_int_eq(srd_check(&x, sizeof(x), 0, &type), -EPROTO);
	x = h; x.h.type = SRD_TYPE_MAX;
	ck_assert_int_eq(srd_check(&x, sizeof(x), 0, &type), -EPROTO);
	x = h; x.h.type = 0;
	ck_assert_int_eq(srd_check(&x, sizeof(x), 0, &type), -EPROTO);
	x = h; x.h.status = -1;                    /* requests carry none */
	ck_assert_int_eq(srd_check(&x, sizeof(x), 0, &type), -EPROTO);
	x = h; x.h.len = sizeof(x) + 1;            /* length says otherwise */
	ck_assert_int_eq(srd_check(&x, sizeof(x), 0, &type), -EPROTO);
	x = h; memset(x.comm, 'x', sizeof(x.comm));  /* no NUL */
	ck_assert_int_eq(srd_check(&x, sizeof(x), 0, &type), -EPROTO);
	ck_assert_int_eq(srd_check(&h, sizeof(h), 1, &type), -EPROTO); /* not a reply */
	/* a DEV_INFO request the size of a HELLO */
	x = h; x.h.type = SRD_DEV_INFO;
	ck_assert_int_eq(srd_check(&x, sizeof(x), 0, &type), -EPROTO);
	y = r; y.qpn_base = 0;                     /* the daemon's block */
	ck_assert_int_eq(srd_check(&y, sizeof(y), 1, &type), -EPROTO);
	y = r; y.qpn_base += 1;                    /* not a block start */
	ck_assert_int_eq(srd_check(&y, sizeof(y), 1, &type), -EPROTO);
	y = r; y.qpn_base = SRD_QPN_BLOCK * SRD_BLOCKS;
	ck_assert_int_eq(srd_check(&y, sizeof(y), 1, &type), -EPROTO);
	y = r; y.dev.n_ipv6 = SRD_IPV6_MAX + 1;
	ck_assert_int_eq(srd_check(&y, sizeof(y), 1, &type), -EPROTO);
	y = r; memset(y.memif_socket, 'a', sizeof(y.memif_socket));
	ck_assert_int_eq(srd_check(&y, sizeof(y), 1, &type), -EPROTO);
	y = r; y.h.status = -EAGAIN;               /* full size with an error */
	ck_assert_int_eq(srd_check(&y, sizeof(y), 1, &type), -EPROTO);
	srd_hdr_init(&e, SRD_HELLO | SRD_REPLY, sizeof(e));
	e.status = 0;                              /* a bare header, no error */
	ck_assert_int_eq(srd_check(&e, sizeof(e), 1, &type), -EPROTO);
}
END_TEST

static Suite *proto_suite(void)
{
	Suite *s = suite_create("sroced_proto");
	TCase *tc = tcase_create("proto");

	tcase_add_test(tc, test_good);
	tcase_add_test(tc, test_bad);
	suite_add_tcase(s, tc);
	return s;
}

SR_CHECK_MAIN(proto_suite)
