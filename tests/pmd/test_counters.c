/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_counters.c — counter names, the stats file and its fault control
 * block, and the capture writer read back with libpcap.
 */
#include <errno.h>
#include <limits.h>
#include <pcap/pcap.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture.h"
#include "core/counters.h"
#include "counters.h"
#include "wire/parse.h"
#include "sr_check.h"

START_TEST(test_names_unique)
{
	for (unsigned int i = 0; i < SR_CTR_MAX; i++) {
		ck_assert_str_ne(sr_stats_dev_name(i), "?");
		for (unsigned int j = i + 1; j < SR_CTR_MAX; j++)
			ck_assert_str_ne(sr_stats_dev_name(i), sr_stats_dev_name(j));
	}
	ck_assert_str_eq(sr_stats_dev_name(SR_CTR_SENT_PKTS), "sent_pkts");
	ck_assert_str_eq(sr_stats_qp_name(SR_QP_CTR_RETRIES), "retries");
	ck_assert_str_eq(sr_stats_dev_name(SR_CTR_MAX), "?");
}
END_TEST

/* Files of processes that are gone are removed; live ones stay. */
START_TEST(test_prune)
{
	char dir[] = "/tmp/sroce-prune-XXXXXX", path[PATH_MAX];
	struct sr_stats_shm *live;
	char dead[PATH_MAX];
	FILE *f;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	/* pid_max is at most 2^22: this pid cannot exist. */
	snprintf(dead, sizeof(dead), "%s/sroce-%d-0.stats", dir, 9999999);
	f = fopen(dead, "w");
	ck_assert_ptr_nonnull(f);
	fclose(f);
	live = sr_stats_create(dir, (int)getpid(), 0, path);
	ck_assert_ptr_nonnull(live);
	ck_assert_int_ne(access(dead, F_OK), 0);
	ck_assert_int_eq(access(path, F_OK), 0);
	ck_assert_uint_eq(sr_stats_prune(dir), 0);
	sr_stats_destroy(live, path);
	rmdir(dir);
}
END_TEST

START_TEST(test_shm_file)
{
	char dir[] = "/tmp/sroce-stats-XXXXXX", path[PATH_MAX];
	struct sr_stats_shm *w, *r;
	struct sr_fault_set set = { .n = 1 }, got;
	struct sr_stats_qp *q;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	w = sr_stats_create(dir, 1234, 3, path);
	ck_assert_ptr_nonnull(w);
	ck_assert_ptr_nonnull(strstr(path, "sroce-1234-3.stats"));
	r = sr_stats_open(path, true);
	ck_assert_ptr_nonnull(r);
	sr_stats_add(w, SR_CTR_ICRC_ERR, 5);
	ck_assert_uint_eq(r->dev[SR_CTR_ICRC_ERR], 5);
	q = sr_stats_qp_get(w, 17);
	ck_assert_ptr_nonnull(q);
	sr_stats_qp_add(q, SR_QP_CTR_TIMEOUTS, 2);
	ck_assert_uint_eq(sr_stats_qp_in_use(r), 1);
	ck_assert_uint_eq(r->qp[0].qpn, 17);
	ck_assert_uint_eq(r->qp[0].c[SR_QP_CTR_TIMEOUTS], 2);
	/* The transport's block: as many as lib has, set by copy. */
	ck_assert_uint_eq(r->n_xport_counters, SR_CNT_MAX);
	ck_assert_uint_eq(r->n_parse_counters, SR_PARSE_MAX);
	sr_stats_set(&q->xport[SR_CNT_RETRY], 9);
	sr_stats_set(&w->xport[SR_CNT_TIMEOUT], 4);
	ck_assert_uint_eq(r->qp[0].xport[SR_CNT_RETRY], 9);
	ck_assert_uint_eq(r->xport[SR_CNT_TIMEOUT], 4);
	sr_stats_qp_put(q);
	ck_assert_uint_eq(sr_stats_qp_in_use(w), 0);

	/* The tool publishes rules; the device picks them up once. */
	ck_assert(!sr_stats_fault_poll(w, &got));
	set.rule[0].action = SR_FAULT_DROP;
	set.rule[0].dir = SR_FAULT_TX;
	sr_stats_fault_publish(r, &set);
	ck_assert(sr_stats_fault_poll(w, &got));
	ck_assert_uint_eq(got.n, 1);
	ck_assert_uint_eq(got.rule[0].action, SR_FAULT_DROP);
	ck_assert_uint_eq(r->fault.applied_gen, r->fault.gen);
	ck_assert(!sr_stats_fault_poll(w, &got));
	/* A half-written set (odd count) is not taken. */
	r->fault.gen++;
	ck_assert(!sr_stats_fault_poll(w, &got));

	sr_stats_close(r);
	sr_stats_destroy(w, path);
	ck_assert_int_ne(access(path, F_OK), 0);
	errno = 0;
	ck_assert_ptr_null(sr_stats_open(path, false));
	rmdir(dir);
}
END_TEST

