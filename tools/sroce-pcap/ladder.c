/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ladder.c — the layout of a ladder diagram: lifelines, highlights,
 * filters, rows and labels (ladder.h).  No drawing here.
 */
#include "ladder.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wire/cnp.h"
#include "wire/hdr.h"
#include "wire/psn.h"

static const struct {
	const char *name;
	uint32_t rgb;
} sr_ladder_marks[SR_LADDER_MARK_MAX] = {
#define SR_X_INFO(e, s, c) [SR_LADDER_##e] = { .name = s, .rgb = c },
	SR_LADDER_MARKS(SR_X_INFO)
#undef SR_X_INFO
};

const char *sr_ladder_mark_name(enum sr_ladder_mark m)
{
	return m < SR_LADDER_MARK_MAX ? sr_ladder_marks[m].name : "?";
}

uint32_t sr_ladder_mark_rgb(enum sr_ladder_mark m)
{
	return m < SR_LADDER_MARK_MAX ? sr_ladder_marks[m].rgb : 0;
}

void sr_ladder_init(struct sr_ladder *l, const struct sr_ladder_opts *opts)
{
	memset(l, 0, sizeof(*l));
	if (opts)
		l->opts = *opts;
}

void sr_ladder_free(struct sr_ladder *l)
{
	free(l->pkt);
	free(l->arrow);
	free(l->ep);
	memset(l, 0, sizeof(*l));
}

/* "WRITE_FIRST psn=5 A"; other transports than RC say which. */
static void sr_ladder_label(struct sr_ladder_arrow *a, const struct sr_pkt *p)
{
	const struct sr_opcode_info *op = sr_opcode_info(p->opcode);
	const char *tt = (p->opcode & SR_TT_MASK) == SR_TT_RC ? "" :
			 sr_transport_name(p->opcode);

	if (p->opcode == SR_OPCODE_CNP)
		snprintf(a->label, sizeof(a->label), "CNP");
	else
		snprintf(a->label, sizeof(a->label), "%s%s%s psn=%u%s", tt,
			 *tt ? " " : "", op ? op->name : "?", a->psn,
			 sr_bth_ackreq(sr_pkt_bth(p)) ? " A" : "");
}

/* The extension headers a student reads: AETH, RETH, atomics, keys. */
static void sr_ladder_detail(struct sr_ladder_arrow *a, const struct sr_pkt *p)
{
	size_t n = 0, len = sizeof(a->detail);
	char syn[48];
	const void *h;

#define SR_LADDER_PUT(...)                                                   \
	do {                                                                 \
		if (n < len)                                                 \
			n += (size_t)snprintf(a->detail + n, len - n,        \
					      __VA_ARGS__);                  \
	} while (0)
	if ((h = sr_pkt_ext(p, SR_EXT_AETH)))
		SR_LADDER_PUT("AETH %s msn=%u",
			      sr_aeth_syndrome_str(sr_aeth_syndrome(h), syn,
						   sizeof(syn)),
			      sr_aeth_msn(h));
	if ((h = sr_pkt_ext(p, SR_EXT_RETH)))
		SR_LADDER_PUT("%sRETH va=%#" PRIx64 " rkey=%#x len=%u",
			      n ? " " : "", sr_reth_va(h), sr_reth_rkey(h),
			      sr_reth_len(h));
	if ((h = sr_pkt_ext(p, SR_EXT_ATMETH)))
		SR_LADDER_PUT("%sAtomicETH va=%#" PRIx64 " rkey=%#x add/swap=%"
			      PRIu64, n ? " " : "", sr_atmeth_va(h),
			      sr_atmeth_rkey(h), sr_atmeth_swap_add(h));
	if ((h = sr_pkt_ext(p, SR_EXT_ATMACK)))
		SR_LADDER_PUT("%sorig=%" PRIu64, n ? " " : "", sr_atmack_orig(h));
	if ((h = sr_pkt_ext(p, SR_EXT_IETH)))
		SR_LADDER_PUT("%sIETH rkey=%#x", n ? " " : "", sr_ieth_rkey(h));
	if ((h = sr_pkt_ext(p, SR_EXT_IMMDT)))
		SR_LADDER_PUT("%simm=%#x", n ? " " : "", sr_immdt_imm(h));
	if (sr_pkt_ecn(p) == SR_ECN_CE)
		SR_LADDER_PUT("%secn=CE", n ? " " : "");
#undef SR_LADDER_PUT
}

