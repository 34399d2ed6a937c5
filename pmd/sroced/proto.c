/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * proto.c — sroced's control messages: headers and whole-message checks
 * (proto.h).
 */
#include <errno.h>
#include <string.h>

#include "sroced/proto.h"

void srd_hdr_init(struct srd_hdr *h, uint16_t type, size_t len)
{
	memset(h, 0, len);
	h->magic = SRD_MAGIC;
	h->version = SRD_VERSION;
	h->type = type;
	h->len = (uint32_t)len;
}

/* The one size each message has, by type and direction. */
static size_t srd_size(uint16_t type, int reply)
{
	switch (type) {
	case SRD_HELLO:
		return reply ? sizeof(struct srd_hello_reply)
			     : sizeof(struct srd_hello);
	case SRD_DEV_INFO:
		return reply ? sizeof(struct srd_dev_info)
			     : sizeof(struct srd_dev_req);
	case SRD_ATTACH:
		return reply ? sizeof(struct srd_attach_reply)
			     : sizeof(struct srd_dev_req);
	case SRD_QP_PEER:
		return reply ? sizeof(struct srd_hdr)
			     : sizeof(struct srd_qp_peer);
	case SRD_LISTEN:
		return reply ? sizeof(struct srd_hdr)
			     : sizeof(struct srd_listen_req);
	case SRD_MCAST:
		return reply ? sizeof(struct srd_hdr)
			     : sizeof(struct srd_mcast_req);
	default:
		return 0;
	}
}

static int srd_str_ok(const char *s, size_t n)
{
	return memchr(s, '\0', n) != NULL;
}

static int srd_dev_info_ok(const struct srd_dev_info *d)
{
	return srd_str_ok(d->name, sizeof(d->name)) &&
	       d->n_ipv6 <= SRD_IPV6_MAX && d->ipv4_prefix <= 32;
}

int srd_check(const void *msg, size_t len, int reply, uint16_t *type)
{
	const struct srd_hdr *h = msg;
	uint16_t t;

	if (msg == NULL || len < sizeof(*h) || h->magic != SRD_MAGIC ||
	    h->version != SRD_VERSION || h->len != len)
		return -EPROTO;
	t = h->type;
	if (reply) {
		if (!(t & SRD_REPLY))
			return -EPROTO;
		t &= (uint16_t)~SRD_REPLY;
	} else if (h->status != 0) {
		return -EPROTO;
	}
	/* an error reply is a bare header; type 0 answers an unknown one */
	if (reply && h->status < 0 && len == sizeof(*h) && t < SRD_TYPE_MAX)
		goto ok;
	if (!reply && t == SRD_QP_PEER && len == sizeof(struct srd_qp_peer)) {
		const struct srd_qp_peer *q = msg;

		if (h->status != 0 || q->on > 1 || q->dqpn > 0xffffffu)
			return -EPROTO;
		goto ok;
	}
	if (t == 0 || t >= SRD_TYPE_MAX || len != srd_size(t, reply) ||
	    h->status != 0)
		return -EPROTO;
	if (!reply && t == SRD_LISTEN &&
	    (((const struct srd_listen_req *)msg)->on > 1 ||
	     ((const struct srd_listen_req *)msg)->pad != 0))
		return -EPROTO;
	if (!reply && t == SRD_MCAST &&
	    (((const struct srd_mcast_req *)msg)->on > 1 ||
	     ((const struct srd_mcast_req *)msg)->pad != 0))
		return -EPROTO;
	if (reply) {
		if (t == SRD_DEV_INFO && !srd_dev_info_ok(msg))
			return -EPROTO;
		if (t == SRD_ATTACH) {
			const struct srd_attach_reply *a = msg;

			if (!srd_dev_info_ok(&a->dev) ||
			    !srd_str_ok(a->memif_socket,
					sizeof(a->memif_socket)) ||
			    a->qpn_base < SRD_QPN_BLOCK ||
			    a->qpn_base % SRD_QPN_BLOCK != 0 ||
			    a->qpn_base >= SRD_QPN_BLOCK * SRD_BLOCKS)
				return -EPROTO;
		}
	}
	if (!reply && t == SRD_HELLO &&
	    !srd_str_ok(((const struct srd_hello *)msg)->comm, SRD_NAME_MAX))
		return -EPROTO;
ok:
	*type = h->type;
	return 0;
}
