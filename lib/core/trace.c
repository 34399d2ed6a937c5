/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * trace.c — the live QP trace's ring and its lines (trace.h).
 */
#include <stdio.h>
#include <string.h>

#include "core/trace.h"
#include "qp/qp.h"
#include "qp/wr.h"
#include "wire/hdr.h"
#include "wire/opcode.h"

static const struct {
	const char *name, *side, *fmt;
} sr_trace_kinds[SR_TRACE_KIND_MAX] = {
#define SR_X(n, s, f) [SR_TRACE_##n] = { .name = #n, .side = s, .fmt = f },
	SR_TRACE_KINDS(SR_X)
#undef SR_X
};

static const char *const sr_trace_whys[SR_TRACE_WHY_MAX] = {
#define SR_X(n, t) [SR_TRACE_WHY_##n] = t,
	SR_TRACE_WHY_LIST(SR_X)
#undef SR_X
};

void sr_trace_ring_init(struct sr_trace_ring *r)
{
	memset(r, 0, offsetof(struct sr_trace_ring, rec));
	r->len = SR_TRACE_RING_LEN;
}

void sr_trace_put(struct sr_trace_ring *r, const struct sr_trace_rec *e)
{
	uint64_t head = r->head;      /* the producer's own */
	uint64_t tail = __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);
	uint64_t need = r->pending_lost ? 2 : 1;

	if (head - tail + need > SR_TRACE_RING_LEN) {
		r->pending_lost++;
		__atomic_store_n(&r->lost, r->lost + 1, __ATOMIC_RELAXED);
		return;
	}
	if (r->pending_lost) {
		r->rec[head & (SR_TRACE_RING_LEN - 1)] = (struct sr_trace_rec){
			.t_ns = e->t_ns, .qpn = e->qpn, .kind = SR_TRACE_LOST,
			.a = r->pending_lost,
		};
		r->pending_lost = 0;
		head++;
	}
	r->rec[head & (SR_TRACE_RING_LEN - 1)] = *e;
	__atomic_store_n(&r->head, head + 1, __ATOMIC_RELEASE);
}

unsigned int sr_trace_get(struct sr_trace_ring *r, struct sr_trace_rec *out,
			  unsigned int max)
{
	uint64_t head = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
	uint64_t tail = r->tail;      /* the consumer's own */
	unsigned int n = 0;

	if (head - tail > SR_TRACE_RING_LEN)   /* never: a broken producer */
		tail = head - SR_TRACE_RING_LEN;
	while (tail != head && n < max)
		out[n++] = r->rec[tail++ & (SR_TRACE_RING_LEN - 1)];
	__atomic_store_n(&r->tail, tail, __ATOMIC_RELEASE);
	return n;
}

void sr_trace_skip(struct sr_trace_ring *r)
{
	__atomic_store_n(&r->tail, __atomic_load_n(&r->head, __ATOMIC_ACQUIRE),
			 __ATOMIC_RELEASE);
}

const char *sr_trace_kind_name(unsigned int kind)
{
	return kind < SR_TRACE_KIND_MAX ? sr_trace_kinds[kind].name : NULL;
}

const char *sr_trace_kind_side(unsigned int kind)
{
	return kind < SR_TRACE_KIND_MAX ? sr_trace_kinds[kind].side : NULL;
}

const char *sr_trace_kind_format(unsigned int kind)
{
	return kind < SR_TRACE_KIND_MAX ? sr_trace_kinds[kind].fmt : NULL;
}

const char *sr_trace_why_str(unsigned int why)
{
	return why < SR_TRACE_WHY_MAX ? sr_trace_whys[why] : "?";
}

static const char *sr_trace_wc_opcode(unsigned int op)
{
	switch (op) {
#define SR_X(n, v) case SR_WC_OP_##n: return #n;
	SR_WC_OPCODE_LIST(SR_X)
#undef SR_X
	default:
		return "?";
	}
}

/* The field a conversion names, or -1. */
static long sr_trace_field(const struct sr_trace_rec *e, char f)
{
	switch (f) {
	case 'p': return e->p;
	case 'f': return e->f;
	case 'a': return (long)e->a;
	case 'b': return (long)e->b;
	case 'c': return (long)e->c;
	case 'd': return (long)e->d;
	default: return -1;
	}
}

/* One conversion of field value v into buf. */
static const char *sr_trace_conv(char conv, unsigned long v, char *buf,
				 size_t len)
{
	const struct sr_opcode_info *op;

	switch (conv) {
	case 'u':
		snprintf(buf, len, "%lu", v);
		return buf;
	case 'x':
		snprintf(buf, len, "%#lx", v);
		return buf;
	case 'o':
		op = sr_opcode_info((uint8_t)v);
		return op != NULL ? op->name : "opcode?";
	case 's':
		return sr_qp_state_str((enum sr_qp_state)v);
	case 'w':
		return sr_wc_status_str((enum sr_wc_status)v);
	case 'W':
		return sr_trace_wc_opcode((unsigned int)v);
	case 'k':
		return sr_aeth_syndrome_str((uint8_t)v, buf, (unsigned int)len);
	case 'r':
		return sr_trace_why_str((unsigned int)v);
	default:
		return NULL;
	}
}

int sr_trace_format(const struct sr_trace_rec *e, uint64_t t0_ns, char *buf,
		    size_t len)
{
	uint64_t t = e->t_ns >= t0_ns ? e->t_ns - t0_ns : 0;
	const char *fmt = sr_trace_kind_format(e->kind);
	size_t n;
	int w;

	if (len == 0)
		return 0;
	w = snprintf(buf, len, "%llu.%06llu qp %#x %-4s ",
		     (unsigned long long)(t / 1000000000u),
		     (unsigned long long)(t % 1000000000u / 1000u), e->qpn,
		     fmt ? sr_trace_kind_side(e->kind) : "?");
	n = w < 0 ? 0 : (size_t)w;
	if (n >= len)
		return (int)(len - 1);
	if (fmt == NULL) {
		snprintf(buf + n, len - n, "event %u?", e->kind);
		return (int)strlen(buf);
	}
	while (*fmt && n + 1 < len) {
		char tmp[64];
		const char *s;
		long v;

		if (fmt[0] != '%' || fmt[1] == '\0' ||
		    (v = sr_trace_field(e, fmt[2])) < 0 ||
		    (s = sr_trace_conv(fmt[1], (unsigned long)v, tmp,
				       sizeof(tmp))) == NULL) {
			buf[n++] = *fmt++;
			continue;
		}
		w = snprintf(buf + n, len - n, "%s", s);
		n += w < 0 ? 0 : (size_t)w;
		if (n >= len)
			n = len - 1;
		fmt += 3;
	}
	buf[n] = '\0';
	return (int)n;
}
