/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sroce-pcap — read a capture (pcap or pcapng, through libpcap) and print
 * every RoCEv2 frame on one line, then a summary.  Exit status 1 when any
 * RoCEv2 frame is malformed or has a bad ICRC, 2 on usage or file errors.
 * With --ladder, also draw the capture as a sequence diagram (ladder.h).
 *
 *   sroce-pcap [--summary] [--ladder OUT.svg|OUT.png [--time prop|compressed]
 *              [--qp N] [--psn A-B] [--time T0-T1] [--max N]] FILE
 */
#include <getopt.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dissect.h"
#include "ladder.h"
#include "wire/parse.h"

/* Frames that are not RoCEv2, by what they are. */
#define SR_OTHER_KINDS(X) \
	X(ARP, "ARP")     \
	X(TCP, "TCP")     \
	X(UDP, "UDP")     \
	X(ICMP, "ICMP")   \
	X(OTHER, "other")

enum sr_other {
#define SR_X_ENUM(n, s) SR_OTHER_##n,
	SR_OTHER_KINDS(SR_X_ENUM)
#undef SR_X_ENUM
	SR_OTHER_MAX
};

static const char *const sr_other_names[SR_OTHER_MAX] = {
#define SR_X_NAME(n, s) [SR_OTHER_##n] = s,
	SR_OTHER_KINDS(SR_X_NAME)
#undef SR_X_NAME
};

struct sr_stats {
	uint64_t roce;
	uint64_t icrc_ok;
	uint64_t icrc_bad;
	uint64_t malformed;
	uint64_t per_opcode[256];
	uint64_t per_reason[SR_PARSE_MAX];
	uint64_t other[SR_OTHER_MAX];
};

static enum sr_other sr_classify_other(const uint8_t *ip, uint32_t len,
				       uint16_t type)
{
	uint8_t proto;

	if (type == SR_ETHERTYPE_ARP)
		return SR_OTHER_ARP;
	if (type == SR_ETHERTYPE_IPV4 && len >= 20)
		proto = ip[9];
	else if (type == SR_ETHERTYPE_IPV6 && len >= 40)
		proto = ip[6];
	else
		return SR_OTHER_OTHER;
	switch (proto) {
	case 6:
		return SR_OTHER_TCP;
	case 17:
		return SR_OTHER_UDP;
	case 1:
	case 58:
		return SR_OTHER_ICMP;
	}
	return SR_OTHER_OTHER;
}

/* EtherType and offset of the network header for the capture's link type. */
static bool sr_link_l3(int dlt, const uint8_t *f, uint32_t len, uint32_t *off,
		       uint16_t *type)
{
	switch (dlt) {
	case DLT_EN10MB:
		if (len < 14)
			return false;
		*off = 14;
		*type = (uint16_t)(f[12] << 8 | f[13]);
		if (*type == SR_ETHERTYPE_VLAN && len >= 18) {
			*off = 18;
			*type = (uint16_t)(f[16] << 8 | f[17]);
		}
		return true;
	case DLT_LINUX_SLL:
		if (len < 16)
			return false;
		*off = 16;
		*type = (uint16_t)(f[14] << 8 | f[15]);
		return true;
	case DLT_RAW:
	case DLT_IPV4:
	case DLT_IPV6:
		if (len < 1)
			return false;
		*off = 0;
		*type = (f[0] >> 4) == 6 ? SR_ETHERTYPE_IPV6 : SR_ETHERTYPE_IPV4;
		return true;
	}
	return false;
}

/* Returns 0, or -ENOMEM when the ladder cannot keep the packet. */
static int sr_one_frame(struct sr_stats *st, int dlt, bool lines,
			struct sr_ladder *ladder, const struct pcap_pkthdr *h,
			const uint8_t *f, double t0)
{
	enum sr_parse_result r;
	struct sr_pkt pkt;
	uint32_t off = 0;
	uint16_t type = 0;
	bool have_l3 = sr_link_l3(dlt, f, h->caplen, &off, &type);
	double t = (double)h->ts.tv_sec + (double)h->ts.tv_usec / 1e9 - t0;

	if (dlt == DLT_EN10MB)
		r = sr_parse_eth(f, h->caplen, 0, &pkt);
	else if (have_l3)
		r = sr_parse_ip(f + off, h->caplen - off, 0, &pkt);
	else
		r = SR_PARSE_NOT_IP;

	if (!sr_parse_result_is_roce(r)) {
		st->other[have_l3 ? sr_classify_other(f + off, h->caplen - off,
						      type)
				  : SR_OTHER_OTHER]++;
		return 0;
	}
	st->roce++;
	if (r == SR_PARSE_OK || r == SR_PARSE_ICRC) {
		bool ok = r == SR_PARSE_OK;

		st->per_opcode[pkt.opcode]++;
		ok ? st->icrc_ok++ : st->icrc_bad++;
		if (lines) {
			printf("%.6f ", t);
			sr_dissect_line(stdout, &pkt, ok);
		}
		return ladder ? sr_ladder_add(ladder, &pkt, ok, t) : 0;
	}
	st->malformed++;
	st->per_reason[r]++;
	if (lines)
		printf("%.6f malformed RoCEv2 frame (%u bytes): %s\n", t,
		       h->caplen, sr_parse_result_text(r));
	return 0;
}

