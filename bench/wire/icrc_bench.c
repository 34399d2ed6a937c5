/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sroce-bench-wire — how fast the wire code runs on one core:
 *   ICRC over whole frames of 64 B, 1 KiB, 4 KiB and 9000 B (GB/s of frame
 *   bytes and ns per frame), the raw CRC-32 over the same sizes, and the
 *   full receive check (parse with ICRC) and build (headers, copy, ICRC).
 * Prints figures; asserts nothing.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "wire/build.h"
#include "wire/icrc.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint8_t frame[16384];
static uint8_t payload[16384];
static volatile uint32_t sink;

static void describe(struct sr_build *b, uint8_t opcode)
{
	memset(b, 0, sizeof(*b));
	b->sgid[10] = b->sgid[11] = b->dgid[10] = b->dgid[11] = 0xff;
	b->sgid[15] = 1;
	b->dgid[15] = 2;
	b->hop_limit = 64;
	b->opcode = opcode;
	b->pkey = 0xffff;
	b->sport = 0xc000;
}

/* Run fn until ~0.3 s have passed; returns seconds per call. */
#define TIME_LOOP(iters_out, body)                                   \
	do {                                                         \
		double t0 = now_s(), t;                              \
		uint64_t n_ = 0;                                     \
		do {                                                 \
			for (int k_ = 0; k_ < 1024; k_++) { body; }  \
			n_ += 1024;                                  \
			t = now_s() - t0;                            \
		} while (t < 0.3);                                   \
		iters_out = t / (double)n_;                         \
	} while (0)

int main(void)
{
	static const uint32_t sizes[] = { 64, 1024, 4096, 9000 };
	struct sr_build b;
	struct sr_pkt pkt;
	unsigned int i;
	double per;

	printf("%-28s %8s %10s %10s\n", "operation", "frame", "ns/frame", "GB/s");
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		uint32_t fl = sizes[i];
		/* Frame bytes covered from IP on: fl - 14 (Ethernet) - 4 (ICRC). */
		uint32_t span = fl - 18;

		describe(&b, SR_OPCODE(RC, WRITE_MIDDLE));
		(void)sr_build_frame(frame, sizeof(frame), &b, payload, 0);
		TIME_LOOP(per, sink += sr_icrc_calc(frame + 14, false, span));
		printf("%-28s %7uB %10.1f %10.2f\n", "icrc (masked prefix+body)", fl,
		       per * 1e9, fl / per / 1e9);
		TIME_LOOP(per, sink += crc32_gzip_refl(0, frame, fl));
		printf("%-28s %7uB %10.1f %10.2f\n", "crc32_gzip_refl raw", fl,
		       per * 1e9, fl / per / 1e9);
	}
	for (i = 0; i < 3; i++) {
		uint32_t plen = sizes[i] == 64 ? 8 : sizes[i];
		int n;

		describe(&b, SR_OPCODE(RC, WRITE_MIDDLE));
		n = sr_build_frame(frame, sizeof(frame), &b, payload, plen);
		TIME_LOOP(per, sink += sr_parse_eth(frame, (uint32_t)n, 0, &pkt));
		printf("%-28s %7dB %10.1f %10.2f\n", "parse + ICRC check", n,
		       per * 1e9, n / per / 1e9);
		TIME_LOOP(per, sink += (uint32_t)sr_build_frame(frame, sizeof(frame),
								&b, payload, plen));
		printf("%-28s %7dB %10.1f %10.2f\n", "build + copy + ICRC", n,
		       per * 1e9, n / per / 1e9);
	}
	return 0;
}