int sr_ladder_add(struct sr_ladder *l, const struct sr_pkt *p, bool icrc_ok,
		  double t)
{
	const struct sr_bth *bth = sr_pkt_bth(p);
	struct sr_ladder_arrow *a;
	const void *h;

	if (l->npkt == l->cap) {
		uint32_t cap = l->cap ? 2 * l->cap : 256;
		void *n = realloc(l->pkt, (size_t)cap * sizeof(*l->pkt));

		if (n == NULL)
			return -ENOMEM;
		l->pkt = n;
		l->cap = cap;
	}
	a = &l->pkt[l->npkt++];
	memset(a, 0, sizeof(*a));
	a->t = t;
	a->psn = sr_bth_psn(bth);
	a->opcode = p->opcode;
	a->dqpn = sr_bth_dqpn(bth);
	a->icrc_ok = icrc_ok;
	a->ce = sr_pkt_ecn(p) == SR_ECN_CE;
	sr_pkt_sgid(p, a->sgid);
	sr_pkt_dgid(p, a->dgid);
	h = sr_pkt_ext(p, SR_EXT_DETH);
	a->sqpn = h ? (int32_t)sr_deth_sqpn(h) : -1;
	if ((h = sr_pkt_ext(p, SR_EXT_AETH))) {
		a->has_aeth = true;
		a->syndrome = sr_aeth_syndrome(h);
	}
	sr_ladder_label(a, p);
	sr_ladder_detail(a, p);
	return 0;
}

/* ---- source QPs and per-sender state: one small table of flows ---- */

/* The packets from one address to one QP at another address. */
struct sr_ladder_flow {
	uint8_t sgid[16], dgid[16];
	uint32_t dqpn;
	bool named;                   /* seen on RC/UC/XRC: names a source QP */
	bool req_seen, resp_seen;
	uint32_t req_max, resp_max;   /* highest PSN sent, answered */
};

struct sr_ladder_flows {
	struct sr_ladder_flow *f;
	uint32_t n, cap;
};

static struct sr_ladder_flow *sr_ladder_flow_get(struct sr_ladder_flows *t,
						 const struct sr_ladder_arrow *a)
{
	for (uint32_t i = 0; i < t->n; i++)
		if (t->f[i].dqpn == a->dqpn &&
		    memcmp(t->f[i].sgid, a->sgid, 16) == 0 &&
		    memcmp(t->f[i].dgid, a->dgid, 16) == 0)
			return &t->f[i];
	if (t->n == t->cap) {
		uint32_t cap = t->cap ? 2 * t->cap : 16;
		void *n = realloc(t->f, (size_t)cap * sizeof(*t->f));

		if (n == NULL)
			return NULL;
		t->f = n;
		t->cap = cap;
	}
	memset(&t->f[t->n], 0, sizeof(t->f[0]));
	memcpy(t->f[t->n].sgid, a->sgid, 16);
	memcpy(t->f[t->n].dgid, a->dgid, 16);
	t->f[t->n].dqpn = a->dqpn;
	return &t->f[t->n++];
}

static bool sr_ladder_is_ud(uint8_t opcode)
{
	return (opcode & SR_TT_MASK) == SR_TT_UD;
}

/* The source QP: DETH's on UD, else the first QP the peer sends us to. */
static int32_t sr_ladder_src_qpn(const struct sr_ladder_flows *t,
				 const struct sr_ladder_arrow *a)
{
	if (a->sqpn >= 0)
		return a->sqpn;
	for (uint32_t i = 0; i < t->n; i++)
		if (t->f[i].named && memcmp(t->f[i].sgid, a->dgid, 16) == 0 &&
		    memcmp(t->f[i].dgid, a->sgid, 16) == 0)
			return (int32_t)t->f[i].dqpn;
	return -1;
}

static enum sr_ladder_mark sr_ladder_judge(struct sr_ladder_flow *f,
					   const struct sr_ladder_arrow *a)
{
	const struct sr_opcode_info *op = sr_opcode_info(a->opcode);
	uint8_t type = a->syndrome & SR_AETH_TYPE_MASK;
	bool seen;

	if (!a->icrc_ok)
		return SR_LADDER_ICRC;
	if (a->has_aeth && type == SR_AETH_NAK)
		return SR_LADDER_NAK;
	if (a->has_aeth && type == SR_AETH_RNR_NAK)
		return SR_LADDER_RNR;
	if (op && (op->flags & SR_OPF_REQ) && !sr_ladder_is_ud(a->opcode)) {
		seen = f->req_seen && sr_psn_diff(a->psn, f->req_max) <= 0;
		if (!f->req_seen || sr_psn_diff(a->psn, f->req_max) > 0)
			f->req_max = a->psn;
		f->req_seen = true;
		if (seen)
			return SR_LADDER_RETRANS;
	} else if (op && (op->flags & SR_OPF_RESP)) {
		seen = f->resp_seen && sr_psn_diff(a->psn, f->resp_max) <= 0;
		if (!f->resp_seen || sr_psn_diff(a->psn, f->resp_max) > 0)
			f->resp_max = a->psn;
		f->resp_seen = true;
		if (seen)
			return SR_LADDER_DUP;
	}
	if (a->opcode == SR_OPCODE_CNP || a->ce)
		return SR_LADDER_CONG;
	return SR_LADDER_NONE;
}