START_TEST(test_shm_private)
{
	char path[PATH_MAX];
	struct sr_stats_shm *s = sr_stats_create("", 1, 0, path);

	ck_assert_ptr_nonnull(s);
	ck_assert_str_eq(path, "");
	sr_stats_add(s, SR_CTR_RCVD_PKTS, 1);
	sr_stats_destroy(s, path);
	sr_stats_destroy(NULL, NULL);
}
END_TEST

START_TEST(test_capture_read_back)
{
	char path[] = "/tmp/sroce-cap-XXXXXX", err[256], perr[PCAP_ERRBUF_SIZE];
	uint8_t frame[100], part2[50];
	const uint8_t *segs[2] = { frame, part2 };
	const uint32_t seg_len[2] = { 50, 50 };
	struct pcap_pkthdr *h;
	const u_char *data;
	struct sr_capture *cap;
	int fd = mkstemp(path), n = 0;
	pcap_t *p;

	ck_assert_int_ge(fd, 0);
	close(fd);
	for (int i = 0; i < 100; i++)
		frame[i] = (uint8_t)i;
	memcpy(part2, frame + 50, 50);
	cap = sr_capture_open(path, 64, err, sizeof(err));
	ck_assert_ptr_nonnull(cap);
	ck_assert_int_eq(sr_capture_frame(cap, frame, 60), 0);
	ck_assert_int_eq(sr_capture_segs(cap, segs, seg_len, 2, 100), 0);
	ck_assert_uint_eq(sr_capture_count(cap), 2);
	sr_capture_close(cap);

	p = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO,
						    perr);
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(pcap_datalink(p), DLT_EN10MB);
	while (pcap_next_ex(p, &h, &data) == 1) {
		n++;
		ck_assert_uint_eq(h->len, n == 1 ? 60 : 100);
		ck_assert_uint_eq(h->caplen, 60 < h->len ? (n == 1 ? 60 : 64) : h->len);
		ck_assert_mem_eq(data, frame, h->caplen);
		ck_assert_int_gt(h->ts.tv_sec, 1600000000);
	}
	ck_assert_int_eq(n, 2);
	pcap_close(p);
	ck_assert_ptr_null(sr_capture_open("/nonexistent/dir/x.pcap", 64, err,
					   sizeof(err)));
	ck_assert_ptr_nonnull(strstr(err, "/nonexistent/dir/x.pcap"));
	unlink(path);
}
END_TEST

static Suite *counters_suite(void)
{
	Suite *s = suite_create("pmd/counters");
	TCase *tc = tcase_create("stats");

	tcase_add_test(tc, test_names_unique);
	tcase_add_test(tc, test_shm_file);
	tcase_add_test(tc, test_prune);
	tcase_add_test(tc, test_shm_private);
	tcase_add_test(tc, test_capture_read_back);
	suite_add_tcase(s, tc);
	return s;
}

SR_CHECK_MAIN(counters_suite)
