/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * route.c — whose CM a MAD is for, on a shared port (route.h).
 */
#include "cm/route.h"
#include "cm/mad.h"

void sr_cm_route_rx(const uint8_t *mad, uint32_t len, struct sr_cm_route *r)
{
	struct sr_cm_msg m;

	*r = (struct sr_cm_route){ .kind = SR_CM_ROUTE_OWNER };
	if (mad == NULL || sr_mad_parse(mad, len, &m) != SR_MAD_ERR_OK ||
	    m.method != SR_MAD_METHOD_SEND)
		return;
	r->attr_id = m.attr_id;
	switch (m.attr) {
	case SR_CM_ATTR_REQ:
	case SR_CM_ATTR_SIDR_REQ:
		r->kind = SR_CM_ROUTE_SERVICE;
		r->service_id = m.service_id;
		return;
	case SR_CM_ATTR_SIDR_REP:      /* its request ID is ours */
		r->comm_id = m.local_comm_id;
		break;
	case SR_CM_ATTR_MRA:
	case SR_CM_ATTR_REJ:
	case SR_CM_ATTR_REP:
	case SR_CM_ATTR_RTU:
	case SR_CM_ATTR_DREQ:
	case SR_CM_ATTR_DREP:
	case SR_CM_ATTR_LAP:
	case SR_CM_ATTR_APR:
		r->comm_id = m.remote_comm_id;
		break;
	default:
		return;
	}
	if (r->comm_id != 0)
		r->kind = SR_CM_ROUTE_COMM_ID;
}

int sr_cm_route_sender(const uint8_t *mad, uint32_t len, uint32_t *comm_id)
{
	struct sr_cm_msg m;

	*comm_id = 0;
	if (mad == NULL || sr_mad_parse(mad, len, &m) != SR_MAD_ERR_OK ||
	    m.method != SR_MAD_METHOD_SEND)
		return -1;
	switch (m.attr) {
	case SR_CM_ATTR_SIDR_REP:      /* the request ID is the peer's */
		return 0;
	case SR_CM_ATTR_REJ:           /* a REJ before any ID names none */
		if (m.local_comm_id == 0)
			return 0;
		break;
	case SR_CM_ATTR_REQ:
	case SR_CM_ATTR_SIDR_REQ:
	case SR_CM_ATTR_MRA:
	case SR_CM_ATTR_REP:
	case SR_CM_ATTR_RTU:
	case SR_CM_ATTR_DREQ:
	case SR_CM_ATTR_DREP:
	case SR_CM_ATTR_LAP:
	case SR_CM_ATTR_APR:
		break;
	default:
		return -1;
	}
	*comm_id = m.local_comm_id;
	return 1;
}