/* Index of the lifeline of (gid, qpn), added at the right when new. */
static int sr_ladder_ep(struct sr_ladder *l, const uint8_t gid[16],
			int32_t qpn, uint32_t *idx)
{
	struct sr_ladder_endpoint *e;
	char ip[INET6_ADDRSTRLEN];
	void *n;

	for (uint32_t i = 0; i < l->nep; i++)
		if (l->ep[i].qpn == qpn && memcmp(l->ep[i].gid, gid, 16) == 0) {
			*idx = i;
			return 0;
		}
	n = realloc(l->ep, (size_t)(l->nep + 1) * sizeof(*l->ep));
	if (n == NULL)
		return -ENOMEM;
	l->ep = n;
	e = &l->ep[l->nep];
	memcpy(e->gid, gid, 16);
	e->qpn = qpn;
	if (sr_gid_is_v4(gid))
		inet_ntop(AF_INET, gid + 12, ip, sizeof(ip));
	else
		inet_ntop(AF_INET6, gid, ip, sizeof(ip));
	if (qpn >= 0)
		snprintf(e->name, sizeof(e->name), "%s QP %d", ip, qpn);
	else
		snprintf(e->name, sizeof(e->name), "%s QP ?", ip);
	*idx = l->nep++;
	return 0;
}

static bool sr_ladder_wanted(const struct sr_ladder_opts *o,
			     const struct sr_ladder_arrow *a, int32_t sqpn)
{
	if (o->by_time && (a->t < o->t_lo || a->t > o->t_hi))
		return false;
	if (o->by_psn && (a->psn < o->psn_lo || a->psn > o->psn_hi))
		return false;
	if (o->by_qp && a->dqpn != o->qp && sqpn != (int32_t)o->qp)
		return false;
	return true;
}

int sr_ladder_finish(struct sr_ladder *l)
{
	struct sr_ladder_flows flows = { 0 };
	struct sr_ladder_flow *f;
	double t0 = 0, span = 0;
	int rc = -ENOMEM;

	l->arrow = calloc(l->npkt ? l->npkt : 1, sizeof(*l->arrow));
	if (l->arrow == NULL)
		return -ENOMEM;
	/* every flow first: a source QP may be named by a later packet */
	for (uint32_t i = 0; i < l->npkt; i++) {
		if (sr_ladder_is_ud(l->pkt[i].opcode))
			continue;
		if ((f = sr_ladder_flow_get(&flows, &l->pkt[i])) == NULL)
			goto out_free_flows;
		f->named = true;
	}
	for (uint32_t i = 0; i < l->npkt; i++) {
		struct sr_ladder_arrow *a = &l->pkt[i];
		int32_t sqpn = sr_ladder_src_qpn(&flows, a);

		if ((f = sr_ladder_flow_get(&flows, a)) == NULL)
			goto out_free_flows;
		a->mark = sr_ladder_judge(f, a);
		if (!sr_ladder_wanted(&l->opts, a, sqpn)) {
			l->filtered++;
			continue;
		}
		if (l->opts.max && l->narrow == l->opts.max) {
			l->truncated++;
			continue;
		}
		if (sr_ladder_ep(l, a->sgid, sqpn, &a->from) ||
		    sr_ladder_ep(l, a->dgid, (int32_t)a->dqpn, &a->to))
			goto out_free_flows;
		l->marks[a->mark]++;
		l->arrow[l->narrow++] = a;
	}
	if (l->narrow > 1) {
		t0 = l->arrow[0]->t;
		span = l->arrow[l->narrow - 1]->t - t0;
	}
	for (uint32_t i = 0; i < l->narrow; i++)
		l->arrow[i]->y = l->opts.time == SR_LADDER_PROP && span > 0 ?
			(l->arrow[i]->t - t0) / span * (l->narrow - 1) : i;
	l->rows = l->narrow;
	rc = 0;
out_free_flows:
	free(flows.f);
	return rc;
}

/* "A-B" of two numbers through conv; a single number is A-A. */
static int sr_ladder_range(const char *s, bool psn, double *lo, double *hi)
{
	char *end;

	*lo = psn ? (double)strtoul(s, &end, 0) : strtod(s, &end);
	if (end == s)
		return -EINVAL;
	if (*end == '\0') {
		*hi = *lo;
		return 0;
	}
	if (*end != '-')
		return -EINVAL;
	s = end + 1;
	*hi = psn ? (double)strtoul(s, &end, 0) : strtod(s, &end);
	if (end == s || *end != '\0' || *hi < *lo || *lo < 0)
		return -EINVAL;
	return 0;
}

int sr_ladder_parse_psn(struct sr_ladder_opts *o, const char *s)
{
	double lo, hi;

	if (sr_ladder_range(s, true, &lo, &hi) || hi > SR_PSN_MASK)
		return -EINVAL;
	o->by_psn = true;
	o->psn_lo = (uint32_t)lo;
	o->psn_hi = (uint32_t)hi;
	return 0;
}

int sr_ladder_parse_time(struct sr_ladder_opts *o, const char *s)
{
	if (strcmp(s, "prop") == 0) {
		o->time = SR_LADDER_PROP;
		return 0;
	}
	if (strcmp(s, "compressed") == 0) {
		o->time = SR_LADDER_COMPRESSED;
		return 0;
	}
	if (sr_ladder_range(s, false, &o->t_lo, &o->t_hi))
		return -EINVAL;
	o->by_time = true;
	return 0;
}
