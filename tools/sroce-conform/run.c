/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * run.c — the tester (run.h): the port, the agent connection, the steps.
 *
 * Inline progress: the tester calls sr_pmd_progress() itself, also while it
 * waits for the agent's answers, so ARP and the DUT's frames are served
 * all the time.  Every frame sent and received for a scenario goes to its
 * capture (pmd/capture.h), numbered as tshark and sroce-pcap number them.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "capture.h"
#include "gid.h"
#include "pmd.h"
#include "run.h"
#include "scfile.h"
#include "wire/build.h"
#include "wire/parse.h"

#define SC_RXQ 512
#define SC_FRAME_MAX 9216
#define SC_AGENT_MS 15000u      /* an agent that says nothing this long is dead */
#define SC_TQPN_BASE 0x00c000u
#define SC_REPLY_MAX 70000

struct sc_rxf {
	uint32_t len;
	uint8_t data[SC_FRAME_MAX];
};

struct sc_tester {
	struct sc_tester_opts o;
	struct sr_pmd_dev *dev;
	const struct sr_link_ops *ops;
	uint8_t mac[6], gid[16];
	int fd;                     /* agent, -1 when lost */
	char dut_name[64];
	/* the scenario being played */
	struct sr_capture *cap;
	uint32_t frames;            /* written to cap */
	struct sc_rxf *rxq;         /* received, not yet consumed */
	uint32_t rx_head, rx_tail;
	uint32_t *rx_frameno;       /* their numbers in cap */
	bool answered;
	uint8_t dut_mac[6], dut_gid[16];
	struct sc_ctx ctx;
	char reply[SC_REPLY_MAX];
	/* the trace: what each step observed (written live, read in replay) */
	FILE *trace;
	bool replay;
	const char *rp;             /* replay: the next trace line */
	bool out_of_step;           /* replay: the trace does not fit */
	uint8_t rframe[SC_FRAME_MAX];
};

static uint64_t sc_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void sc_nap(void)
{
	const struct timespec ts = { .tv_nsec = 20000 };

	nanosleep(&ts, NULL);
}

static void sc_record(struct sc_tester *t, const uint8_t *f, uint32_t len)
{
	if (t->cap != NULL && sr_capture_frame(t->cap, f, len) == 0)
		t->frames++;
}

static void sc_rx(void *ctx, const struct sr_link_frame *f, unsigned int n)
{
	struct sc_tester *t = ctx;

	for (unsigned int i = 0; i < n; i++) {
		struct sc_rxf *slot;

		if (t->cap == NULL || f[i].len > SC_FRAME_MAX)
			continue;       /* between scenarios: stale, dropped */
		if (t->rx_tail - t->rx_head == SC_RXQ)
			continue;
		sc_record(t, f[i].data, f[i].len);
		slot = &t->rxq[t->rx_tail % SC_RXQ];
		memcpy(slot->data, f[i].data, f[i].len);
		slot->len = f[i].len;
		t->rx_frameno[t->rx_tail % SC_RXQ] = t->frames;
		t->rx_tail++;
		t->answered = true;
	}
}

static void sc_progress(struct sc_tester *t)
{
	if (t->replay)
		return;
	for (int i = 0; i < 20; i++)
		if (sr_pmd_progress(t->dev) == 0)
			break;
	sc_nap();
}

static void sc_progress_ms(struct sc_tester *t, uint32_t ms)
{
	uint64_t end = sc_now_ms() + ms;

	if (t->replay)
		return;
	while (sc_now_ms() < end)
		sc_progress(t);
}

/* ---- the trace ---- */

static void sc_trace_hex(FILE *f, const uint8_t *p, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		fprintf(f, "%02x", p[i]);
}

/* The next line of the replayed trace (without its newline) in buf. */
static bool sc_trace_next(struct sc_tester *t, char *buf, size_t cap)
{
	const char *nl;
	size_t n;

	if (t->rp == NULL || *t->rp == '\0')
		return false;
	nl = strchr(t->rp, '\n');
	n = nl ? (size_t)(nl - t->rp) : strlen(t->rp);
	if (n >= cap)
		return false;
	memcpy(buf, t->rp, n);
	buf[n] = '\0';
	t->rp += n + (nl != NULL);
	return true;
}

/* ---- the agent ---- */

