/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sroce-pcap — read a capture (pcap or pcapng, through libpcap) and print
 * every RoCEv2 frame on one line, then a summary.  Exit status 1 when any
 * RoCEv2 frame is malformed or has a bad ICRC, 2 on usage or file errors.
 *
 *   sroce-pcap [--summary] FILE
 */
#include <getopt.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dissect.h"
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

static void sr_one_frame(struct sr_stats *st, int dlt, bool lines,
			 const struct pcap_pkthdr *h, const uint8_t *f,
			 double t0)
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
		return;
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
		return;
	}
	st->malformed++;
	st->per_reason[r]++;
	if (lines)
		printf("%.6f malformed RoCEv2 frame (%u bytes): %s\n", t,
		       h->caplen, sr_parse_result_text(r));
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

static void sr_usage(FILE *out)
{
	fprintf(out,
		"usage: sroce-pcap [--summary] FILE\n"
		"Print each RoCEv2 frame of a pcap/pcapng capture and a summary.\n"
		"  -s, --summary   print the summary only\n"
		"Exit status: 0 all RoCEv2 frames well-formed with good ICRC,\n"
		"             1 some frame malformed or with a bad ICRC, 2 error.\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "summary", no_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static struct sr_stats st;
	char err[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const uint8_t *f;
	bool lines = true;
	double t0 = -1;
	pcap_t *pc;
	int c, dlt, rc;

	while ((c = getopt_long(argc, argv, "sh", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			lines = false;
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
	pc = pcap_open_offline_with_tstamp_precision(argv[optind],
						      PCAP_TSTAMP_PRECISION_NANO,
						      err);
	if (pc == NULL) {
		fprintf(stderr, "sroce-pcap: %s\n", err);
		return 2;
	}
	dlt = pcap_datalink(pc);
	while ((rc = pcap_next_ex(pc, &h, &f)) == 1) {
		double t = (double)h->ts.tv_sec + (double)h->ts.tv_usec / 1e9;

		if (t0 < 0)
			t0 = t;
		sr_one_frame(&st, dlt, lines, h, f, t0);
	}
	if (rc == PCAP_ERROR) {
		fprintf(stderr, "sroce-pcap: %s: %s\n", argv[optind],
			pcap_geterr(pc));
		pcap_close(pc);
		return 2;
	}
	pcap_close(pc);
	sr_summary(&st);
	return st.icrc_bad || st.malformed ? 1 : 0;
}
