/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ladder.h — a capture as a sequence ("ladder") diagram.
 *
 * Two halves, so the first is testable without a drawing library:
 *
 *   layout (ladder.c)       packets in, in capture order; then one call
 *                           decides the lifelines (one per endpoint, an
 *                           IP address and a QP number), which packets are
 *                           drawn (the filters), each arrow's row and
 *                           height, its label and its highlight;
 *   drawing (ladder_draw.c) the finished layout onto an SVG or PNG file
 *                           with cairo (only when sroce-pcap was built
 *                           with it).
 *
 * The BTH names only the destination QP.  A packet's source QP is the QP
 * its sender's peer sends to: the DETH's source QP on UD, otherwise the
 * destination QP of the packets going the other way between the two
 * addresses (the first one seen; "QP ?" when no packet goes back).
 *
 * Highlights, worst first (a packet gets one): a bad ICRC; a NAK; an RNR
 * NAK; a retransmission (a request whose PSN is not beyond the highest
 * its sender already sent to that QP: the sender went back, even to a
 * packet lost before the capture point saw it); a duplicate response (a
 * positive response whose PSN its sender already answered: the answer to
 * a duplicate request); congestion (a CNP, or a CE mark).
 * They are decided over the whole capture, before the filters, so a
 * retransmission stays one when its first transmission is filtered out.
 */
#ifndef SROCE_PCAP_LADDER_H
#define SROCE_PCAP_LADDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wire/parse.h"

/* Highlights: X(enum suffix, legend text, RGB colour). */
#define SR_LADDER_MARKS(X)                                              \
	X(NONE, "normal", 0x202020)                                     \
	X(ICRC, "bad ICRC", 0xc000c0)                                   \
	X(NAK, "NAK", 0xd00000)                                         \
	X(RNR, "RNR NAK", 0xe07000)                                     \
	X(RETRANS, "retransmission", 0x0050e0)                          \
	X(DUP, "duplicate response", 0x008080)                          \
	X(CONG, "congestion (CNP, CE)", 0x20a020)

enum sr_ladder_mark {
#define SR_X_ENUM(e, s, c) SR_LADDER_##e,
	SR_LADDER_MARKS(SR_X_ENUM)
#undef SR_X_ENUM
	SR_LADDER_MARK_MAX
};

/* Legend text and colour (0xRRGGBB) of a highlight. */
const char *sr_ladder_mark_name(enum sr_ladder_mark m);
uint32_t sr_ladder_mark_rgb(enum sr_ladder_mark m);

/* Vertical axis: one row per packet, or proportional to time. */
enum sr_ladder_time { SR_LADDER_COMPRESSED, SR_LADDER_PROP };

/* What to draw; zero = everything (max = 0: no limit). */
struct sr_ladder_opts {
	enum sr_ladder_time time;
	bool by_qp;              /* only packets from or to QP qp */
	uint32_t qp;
	bool by_psn;             /* only BTH PSNs psn_lo..psn_hi */
	uint32_t psn_lo, psn_hi;
	bool by_time;            /* only t_lo..t_hi s from the capture start */
	double t_lo, t_hi;
	uint32_t max;            /* at most this many arrows, the first ones */
};

#define SR_LADDER_LABEL_MAX 96

struct sr_ladder_endpoint {
	uint8_t gid[16];
	int32_t qpn;             /* -1: not known */
	char name[64];           /* "10.0.0.1 QP 17" */
};

/* One packet as the layout keeps it. */
struct sr_ladder_arrow {
	double t;                /* seconds from the capture start */
	uint32_t from, to;       /* endpoint indexes (after sr_ladder_finish) */
	double y;                /* row (compressed) or scaled time, 0..rows-1 */
	uint32_t psn;
	uint8_t opcode;
	enum sr_ladder_mark mark;
	char label[SR_LADDER_LABEL_MAX];     /* "WRITE_FIRST psn=5 A" */
	char detail[SR_LADDER_LABEL_MAX];    /* "RETH va=.. rkey=.. len=.." */
	/* what the layout needs from the packet */
	uint8_t sgid[16], dgid[16];
	uint32_t dqpn;
	int32_t sqpn;            /* DETH source QP, -1 without a DETH */
	bool icrc_ok, ce;
	uint8_t syndrome;        /* AETH syndrome; 0 without an AETH */
	bool has_aeth;
};

struct sr_ladder {
	struct sr_ladder_opts opts;
	struct sr_ladder_arrow *pkt;        /* every packet added */
	uint32_t npkt, cap;
	/* after sr_ladder_finish(): */
	struct sr_ladder_arrow **arrow;     /* the drawn ones, in order */
	uint32_t narrow;
	uint32_t filtered;                  /* left out by the filters */
	uint32_t truncated;                 /* left out by max */
	struct sr_ladder_endpoint *ep;      /* lifelines, left to right */
	uint32_t nep;
	uint32_t marks[SR_LADDER_MARK_MAX]; /* drawn arrows per highlight */
	double rows;                        /* height of the axis in rows */
};

/* Start an empty layout with these options (NULL: everything). */
void sr_ladder_init(struct sr_ladder *l, const struct sr_ladder_opts *opts);

/*
 * Add one parsed RoCEv2 packet (SR_PARSE_OK, or SR_PARSE_ICRC with
 * icrc_ok false) seen t seconds after the capture started.  Returns 0 or
 * -ENOMEM.
 */
int sr_ladder_add(struct sr_ladder *l, const struct sr_pkt *pkt, bool icrc_ok,
		  double t);

/*
 * Decide lifelines, highlights, the filters, rows and labels.  Call once,
 * after the last add.  Returns 0 or -ENOMEM.
 */
int sr_ladder_finish(struct sr_ladder *l);

/* Free what the layout holds (accepts one never finished). */
void sr_ladder_free(struct sr_ladder *l);

/*
 * Parse "--time" and "--psn" values: "A-B" ranges (PSN: decimal or 0x;
 * time: seconds, fractions allowed), and "prop"/"compressed".  Return 0 or
 * -EINVAL.
 */
int sr_ladder_parse_psn(struct sr_ladder_opts *o, const char *s);
int sr_ladder_parse_time(struct sr_ladder_opts *o, const char *s);

/*
 * Draw a finished layout into path under a title: SVG when the name ends
 * in ".svg", PNG when it ends in ".png".  The SVG also carries every arrow
 * as text in its <desc> (cairo draws letters as outlines), for search and
 * screen readers.  Returns 0, -EINVAL (other extension, or a picture too
 * tall: use max), -ENOTSUP (built without cairo) or -EIO, with a reason in
 * err.
 */
int sr_ladder_draw(const struct sr_ladder *l, const char *path,
		   const char *title, char *err, size_t errlen);

/* False when sroce-pcap was built without cairo: say so before reading. */
bool sr_ladder_can_draw(void);

#endif /* SROCE_PCAP_LADDER_H */
