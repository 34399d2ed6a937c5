/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * capture.c — pcap writing through libpcap's dumper.
 */
#include <errno.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "capture.h"

struct sr_capture {
	pcap_t *pcap;
	pcap_dumper_t *dump;
	uint32_t snaplen;
	uint64_t count;
	uint8_t *buf;          /* gathers segmented frames */
};

struct sr_capture *sr_capture_open(const char *path, uint32_t snaplen,
				   char *err, size_t errlen)
{
	struct sr_capture *cap = calloc(1, sizeof(*cap));

	if (cap == NULL) {
		snprintf(err, errlen, "capture %s: out of memory", path);
		return NULL;
	}
	cap->snaplen = snaplen;
	cap->buf = malloc(snaplen);
	if (cap->buf == NULL) {
		snprintf(err, errlen, "capture %s: out of memory", path);
		goto out_free;
	}
	cap->pcap = pcap_open_dead_with_tstamp_precision(DLT_EN10MB, (int)snaplen,
							 PCAP_TSTAMP_PRECISION_NANO);
	if (cap->pcap == NULL) {
		snprintf(err, errlen, "capture %s: pcap_open_dead failed", path);
		goto out_free_buf;
	}
	cap->dump = pcap_dump_open(cap->pcap, path);
	if (cap->dump == NULL) {
		snprintf(err, errlen, "capture %s: %s", path,
			 pcap_geterr(cap->pcap));
		goto out_close_pcap;
	}
	return cap;
out_close_pcap:
	pcap_close(cap->pcap);
out_free_buf:
	free(cap->buf);
out_free:
	free(cap);
	return NULL;
}

int sr_capture_frame(struct sr_capture *cap, const uint8_t *frame,
		     uint32_t len)
{
	struct pcap_pkthdr h;
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	h.ts.tv_sec = ts.tv_sec;
	h.ts.tv_usec = ts.tv_nsec;   /* nanosecond precision file */
	h.len = len;
	h.caplen = len < cap->snaplen ? len : cap->snaplen;
	pcap_dump((u_char *)cap->dump, &h, frame);
	cap->count++;
	return 0;
}

int sr_capture_segs(struct sr_capture *cap, const uint8_t *const *seg,
		    const uint32_t *seg_len, uint32_t n, uint32_t len)
{
	uint32_t off = 0;

	if (n == 1)
		return sr_capture_frame(cap, seg[0], len);
	for (uint32_t i = 0; i < n && off < cap->snaplen; i++) {
		uint32_t take = seg_len[i];

		if (take > cap->snaplen - off)
			take = cap->snaplen - off;
		memcpy(cap->buf + off, seg[i], take);
		off += take;
	}
	/* caplen is min(len, snaplen) == off; the header keeps len. */
	return sr_capture_frame(cap, cap->buf, len);
}

uint64_t sr_capture_count(const struct sr_capture *cap)
{
	return cap->count;
}

void sr_capture_flush(struct sr_capture *cap)
{
	if (cap)
		pcap_dump_flush(cap->dump);
}

void sr_capture_close(struct sr_capture *cap)
{
	if (cap == NULL)
		return;
	pcap_dump_close(cap->dump);
	pcap_close(cap->pcap);
	free(cap->buf);
	free(cap);
}
