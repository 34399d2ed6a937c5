/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdio.h>

#include "wire/hdr.h"

static const char *sr_nak_text(uint8_t code)
{
	switch (code) {
#define SR_X_CASE(n, c, t) case c: return t;
	SR_NAK_CODES(SR_X_CASE)
#undef SR_X_CASE
	}
	return "reserved NAK code";
}

/* "ACK credits=31", "RNR NAK timer=14", "NAK PSN sequence error". */
const char *sr_aeth_syndrome_str(uint8_t syndrome, char *buf, unsigned int len)
{
	uint8_t v = SR_AETH_VALUE(syndrome);

	switch (syndrome & SR_AETH_TYPE_MASK) {
	case SR_AETH_ACK:
		snprintf(buf, len, "ACK credits=%u", v);
		break;
	case SR_AETH_RNR_NAK:
		snprintf(buf, len, "RNR-NAK timer=%u", v);
		break;
	case SR_AETH_NAK:
		snprintf(buf, len, "NAK %s", sr_nak_text(v));
		break;
	default:
		snprintf(buf, len, "reserved syndrome 0x%02x", syndrome);
		break;
	}
	return buf;
}
