/* SPDX-License-Identifier: BSD-3-Clause */
/* dissect.h — one line of text for a parsed RoCEv2 packet. */
#ifndef SROCE_PCAP_DISSECT_H
#define SROCE_PCAP_DISSECT_H

#include <stdio.h>

#include "wire/parse.h"

/* Print addresses, ports, BTH, extension headers, payload and ICRC. */
void sr_dissect_line(FILE *out, const struct sr_pkt *pkt, bool icrc_ok);

/* "RC SEND_FIRST" for an opcode, into buf. */
const char *sr_dissect_opname(uint8_t opcode, char *buf, size_t len);

#endif
