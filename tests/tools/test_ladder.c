/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_ladder.c — the ladder layout (tools/sroce-pcap/ladder.h): on the
 * reference rxe captures (two lifelines, clean but for the two real
 * retransmissions of the latency captures), on crafted exchanges with a
 * loss, an RNR NAK, a bad ICRC, a duplicate response and a CNP, and the
 * filters and rows.
 */
#include <errno.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <string.h>

#include "ladder.h"
#include "sr_check.h"
#include "wire/build.h"

/* ---- from a capture ---- */

static void load(struct sr_ladder *l, const char *name,
		 const struct sr_ladder_opts *o)
{
	char path[512], err[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const uint8_t *f;
	double t0 = -1;
	pcap_t *pc;

	if (name[0] == '/')
		snprintf(path, sizeof(path), "%s", name);
	else
		snprintf(path, sizeof(path), "%s/%s", SR_CAPTURES_DIR, name);
	pc = pcap_open_offline_with_tstamp_precision(path,
						      PCAP_TSTAMP_PRECISION_NANO, err);
	ck_assert_msg(pc != NULL, "%s: %s", path, err);
	sr_ladder_init(l, o);
	while (pcap_next_ex(pc, &h, &f) == 1) {
		double t = (double)h->ts.tv_sec + (double)h->ts.tv_usec / 1e9;
		enum sr_parse_result r;
		struct sr_pkt p;

		if (t0 < 0)
			t0 = t;
		r = sr_parse_eth(f, h->caplen, 0, &p);
		if (r == SR_PARSE_OK || r == SR_PARSE_ICRC)
			ck_assert_int_eq(sr_ladder_add(l, &p, r == SR_PARSE_OK,
						       t - t0), 0);
	}
	pcap_close(pc);
	ck_assert_int_eq(sr_ladder_finish(l), 0);
}

static const struct {
	const char *name;
	uint32_t packets, retrans;
	bool one_way;          /* UC WRITEs: nothing comes back */
} golden[] = {
	{ "01_rc_pingpong_4KiB.pcap", 100, 0, false },
	{ "02_write_bw_64B.pcap", 200, 0, false },
	{ "03_write_bw_4KiB.pcap", 200, 0, false },
	{ "04_write_bw_64KiB.pcap", 325, 0, false },
	{ "05_read_bw_64B.pcap", 200, 0, false },
	{ "06_read_bw_4KiB.pcap", 200, 0, false },
	{ "08_send_bw_64B.pcap", 200, 0, false },
	{ "09_send_bw_4KiB.pcap", 200, 0, false },
	{ "11_atomic_fetch_add.pcap", 200, 0, false },
	{ "13_write_lat_64B.pcap", 404, 2, false },
	{ "15_send_lat_64B.pcap", 404, 2, false },
	{ "18_uc_write_bw_4KiB.pcap", 80, 0, true },
};

/* Two lifelines, the first sender left; every packet once; rxe's two real
 * retransmissions (and the responder's second ACK of each) in the
 * latency captures, nothing else highlighted. */
START_TEST(golden_captures)
{
	struct sr_ladder l;

	load(&l, golden[_i].name, NULL);
	ck_assert_uint_eq(l.narrow, golden[_i].packets);
	ck_assert_uint_eq(l.nep, 2);
	if (golden[_i].one_way)
		ck_assert_str_eq(l.ep[0].name, "10.77.0.11 QP ?");
	ck_assert(strncmp(l.ep[0].name, "10.77.0.1", 9) == 0);
	ck_assert(strncmp(l.ep[1].name, "10.77.0.1", 9) == 0);
	ck_assert(strcmp(l.ep[0].name, l.ep[1].name) != 0);
	ck_assert(strstr(l.ep[0].name, " QP ") && strstr(l.ep[1].name, " QP "));
	ck_assert_uint_eq(l.marks[SR_LADDER_RETRANS], golden[_i].retrans);
	ck_assert_uint_eq(l.marks[SR_LADDER_DUP], golden[_i].retrans);
	ck_assert_uint_eq(l.marks[SR_LADDER_NAK] + l.marks[SR_LADDER_RNR] +
			  l.marks[SR_LADDER_ICRC] + l.marks[SR_LADDER_CONG], 0);
	for (uint32_t i = 0; i < l.narrow; i++) {
		ck_assert(l.arrow[i]->y == (double)i);
		ck_assert(l.arrow[i]->from != l.arrow[i]->to);
	}
	sr_ladder_free(&l);
}
END_TEST

/* The retransmitted WRITE at 0.392 s of the write latency capture. */
START_TEST(golden_labels)
{
	struct sr_ladder_opts o = { .by_time = true, .t_lo = 0.3923,
				    .t_hi = 0.3924 };
	struct sr_ladder l;

	load(&l, "13_write_lat_64B.pcap", &o);
	ck_assert_uint_eq(l.narrow, 1);
	ck_assert_str_eq(l.arrow[0]->label, "WRITE_ONLY psn=4937882 A");
	ck_assert_str_eq(l.arrow[0]->detail,
			 "RETH va=0x55562448d000 rkey=0xe52 len=64");
	ck_assert_int_eq(l.arrow[0]->mark, SR_LADDER_RETRANS);
	ck_assert_str_eq(l.ep[l.arrow[0]->from].name, "10.77.0.11 QP 29");
	ck_assert_str_eq(l.ep[l.arrow[0]->to].name, "10.77.0.12 QP 29");
	sr_ladder_free(&l);
}
END_TEST

/* Filters: QP (either end), PSN range, time, max; they keep the marks. */
START_TEST(filters)
{
	struct sr_ladder_opts o = { .by_psn = true, .psn_lo = 4937880,
				    .psn_hi = 4937883 };
	struct sr_ladder l;

	load(&l, "13_write_lat_64B.pcap", &o);
	/* 4 WRITEs and their ACKs, one WRITE twice and its ACK twice */
	ck_assert_uint_eq(l.narrow, 10);
	ck_assert_uint_eq(l.filtered, 394);
	ck_assert_uint_eq(l.marks[SR_LADDER_RETRANS], 1);
	sr_ladder_free(&l);

	o = (struct sr_ladder_opts){ .by_qp = true, .qp = 29, .max = 7 };
	load(&l, "13_write_lat_64B.pcap", &o);
	ck_assert_uint_eq(l.narrow, 7);
	ck_assert_uint_eq(l.truncated, 397);
	sr_ladder_free(&l);

	o = (struct sr_ladder_opts){ .by_qp = true, .qp = 12345 };
	load(&l, "13_write_lat_64B.pcap", &o);
	ck_assert_uint_eq(l.narrow, 0);
	ck_assert_uint_eq(l.nep, 0);
	sr_ladder_free(&l);
}
END_TEST

/* --time prop: rows follow time, first 0 and last n-1, never backwards. */
START_TEST(rows_prop)
{
	struct sr_ladder_opts o = { .time = SR_LADDER_PROP };
	struct sr_ladder l;

	load(&l, "05_read_bw_64B.pcap", &o);
	ck_assert(l.arrow[0]->y == 0);
	ck_assert(l.arrow[l.narrow - 1]->y == (double)(l.narrow - 1));
	for (uint32_t i = 1; i < l.narrow; i++)
		ck_assert(l.arrow[i]->y >= l.arrow[i - 1]->y);
	sr_ladder_free(&l);
}
END_TEST

/*
 * A real loss, from the lost-packet lab (tests/data/labs): sroce's WRITE of
 * PSN 100..115 with 105 lost before the capture; one NAK at 105, then
 * 105..115 again, all eleven retransmissions.
 */
START_TEST(lab_loss)
{
	struct sr_ladder l;

	load(&l, SR_DATA_DIR "/labs/lost_packet.pcap", NULL);
	ck_assert_uint_eq(l.narrow, 28);
	ck_assert_uint_eq(l.nep, 2);
	ck_assert_str_eq(l.ep[0].name, "10.0.0.2 QP 2");
	ck_assert_str_eq(l.ep[1].name, "10.0.0.1 QP 2");
	ck_assert_uint_eq(l.marks[SR_LADDER_NAK], 1);
	ck_assert_uint_eq(l.marks[SR_LADDER_RETRANS], 11);
	for (uint32_t i = 0; i < l.narrow; i++)
		if (l.arrow[i]->mark == SR_LADDER_NAK) {
			ck_assert_uint_eq(l.arrow[i]->psn, 105);
			ck_assert_str_eq(l.arrow[i]->detail,
					 "AETH NAK PSN sequence error msn=0");
			ck_assert_uint_eq(l.arrow[i + 1]->psn, 105);
			ck_assert_int_eq(l.arrow[i + 1]->mark, SR_LADDER_RETRANS);
		}
	sr_ladder_free(&l);
}
END_TEST

/* ---- crafted exchanges ---- */

static struct sr_ladder cl;
static uint8_t frames[32][512];
static uint32_t nframes;

/* A frame from 10.0.0.<from> to QP dqpn at 10.0.0.<3 - from>. */
static void add(int from, uint32_t dqpn, uint8_t opcode, uint32_t psn,
		uint8_t syndrome, bool bad_icrc)
{
	static const uint8_t payload[64];
	uint8_t *f = frames[nframes++];
	struct sr_build b = { .hop_limit = 64, .pkey = 0xffff,
			      .sport = 0xc000, .opcode = opcode, .dqpn = dqpn,
			      .psn = psn, .aeth_syndrome = syndrome,
			      .reth_va = 0x1000, .reth_rkey = 0x55,
			      .reth_len = 64, .deth_qkey = 0x11,
			      .deth_sqpn = 0x99, .ackreq = true };
	enum sr_parse_result r;
	struct sr_pkt p;
	int n;

	b.sgid[10] = b.sgid[11] = b.dgid[10] = b.dgid[11] = 0xff;
	memcpy(b.sgid + 12, (uint8_t[4]){ 10, 0, 0, (uint8_t)from }, 4);
	memcpy(b.dgid + 12, (uint8_t[4]){ 10, 0, 0, (uint8_t)(3 - from) }, 4);
	n = sr_build_frame(f, 512, &b, payload,
			   opcode == SR_OPCODE_CNP ? SR_CNP_PAYLOAD :
			   (opcode & 0x1f) == SR_OP_WRITE_ONLY ? 64 : 0);
	ck_assert_int_gt(n, 0);
	if (bad_icrc)
		f[n - 1] ^= 1;
	r = sr_parse_eth(f, (uint32_t)n, 0, &p);
	ck_assert(r == (bad_icrc ? SR_PARSE_ICRC : SR_PARSE_OK));
	ck_assert_int_eq(sr_ladder_add(&cl, &p, !bad_icrc, nframes * 1e-3), 0);
}

#define WRITE SR_OPCODE(RC, WRITE_ONLY)
#define ACK   SR_OPCODE(RC, ACKNOWLEDGE)

/*
 * Node 1 (QP 7) writes PSN 1, 2, 4 to node 2 (QP 9): PSN 3 was lost before
 * the capture point.  Node 2 ACKs 2 and NAKs 3 (sequence error); node 1
 * goes back to 3: 3 and 4 are both retransmissions (3 was sent, only lost
 * before the capture saw it).  Then an RNR
 * NAK, a WRITE with a bad ICRC, a second ACK of 4 (a duplicate), a CNP.
 */
START_TEST(crafted_loss)
{
	static const enum sr_ladder_mark want[] = {
		SR_LADDER_NONE, SR_LADDER_NONE, SR_LADDER_NONE, SR_LADDER_NONE,
		SR_LADDER_NAK, SR_LADDER_RETRANS, SR_LADDER_RETRANS, SR_LADDER_NONE,
		SR_LADDER_RNR, SR_LADDER_ICRC, SR_LADDER_DUP, SR_LADDER_CONG,
		SR_LADDER_NONE,
	};

	sr_ladder_init(&cl, NULL);
	nframes = 0;
	add(1, 9, WRITE, 1, 0, false);
	add(1, 9, WRITE, 2, 0, false);
	add(1, 9, WRITE, 4, 0, false);
	add(2, 7, ACK, 2, 0x1f, false);
	add(2, 7, ACK, 3, 0x60, false);          /* NAK PSN sequence error */
	add(1, 9, WRITE, 3, 0, false);
	add(1, 9, WRITE, 4, 0, false);
	add(2, 7, ACK, 4, 0x1f, false);
	add(2, 7, ACK, 5, 0x2e, false);          /* RNR NAK */
	add(1, 9, WRITE, 5, 0, true);
	add(2, 7, ACK, 4, 0x1f, false);
	add(2, 7, SR_OPCODE_CNP, 0, 0, false);
	add(1, 1, SR_OPCODE(UD, SEND_ONLY), 0, 0, false);
	ck_assert_int_eq(sr_ladder_finish(&cl), 0);
	ck_assert_uint_eq(cl.narrow, 13);
	for (uint32_t i = 0; i < cl.narrow; i++)
		ck_assert_msg(cl.arrow[i]->mark == want[i], "packet %u: mark %d, want %d",
			      i, cl.arrow[i]->mark, want[i]);
	/* lifelines: 10.0.0.1 QP 7, 10.0.0.2 QP 9, then QP 0x99 and QP 1 */
	ck_assert_uint_eq(cl.nep, 4);
	ck_assert_str_eq(cl.ep[0].name, "10.0.0.1 QP 7");
	ck_assert_str_eq(cl.ep[1].name, "10.0.0.2 QP 9");
	ck_assert_str_eq(cl.ep[2].name, "10.0.0.1 QP 153");
	ck_assert_str_eq(cl.ep[3].name, "10.0.0.2 QP 1");
	ck_assert_str_eq(cl.arrow[4]->label, "ACKNOWLEDGE psn=3 A");
	ck_assert_str_eq(cl.arrow[4]->detail,
			 "AETH NAK PSN sequence error msn=0");
	ck_assert_str_eq(cl.arrow[8]->detail, "AETH RNR-NAK timer=14 msn=0");
	ck_assert_str_eq(cl.arrow[0]->detail, "RETH va=0x1000 rkey=0x55 len=64");
	ck_assert_str_eq(cl.arrow[11]->label, "CNP");
	ck_assert_str_eq(cl.arrow[12]->label, "UD SEND_ONLY psn=0 A");
	ck_assert_uint_eq(cl.marks[SR_LADDER_NONE], 6);
	sr_ladder_free(&cl);
}
END_TEST

START_TEST(parse_options)
{
	struct sr_ladder_opts o = { 0 };

	ck_assert_int_eq(sr_ladder_parse_psn(&o, "10-0x20"), 0);
	ck_assert(o.by_psn && o.psn_lo == 10 && o.psn_hi == 32);
	ck_assert_int_eq(sr_ladder_parse_psn(&o, "7"), 0);
	ck_assert(o.psn_lo == 7 && o.psn_hi == 7);
	ck_assert_int_eq(sr_ladder_parse_psn(&o, "9-3"), -EINVAL);
	ck_assert_int_eq(sr_ladder_parse_psn(&o, "1-0x1000000"), -EINVAL);
	ck_assert_int_eq(sr_ladder_parse_psn(&o, "x"), -EINVAL);
	ck_assert_int_eq(sr_ladder_parse_time(&o, "prop"), 0);
	ck_assert_int_eq(o.time, SR_LADDER_PROP);
	ck_assert_int_eq(sr_ladder_parse_time(&o, "0.5-1.25"), 0);
	ck_assert(o.by_time && o.t_lo == 0.5 && o.t_hi == 1.25);
	ck_assert_int_eq(o.time, SR_LADDER_PROP);
	ck_assert_int_eq(sr_ladder_parse_time(&o, "compressed"), 0);
	ck_assert_int_eq(o.time, SR_LADDER_COMPRESSED);
	ck_assert_int_eq(sr_ladder_parse_time(&o, "1-"), -EINVAL);
	ck_assert_int_eq(sr_ladder_parse_time(&o, "slow"), -EINVAL);
}
END_TEST

static Suite *ladder_suite(void)
{
	Suite *s = suite_create("ladder");
	TCase *tc = tcase_create("layout");

	tcase_add_loop_test(tc, golden_captures, 0,
			    sizeof(golden) / sizeof(golden[0]));
	tcase_add_test(tc, golden_labels);
	tcase_add_test(tc, filters);
	tcase_add_test(tc, rows_prop);
	tcase_add_test(tc, lab_loss);
	tcase_add_test(tc, crafted_loss);
	tcase_add_test(tc, parse_options);
	suite_add_tcase(s, tc);
	return s;
}

SR_CHECK_MAIN(ladder_suite)