static int sr_cmp_names(const void *a, const void *b)
{
	char x[48], y[48];

	sr_dissect_opname(*(const uint8_t *)a, x, sizeof(x));
	sr_dissect_opname(*(const uint8_t *)b, y, sizeof(y));
	return strcmp(x, y);
}

static void sr_summary(const struct sr_stats *st)
{
	uint8_t order[256];
	unsigned int i, n = 0;
	char name[48];

	printf("RoCEv2: %llu packets, ICRC ok %llu, bad %llu, malformed %llu\n",
	       (unsigned long long)st->roce, (unsigned long long)st->icrc_ok,
	       (unsigned long long)st->icrc_bad,
	       (unsigned long long)st->malformed);
	for (i = 0; i < 256; i++)
		if (st->per_opcode[i])
			order[n++] = (uint8_t)i;
	qsort(order, n, 1, sr_cmp_names);
	for (i = 0; i < n; i++)
		printf("%9llu  %s\n",
		       (unsigned long long)st->per_opcode[order[i]],
		       sr_dissect_opname(order[i], name, sizeof(name)));
	for (i = 0; i < SR_PARSE_MAX; i++)
		if (st->per_reason[i])
			printf("%9llu  malformed: %s\n",
			       (unsigned long long)st->per_reason[i],
			       sr_parse_result_text((enum sr_parse_result)i));
	n = 0;
	printf("non-RoCE frames:");
	for (i = 0; i < SR_OTHER_MAX; i++)
		if (st->other[i])
			printf("%s %llu %s", n++ ? "," : "", (unsigned long long)st->other[i],
			       sr_other_names[i]);
	printf("\n");
}

/* One ladder option; says what is wrong and returns -1 on a bad value. */
static int sr_ladder_opt(struct sr_ladder_opts *o, int c, const char *v)
{
	unsigned long n;
	char *end;
	int rc = 0;

	switch (c) {
	case 't':
		rc = sr_ladder_parse_time(o, v);
		break;
	case 'p':
		rc = sr_ladder_parse_psn(o, v);
		break;
	case 'q':
	case 'm':
		n = strtoul(v, &end, 0);
		rc = end == v || *end || n > 0xffffff ? -1 : 0;
		if (c == 'q') {
			o->by_qp = true;
			o->qp = (uint32_t)n;
		} else {
			o->max = (uint32_t)n;
		}
		break;
	}
	if (rc)
		fprintf(stderr, "sroce-pcap: bad value '%s' for --%s\n", v,
			c == 't' ? "time (prop, compressed or T0-T1 seconds)" :
			c == 'p' ? "psn (A-B)" : c == 'q' ? "qp" : "max");
	return rc ? -1 : 0;
}

/* Lay out and draw the ladder; one line on what it drew. */
static int sr_ladder_out(struct sr_ladder *l, const char *out,
			 const char *capture)
{
	char err[256], title[512];
	const char *base = strrchr(capture, '/');

	if (sr_ladder_finish(l)) {
		fprintf(stderr, "sroce-pcap: out of memory\n");
		return -1;
	}
	if (l->npkt == 0 || l->narrow == 0) {
		/* Nothing to draw: say why instead of writing an empty picture. */
		fprintf(stderr, "sroce-pcap: --ladder: %s\n", l->npkt == 0
			? "no RoCEv2 packet in the capture; nothing drawn"
			: "no RoCEv2 packet passes the filters (--qp, --psn, --time); "
			  "nothing drawn");
		return -1;
	}
	snprintf(title, sizeof(title), "%s: %u RoCEv2 packets of %u%s",
		 base ? base + 1 : capture, l->narrow, l->npkt,
		 l->truncated ? " (--max: more follow)" : "");
	if (sr_ladder_draw(l, out, title, err, sizeof(err))) {
		fprintf(stderr, "sroce-pcap: --ladder: %s\n", err);
		return -1;
	}
	printf("ladder: %s: %u packets drawn, %u filtered out, %u over --max, %u lifelines",
	       out, l->narrow, l->filtered, l->truncated, l->nep);
	for (int m = SR_LADDER_NONE + 1; m < SR_LADDER_MARK_MAX; m++)
		if (l->marks[m])
			printf(", %u %s", l->marks[m], sr_ladder_mark_name(m));
	printf("\n");
	return 0;
}

