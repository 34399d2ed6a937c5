/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target for the parser.  Any input is parsed as an Ethernet
 * frame and as a bare IP packet; whatever is accepted is described and
 * rebuilt, and the rebuilt frame must parse to the same description and
 * carry the same payload (builder and parser agree on every input).  The
 * round trip also runs on frames accepted with the ICRC left unchecked:
 * a mutated frame almost never keeps a right ICRC, and checking only
 * those left the round trip to the seeds (an IPv6 header with an
 * IPv4-mapped address, which the builder sent back as IPv4, went
 * unnoticed that way).
 */
#include <stdlib.h>
#include <string.h>

#include "wire/build.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_round_trip(const struct sr_pkt *pkt)
{
	static uint8_t out[16384];
	struct sr_build b, again;
	struct sr_pkt p2;
	int n;

	sr_build_from_pkt(&b, pkt);
	n = sr_build_frame(out, sizeof(out), &b, sr_pkt_payload(pkt),
			   pkt->payload_len);
	if (n < 0)
		abort();
	if (sr_parse_eth(out, (uint32_t)n, 0, &p2) != SR_PARSE_OK)
		abort();
	sr_build_from_pkt(&again, &p2);
	if (memcmp(&again, &b, sizeof(b)) != 0 ||
	    p2.payload_len != pkt->payload_len ||
	    memcmp(sr_pkt_payload(&p2), sr_pkt_payload(pkt), pkt->payload_len))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sr_pkt pkt;
	uint8_t *copy;

	if (size > 65535)
		return 0;
	/* An exact-size copy so ASan sees any read past the end. */
	copy = malloc(size ? size : 1);
	if (copy == NULL)
		return 0;
	memcpy(copy, data, size);
	if (sr_parse_eth(copy, (uint32_t)size, 0, &pkt) == SR_PARSE_OK)
		check_round_trip(&pkt);
	if (sr_parse_eth(copy, (uint32_t)size, SR_PARSE_NO_ICRC, &pkt) ==
	    SR_PARSE_OK)
		check_round_trip(&pkt);
	(void)sr_parse_ip(copy, (uint32_t)size, SR_PARSE_NO_ICRC, &pkt);
	free(copy);
	return 0;
}
