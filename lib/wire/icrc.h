/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * icrc.h — the RoCEv2 invariant CRC (IBTA Annex A17.3.3).
 *
 * ICRC = CRC-32 (the Ethernet FCS polynomial, reflected) over
 *   8 bytes of 0xFF  (standing in for the InfiniBand LRH),
 *   the IP header    with IPv4 TOS, TTL, checksum / IPv6 traffic class,
 *                    flow label, hop limit set to all ones,
 *   the UDP header   with the checksum set to all ones,
 *   the BTH          with the FECN/BECN/reserved byte set to all ones,
 *   everything after the BTH up to the ICRC (extension headers, payload,
 *   pad), and is stored little-endian after the pad.
 * Only the first part is copied and masked (at most 68 bytes); the rest is
 * summed in place, so a payload in several segments continues the same CRC.
 * The CRC is ISA-L's crc32_gzip_refl (folding with PCLMULQDQ/VPCLMULQDQ).
 */
#ifndef SR_WIRE_ICRC_H
#define SR_WIRE_ICRC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <isa-l/crc.h>

/*
 * CRC of the masked prefix: 0xFF bytes, IP, UDP and BTH.  l3 points at the
 * IP header (IPv4 without options, or IPv6 with UDP as next header).
 */
uint32_t sr_icrc_hdr(const uint8_t *l3, bool ipv6);

/*
 * CRC of the first n bytes from l3, masked as above: the prefix and the
 * extension headers after it (n at least the prefix), in one call for up
 * to SR_ICRC_HDRS_MAX bytes.  Continue over the payload with
 * sr_icrc_update().
 */
#define SR_ICRC_HDRS_MAX 128
uint32_t sr_icrc_hdrs(const uint8_t *l3, bool ipv6, uint32_t n);

/* Continue the CRC over len more bytes, in place. */
static inline uint32_t sr_icrc_update(uint32_t crc, const void *data,
				      size_t len)
{
	return crc32_gzip_refl(crc, (const unsigned char *)data, (uint64_t)len);
}

/*
 * ICRC of a whole packet: l3 points at the IP header, len counts the bytes
 * from there to the ICRC (exclusive).  len must cover IP, UDP and BTH.
 */
uint32_t sr_icrc_calc(const uint8_t *l3, bool ipv6, uint32_t len);

/* The ICRC field as stored on the wire (little-endian). */
uint32_t sr_icrc_load(const uint8_t *p);
void sr_icrc_store(uint8_t *p, uint32_t icrc);

#endif /* SR_WIRE_ICRC_H */