static void sr_usage(FILE *out)
{
	fprintf(out,
		"usage: sroce-pcap [--summary] [--ladder OUT.svg|OUT.png [options]] FILE\n"
		"Print each RoCEv2 frame of a pcap/pcapng capture and a summary.\n"
		"  -s, --summary   print the summary only\n"
		"  -l, --ladder F  also draw a ladder (sequence) diagram, SVG or PNG\n"
		"                  by F's extension: a lifeline per endpoint (IP, QP),\n"
		"                  an arrow per packet; retransmissions, NAKs, RNR NAKs,\n"
		"                  duplicate responses, bad ICRCs, CNPs in colour\n"
		"  ladder options:\n"
		"  -t, --time compressed|prop   one row per packet (default), or\n"
		"                  rows in proportion to time\n"
		"  -t, --time T0-T1 only packets T0..T1 s after the capture start\n"
		"  -q, --qp N      only packets from or to QP N\n"
		"  -p, --psn A-B   only PSNs A..B\n"
		"  -m, --max N     at most N packets (default 1000)\n"
		"Exit status: 0 all RoCEv2 frames well-formed with good ICRC,\n"
		"             1 some frame malformed or with a bad ICRC, 2 error.\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "summary", no_argument, NULL, 's' },
		{ "ladder", required_argument, NULL, 'l' },
		{ "time", required_argument, NULL, 't' },
		{ "qp", required_argument, NULL, 'q' },
		{ "psn", required_argument, NULL, 'p' },
		{ "max", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static struct sr_stats st;
	struct sr_ladder_opts lopts = { .max = 1000 };
	struct sr_ladder ladder;
	const char *ladder_out = NULL;
	char err[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const uint8_t *f;
	bool lines = true;
	double t0 = -1;
	pcap_t *pc;
	int c, dlt, rc;

	while ((c = getopt_long(argc, argv, "sl:t:q:p:m:h", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			lines = false;
			break;
		case 'l':
			ladder_out = optarg;
			break;
		case 't':
		case 'q':
		case 'p':
		case 'm':
			if (sr_ladder_opt(&lopts, c, optarg))
				return 2;
			break;
		case 'h':
			sr_usage(stdout);
			return 0;
		default:
			sr_usage(stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		sr_usage(stderr);
		return 2;
	}
	if (ladder_out && !sr_ladder_can_draw()) {
		char why[256];

		sr_ladder_draw(NULL, ladder_out, NULL, why, sizeof(why));
		fprintf(stderr, "sroce-pcap: --ladder: %s\n", why);
		return 2;
	}
	pc = pcap_open_offline_with_tstamp_precision(argv[optind],
						      PCAP_TSTAMP_PRECISION_NANO,
						      err);
	if (pc == NULL) {
		fprintf(stderr, "sroce-pcap: %s\n", err);
		return 2;
	}
	dlt = pcap_datalink(pc);
	sr_ladder_init(&ladder, &lopts);
	while ((rc = pcap_next_ex(pc, &h, &f)) == 1) {
		double t = (double)h->ts.tv_sec + (double)h->ts.tv_usec / 1e9;

		if (t0 < 0)
			t0 = t;
		if (sr_one_frame(&st, dlt, lines, ladder_out ? &ladder : NULL,
				 h, f, t0)) {
			fprintf(stderr, "sroce-pcap: out of memory\n");
			break;
		}
	}
	if (rc == PCAP_ERROR)
		fprintf(stderr, "sroce-pcap: %s: %s\n", argv[optind],
			pcap_geterr(pc));
	pcap_close(pc);
	if (rc != PCAP_ERROR_BREAK) {       /* the end of the file, or not */
		sr_ladder_free(&ladder);
		return 2;
	}
	sr_summary(&st);
	if (ladder_out && sr_ladder_out(&ladder, ladder_out, argv[optind])) {
		sr_ladder_free(&ladder);
		return 2;
	}
	sr_ladder_free(&ladder);
	return st.icrc_bad || st.malformed ? 1 : 0;
}