static int sc_agent_connect(struct sc_tester *t)
{
	struct addrinfo hints = { .ai_family = AF_INET,
				  .ai_socktype = SOCK_STREAM };
	struct addrinfo *ai;
	char port[16];
	int fd, one = 1;

	snprintf(port, sizeof(port), "%d", t->o.agent_port);
	if (getaddrinfo(t->o.agent_host, port, &hints, &ai) != 0)
		return -EHOSTUNREACH;
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, ai->ai_addr, ai->ai_addrlen) != 0) {
		int err = -errno;

		if (fd >= 0)
			close(fd);
		freeaddrinfo(ai);
		return err;
	}
	freeaddrinfo(ai);
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	t->fd = fd;
	return 0;
}

/*
 * Send one command, progress the port until the answer line is in
 * t->reply.  0, or -EPIPE (the agent went away) / -ETIMEDOUT.
 */
static int sc_agent(struct sc_tester *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int sc_agent(struct sc_tester *t, const char *fmt, ...)
{
	char cmd[512];
	size_t n = 0;
	uint64_t end;
	va_list ap;
	int len;

	if (t->replay) {
		static char line[SC_REPLY_MAX + 4];

		if (!sc_trace_next(t, line, sizeof(line)) ||
		    strncmp(line, "A ", 2) != 0) {
			t->out_of_step = true;
			snprintf(t->reply, sizeof(t->reply),
				 "the trace has no agent answer here");
			return -EPIPE;
		}
		memcpy(t->reply, line + 2, strnlen(line + 2, sizeof(t->reply) - 1));
		t->reply[strnlen(line + 2, sizeof(t->reply) - 1)] = '\0';
		return 0;
	}
	if (t->fd < 0)
		return -EPIPE;
	va_start(ap, fmt);
	len = vsnprintf(cmd, sizeof(cmd) - 1, fmt, ap);
	va_end(ap);
	if (len < 0 || len >= (int)sizeof(cmd) - 1)
		return -EINVAL;
	cmd[len++] = '\n';
	if (send(t->fd, cmd, (size_t)len, MSG_NOSIGNAL) != len)
		goto lost;
	end = sc_now_ms() + SC_AGENT_MS;
	while (sc_now_ms() < end) {
		struct pollfd p = { .fd = t->fd, .events = POLLIN };
		ssize_t r;

		sc_progress(t);
		if (poll(&p, 1, 0) <= 0)
			continue;
		r = recv(t->fd, t->reply + n, sizeof(t->reply) - 1 - n, 0);
		if (r <= 0)
			goto lost;
		n += (size_t)r;
		t->reply[n] = '\0';
		char *nl = strchr(t->reply, '\n');

		if (nl != NULL) {
			*nl = '\0';
			if (t->trace != NULL)
				fprintf(t->trace, "A %s\n", t->reply);
			return 0;
		}
		if (n == sizeof(t->reply) - 1)
			goto lost;
	}
	snprintf(t->reply, sizeof(t->reply), "the agent did not answer within %u ms",
		 SC_AGENT_MS);
	close(t->fd);
	t->fd = -1;
	return -ETIMEDOUT;
lost:
	snprintf(t->reply, sizeof(t->reply),
		 "the agent closed the connection (did it die?)");
	close(t->fd);
	t->fd = -1;
	return -EPIPE;
}

int sc_tester_create(const struct sc_tester_opts *o, struct sc_tester **out,
		     char *err, size_t cap)
{
	struct sc_tester *t = calloc(1, sizeof(*t));
	int rc;

	if (t == NULL)
		return -ENOMEM;
	t->o = *o;
	t->fd = -1;
	t->rxq = calloc(SC_RXQ, sizeof(*t->rxq));
	t->rx_frameno = calloc(SC_RXQ, sizeof(*t->rx_frameno));
	if (t->rxq == NULL || t->rx_frameno == NULL) {
		sc_tester_destroy(t);
		return -ENOMEM;
	}
	rc = sr_pmd_open(&t->dev);
	if (rc != 0) {
		snprintf(err, cap, "cannot open the sroce port (%s)",
			 strerror(-rc));
		sc_tester_destroy(t);
		return rc;
	}
	t->ops = sr_pmd_link_ops();
	sr_pmd_set_rx_handler(t->dev, sc_rx, t);
	if (sr_pmd_link_wait(t->dev, 10000) != 0) {
		snprintf(err, cap, "the port's link did not come up");
		sc_tester_destroy(t);
		return -ENETDOWN;
	}
	sr_pmd_mac(t->dev, t->mac);
	memcpy(t->gid, sr_pmd_gids(t->dev)->entry[1].gid, 16);
	for (int i = 0; i < 50; i++) {
		rc = sc_agent_connect(t);
		if (rc == 0)
			break;
		sc_progress_ms(t, 100);
	}
	if (rc != 0) {
		snprintf(err, cap, "cannot reach the agent at %s:%d (%s)",
			 o->agent_host, o->agent_port, strerror(-rc));
		sc_tester_destroy(t);
		return rc;
	}
	rc = sc_agent(t, "HELLO");
	if (rc != 0 || strncmp(t->reply, "OK agent 1", 10) != 0) {
		snprintf(err, cap, "the agent's greeting: %s", t->reply);
		sc_tester_destroy(t);
		return -EPROTO;
	}
	const char *d = strstr(t->reply, "dev=");

	snprintf(t->dut_name, sizeof(t->dut_name), "%s", d ? d + 4 : "?");
	*out = t;
	return 0;
}

void sc_tester_destroy(struct sc_tester *t)
{
	if (t == NULL)
		return;
	if (t->fd >= 0) {
		sc_agent(t, "BYE");
		if (t->fd >= 0)
			close(t->fd);
	}
	sr_pmd_dev_destroy(t->dev);
	free(t->rxq);
	free(t->rx_frameno);
	free(t);
}

const char *sc_tester_dut(const struct sc_tester *t)
{
	return t->dut_name;
}

bool sc_tester_dut_answered(const struct sc_tester *t)
{
	return t->answered;
}

/* ---- building and sending ---- */

static uint32_t sc_rkey(const struct sc_tester *t, uint64_t v, bool has)
{
	if (!has || v == SC_GOOD)
		return t->ctx.rkey;
	if (v == SC_BAD_RKEY)
		return (t->ctx.rkey & ~0xffu) | ((t->ctx.rkey + 1) & 0xffu);
	if (v == SC_MW_RKEY)
		return t->ctx.mw_rkey;
	return (uint32_t)v;
}

#define HAS(st, f) ((st)->has & (1u << SC_F_##f))

static int sc_send_one(struct sc_tester *t, const struct sc_scenario *sc,
		       const struct sc_step *st, uint32_t k, char *why,
		       size_t cap)
{
	static uint8_t frame[SC_FRAME_MAX];
	static uint8_t payload[SR_MAX_PAYLOAD];
	uint32_t pay = st->payload, len;
	struct sr_build b = {
		.hop_limit = 64, .ip_df = true,
		.sport = (uint16_t)(0xc000 | (t->ctx.tqpn & 0x3fff)),
		.opcode = st->opcode, .se = HAS(st, SE),
		.pkey = HAS(st, PKEY) ? (uint16_t)st->pkey : 0xffff,
		.ackreq = HAS(st, ACKREQ),
		.deth_qkey = HAS(st, QKEY) ? st->qkey : sc->qkey,
		.deth_sqpn = t->ctx.tqpn,
		.imm = st->imm, .atm_swap_add = st->swap, .atm_cmp = st->cmp,
		.atmack_orig = st->orig,
	};
	struct sr_pkt pkt;
	void *cookie;
	uint8_t *buf;
	int off;

	memcpy(b.dmac, t->dut_mac, 6);
	memcpy(b.smac, t->mac, 6);
	memcpy(b.sgid, t->gid, 16);
	memcpy(b.dgid, t->dut_gid, 16);
	b.dqpn = !HAS(st, DQPN) || st->dqpn == SC_GOOD ? t->ctx.dqpn :
							 (uint32_t)st->dqpn;
	b.psn = (sc_step_psn(st, &t->ctx, st->opcode) + k) & 0xffffff;
	b.reth_va = t->ctx.va + st->va + (uint64_t)k * pay;
	b.reth_rkey = sc_rkey(t, st->rkey, HAS(st, RKEY));
	b.reth_len = HAS(st, LEN) ? st->len : pay;
	b.atm_va = t->ctx.va + st->va;
	b.atm_rkey = b.reth_rkey;
	b.ieth_rkey = b.reth_rkey;
	b.aeth_syndrome = !HAS(st, AETH) || st->aeth == SC_AETH_ACK_ANY ?
				  SR_AETH_CREDITS_INVALID : (uint8_t)st->aeth;
	b.aeth_msn = st->msn;
	for (uint32_t i = 0; i < pay; i++)
		payload[i] = sc_pattern(st->pattern, st->off + k * pay + i);
	off = sr_build_hdrs(frame, sizeof(frame), &b, pay, &pkt);
	if (off < 0) {
		snprintf(why, cap, "the builder refused this frame (%s)",
			 strerror(-off));
		return off;
	}
	memcpy(frame + off, payload, pay);
	if (HAS(st, TVER))
		frame[pkt.bth + 1] = (uint8_t)((frame[pkt.bth + 1] & 0xf0) |
					       st->tver);
	len = sr_build_finish(frame, &pkt);
	if (HAS(st, BADICRC))
		frame[len - 1] ^= 0x5a;
	if (t->replay)
		return 0;
	if (len > sr_pmd_mtu(t->dev) + 18u) {
		snprintf(why, cap, "the tester's port (IP MTU %u) cannot carry this %u-byte frame",
			 sr_pmd_mtu(t->dev), len);
		return -EMSGSIZE;
	}
	buf = NULL;
	for (int i = 0; i < 100000; i++) {
		buf = t->ops->tx_alloc(sr_pmd_link(t->dev), len, &cookie);
		if (buf != NULL)
			break;
		sc_progress(t);
	}
	if (buf == NULL) {
		snprintf(why, cap, "the tester's port has no buffer");
		return -ENOBUFS;
	}
	memcpy(buf, frame, len);
	t->ops->tx_submit(sr_pmd_link(t->dev), cookie, len);
	sc_record(t, frame, len);
	sc_progress(t);
	return 0;
}

/* ---- the steps ---- */

/* "F NO HEX" is a frame, "T" the wait that ended with none. */
static bool sc_pop_replay(struct sc_tester *t, uint8_t **f, uint32_t *len,
			  uint32_t *no)
{
	static char line[2 * SC_FRAME_MAX + 32];
	const char *hex;
	uint32_t n = 0;

	if (!sc_trace_next(t, line, sizeof(line)))
		goto out_of_step;
	if (strcmp(line, "T") == 0)
		return false;
	if (sscanf(line, "F %u ", no) != 1 || (hex = strchr(line + 2, ' ')) == NULL)
		goto out_of_step;
	for (hex++; hex[0] && hex[1] && n < SC_FRAME_MAX; hex += 2) {
		unsigned int v;

		if (sscanf(hex, "%2x", &v) != 1)
			goto out_of_step;
		t->rframe[n++] = (uint8_t)v;
	}
	*f = t->rframe;
	*len = n;
	return true;
out_of_step:
	t->out_of_step = true;
	return false;
}

static bool sc_pop(struct sc_tester *t, uint32_t ms, uint8_t **f,
		   uint32_t *len, uint32_t *no)
{
	uint64_t end = sc_now_ms() + ms;

	if (t->replay)
		return sc_pop_replay(t, f, len, no);
	for (;;) {
		if (t->rx_head != t->rx_tail) {
			struct sc_rxf *s = &t->rxq[t->rx_head % SC_RXQ];

			*f = s->data;
			*len = s->len;
			*no = t->rx_frameno[t->rx_head % SC_RXQ];
			t->rx_head++;
			if (t->trace != NULL) {
				fprintf(t->trace, "F %u ", *no);
				sc_trace_hex(t->trace, *f, *len);
				fputc('\n', t->trace);
			}
			return true;
		}
		if (sc_now_ms() >= end) {
			if (t->trace != NULL)
				fprintf(t->trace, "T\n");
			return false;
		}
		sc_progress(t);
	}
}

static enum sc_verdict sc_fail(struct sc_result *r, enum sc_verdict v,
			       uint32_t frame, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static enum sc_verdict sc_fail(struct sc_result *r, enum sc_verdict v,
			       uint32_t frame, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->observed, sizeof(r->observed), fmt, ap);
	va_end(ap);
	r->frame = frame;
	return v;
}

static enum sc_verdict sc_agent_step(struct sc_tester *t, struct sc_result *r,
				     int rc, const char *what)
{
	if (rc != 0)
		return sc_fail(r, SC_ERROR, 0, "agent: %s", t->reply);
	if (strncmp(t->reply, "ERR", 3) == 0)
		return sc_fail(r, SC_ERROR, 0, "agent refused %s: %s", what,
			       t->reply);
	return SC_PASS;
}

static enum sc_verdict sc_step(struct sc_tester *t,
			       const struct sc_scenario *sc,
			       const struct sc_step *st, struct sc_result *r)
{
	char why[256], d[256];
	uint8_t *f;
	uint32_t len, no;
	uint32_t ms;
	int rc;

	switch (st->kind) {
	case SC_SEND:
		for (uint32_t k = 0; k < (HAS(st, COUNT) ? st->count : 1); k++)
			if (sc_send_one(t, sc, st, k, why, sizeof(why)) != 0)
				return sc_fail(r, SC_ERROR, 0, "%s", why);
		return SC_PASS;
	case SC_EXPECT:
		ms = HAS(st, MS) ? st->ms : t->o.wait_ms;
		for (;;) {
			if (!sc_pop(t, ms, &f, &len, &no)) {
				sc_step_describe(st, d, sizeof(d));
				return sc_fail(r, SC_FAIL, 0,
					       "no frame from the DUT within %u ms (expected %s)",
					       ms, d);
			}
			if (sc_frame_skippable(st, &t->ctx, f, len))
				continue;
			sc_frame_describe(&t->ctx, f, len, d, sizeof(d));
			if (!sc_check_frame(st, &t->ctx, f, len, why,
					    sizeof(why)))
				return sc_fail(r, SC_FAIL, no, "frame #%u %s: %s",
					       no, d, why);
			r->frame = no;
			snprintf(r->observed, sizeof(r->observed),
				 "frame #%u %s", no, d);
			return SC_PASS;
		}
	case SC_EXPECT_NONE:
		ms = HAS(st, MS) ? st->ms : t->o.quiet_ms;
		while (sc_pop(t, ms, &f, &len, &no)) {
			sc_frame_describe(&t->ctx, f, len, d, sizeof(d));
			if (sc_frame_skippable(&(struct sc_step){
						       .kind = SC_EXPECT_NONE },
					       &t->ctx, f, len))
				continue;
			return sc_fail(r, SC_FAIL, no,
				       "frame #%u %s, expected no frame", no,
				       d);
		}
		return SC_PASS;
	case SC_RECV:
		rc = sc_agent(t, "RECV %u %u", st->off, st->len);
		return sc_agent_step(t, r, rc, "the receive");
	case SC_POST:
		rc = sc_agent(t, "POST %s %u %u %" PRIu64 " %u %u %" PRIu64 " %" PRIu64,
			      sc_wr_op_name(st->opcode), st->off, st->len,
			      HAS(st, VA) ? st->va : 0x10000,
			      HAS(st, RKEY) ? (uint32_t)st->rkey : 0x1234u,
			      st->imm, st->swap, st->cmp);
		return sc_agent_step(t, r, rc, "the work request");
	case SC_CQE:
	case SC_CQE_NONE: {
		struct sc_cqe c;

		ms = HAS(st, MS) ? st->ms :
		     st->kind == SC_CQE ? t->o.wait_ms : t->o.quiet_ms;
		rc = sc_agent(t, "POLL %u", ms);
		if (rc != 0)
			return sc_fail(r, SC_ERROR, 0, "agent: %s", t->reply);
		if (strcmp(t->reply, "NONE") == 0) {
			if (st->kind == SC_CQE_NONE)
				return SC_PASS;
			sc_step_describe(st, d, sizeof(d));
			return sc_fail(r, SC_FAIL, 0,
				       "no completion within %u ms (expected %s)",
				       ms, d);
		}
		if (sscanf(t->reply, "CQE %d %d %u %u", &c.status, &c.opcode,
			   &c.len, &c.imm) != 4)
			return sc_fail(r, SC_ERROR, 0, "agent: %s", t->reply);
		if (st->kind == SC_CQE_NONE)
			return sc_fail(r, SC_FAIL, 0,
				       "a completion %s %s, expected none",
				       sc_wc_status_name(c.status),
				       sc_wc_opcode_name(c.opcode));
		if (!sc_check_cqe(st, &c, why, sizeof(why)))
			return sc_fail(r, SC_FAIL, 0, "%s", why);
		snprintf(r->observed, sizeof(r->observed),
			 "completion %s %s len=%u", sc_wc_status_name(c.status),
			 sc_wc_opcode_name(c.opcode), c.len);
		return SC_PASS;
	}
	case SC_MEM: {
		static uint8_t mem[32768];
		uint32_t n = HAS(st, ORIG) ? 8 : st->len, i;

		if (n > sizeof(mem))
			return sc_fail(r, SC_ERROR, 0, "mem: at most %zu bytes",
				       sizeof(mem));
		rc = sc_agent(t, "READ %u %u", st->off, n);
		if (rc != 0 || strncmp(t->reply, "DATA ", 5) != 0)
			return sc_fail(r, SC_ERROR, 0, "agent: %s", t->reply);
		for (i = 0; i < n; i++) {
			unsigned int v;

			if (sscanf(t->reply + 5 + 2 * i, "%2x", &v) != 1)
				break;
			mem[i] = (uint8_t)v;
		}
		if (!sc_check_mem(st, mem, i, why, sizeof(why)))
			return sc_fail(r, SC_FAIL, 0, "%s", why);
		return SC_PASS;
	}
	case SC_FILL:
		if (HAS(st, ORIG))
			rc = sc_agent(t, "FILL64 %u %" PRIu64, st->off, st->orig);
		else
			rc = sc_agent(t, "FILL %u %u %u", st->off, st->len,
				      st->pattern);
		return sc_agent_step(t, r, rc, "the fill");
	case SC_QPSTATE:
		rc = sc_agent(t, "QPSTATE");
		if (rc != 0 || strncmp(t->reply, "STATE ", 6) != 0)
			return sc_fail(r, SC_ERROR, 0, "agent: %s", t->reply);
		if (!sc_check_qpstate(st, t->reply + 6, why, sizeof(why)))
			return sc_fail(r, SC_FAIL, 0, "%s", why);
		return SC_PASS;
	case SC_WAIT:
		sc_progress_ms(t, st->ms);
		return SC_PASS;
	case SC_BIND:
		rc = sc_agent(t, "BIND %u %u", st->off, st->len);
		if (rc != 0 || sscanf(t->reply, "OK rkey=%u", &t->ctx.mw_rkey) != 1)
			return sc_fail(r, SC_ERROR, 0, "agent bind: %s", t->reply);
		return SC_PASS;
	}
	return SC_ERROR;
}

static int sc_hex16(const char *s, uint8_t g[16])
{
	for (int i = 0; i < 16; i++) {
		unsigned int v;

		if (sscanf(s + 2 * i, "%2x", &v) != 1)
			return -1;
		g[i] = (uint8_t)v;
	}
	return 0;
}

static const char *const qp_names[] = { "rc", "uc", "ud" };

/* The agent's QP, connected to the tester; the DUT's MAC. */
static enum sc_verdict sc_setup(struct sc_tester *t,
				const struct sc_scenario *sc,
				struct sc_result *r)
{
	unsigned int qpn, rkey;
	uint64_t va, end;
	char gid[40], tg[33];
	int rc;

	if (!t->replay && t->fd < 0 && sc_agent_connect(t) != 0)
		return sc_fail(r, SC_ERROR, 0, "the agent is unreachable");
	rc = sc_agent(t, "SETUP %s %u %s", qp_names[sc->qp_type], sc->mr_len,
		      sc->access[0] ? sc->access : "-");
	if (rc != 0 || sscanf(t->reply, "OK qpn=%u va=%" SCNu64 " rkey=%u gid=%39s",
			      &qpn, &va, &rkey, gid) != 4 ||
	    strlen(gid) != 32 || sc_hex16(gid, t->dut_gid) != 0)
		return sc_fail(r, SC_ERROR, 0, "agent setup: %s", t->reply);
	t->ctx.dqpn = qpn;
	t->ctx.va = va;
	t->ctx.rkey = rkey;
	for (int i = 0; i < 16; i++)
		sprintf(tg + 2 * i, "%02x", t->gid[i]);
	rc = sc_agent(t, "CONNECT %u %s %u %u %u %u %u %u %u %u %u",
		      t->ctx.tqpn, tg, sc->tpsn, sc->dpsn, 1024, sc->timeout,
		      sc->retry, sc->rnr_retry, sc->min_rnr, sc->max_rd_atomic,
		      sc->qkey);
	if (rc != 0 || strncmp(t->reply, "OK", 2) != 0)
		return sc_fail(r, SC_ERROR, 0, "agent connect: %s", t->reply);
	if (t->replay)
		return SC_PASS;
	end = sc_now_ms() + 5000;
	while ((rc = sr_pmd_resolve(t->dev, t->dut_gid, t->dut_mac)) ==
		       -EAGAIN || rc == -EHOSTUNREACH) {
		if (sc_now_ms() > end)
			return sc_fail(r, SC_ERROR, 0,
				       "the DUT does not answer ARP/ND for its GID %s",
				       gid);
		sc_progress_ms(t, 5);
	}
	return rc == 0 ? SC_PASS :
	       sc_fail(r, SC_ERROR, 0, "resolving the DUT: %s", strerror(-rc));
}

void sc_run(struct sc_tester *t, const struct sc_scenario *sc,
	    unsigned int idx, struct sc_result *r)
{
	char err[256];
	uint64_t t0 = sc_now_ms();
	enum sc_verdict v;

	memset(r, 0, sizeof(*r));
	r->step = -1;
	memset(&t->ctx, 0, sizeof(t->ctx));
	t->ctx.tqpn = SC_TQPN_BASE + (idx & 0x3fff);
	t->ctx.tpsn = sc->tpsn;
	t->ctx.dpsn = sc->dpsn;
	if (!t->replay)
		snprintf(r->capture, sizeof(r->capture), "%s/%s.pcap",
			 t->o.out_dir, sc->name);
	t->rx_head = t->rx_tail = 0;
	t->frames = 0;
	t->out_of_step = false;
	if (!t->replay) {
		char path[600];

		snprintf(path, sizeof(path), "%s/%s.trace", t->o.out_dir,
			 sc->name);
		t->trace = fopen(path, "w");
		if (t->trace != NULL)
			fprintf(t->trace, "# sroce-conform trace of %s against %s\nC %u\n",
				sc->name, t->dut_name, t->ctx.tqpn);
	}
	v = sc_setup(t, sc, r);
	if (v == SC_PASS && !t->replay) {
		t->cap = sr_capture_open(r->capture, 65535, err, sizeof(err));
		if (t->cap == NULL)
			v = sc_fail(r, SC_ERROR, 0, "capture: %s", err);
	}
	for (uint32_t i = 0; v == SC_PASS && i < sc->nsteps; i++) {
		r->step = (int)i;
		v = sc_step(t, sc, &sc->step[i], r);
	}
	if (v == SC_PASS)
		r->step = -1;
	if (t->out_of_step && v != SC_ERROR) {
		v = SC_ERROR;
		snprintf(r->observed, sizeof(r->observed),
			 "the trace does not fit the scenario at step %d",
			 r->step + 1);
	}
	if (t->trace != NULL) {
		fclose(t->trace);
		t->trace = NULL;
	}
	if (t->cap != NULL) {
		/* what arrives just after the last step belongs to it too */
		sc_progress_ms(t, 20);
		sr_capture_close(t->cap);
		t->cap = NULL;
	}
	r->frames = t->frames;
	r->verdict = v;
	r->seconds = (double)(sc_now_ms() - t0) / 1000.0;
	if (v == SC_PASS && r->observed[0] == '\0')
		snprintf(r->observed, sizeof(r->observed), "as expected");
}

/* ---- replay: the same steps against a recorded trace ---- */

struct sc_tester *sc_tester_replay_create(void)
{
	struct sc_tester *t = calloc(1, sizeof(*t));

	if (t == NULL)
		return NULL;
	t->replay = true;
	t->fd = -1;
	t->o.wait_ms = 2000;
	t->o.quiet_ms = 300;
	t->o.out_dir = ".";
	snprintf(t->dut_name, sizeof(t->dut_name), "replay");
	return t;
}

void sc_run_replay(struct sc_tester *t, const struct sc_scenario *sc,
		   const char *trace, struct sc_result *r)
{
	unsigned int tqpn = SC_TQPN_BASE;
	const char *c;

	t->rp = trace;
	/* skip comments; "C TQPN" gives the tester QPN of the recording */
	for (c = trace; c != NULL && (*c == '#' || *c == 'C');) {
		if (*c == 'C')
			sscanf(c, "C %u", &tqpn);
		c = strchr(c, '\n');
		if (c != NULL)
			c++;
	}
	t->rp = c;
	sc_run(t, sc, tqpn - SC_TQPN_BASE, r);
}
