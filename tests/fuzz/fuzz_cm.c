/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target for the CM MAD parser and the CM state machine.  The
 * input is a list of records: one control byte (bit 0: which peer GID it
 * comes from, bits 1-3: how far the clock moves, bits 4-7: a consumer call
 * to make on the last id) then up to 256 bytes of MAD.  Every MAD that
 * parses as a Send must rebuild to the same fields; the CM must never
 * crash, and when everything is destroyed no id may be left.
 */
#include <stdlib.h>
#include <string.h>

#include "cm/cm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct sr_cm_id *last;
/* Every id the consumer was handed (events name them), to destroy at the
 * end; max_ids bounds how many exist at once. */
#define FZ_IDS 64
static struct sr_cm_id *held[FZ_IDS];
static unsigned int nheld;

static void fz_hold(struct sr_cm_id *id)
{
	for (unsigned int i = 0; i < nheld; i++)
		if (held[i] == id)
			return;
	if (nheld < FZ_IDS)
		held[nheld++] = id;
	else
		abort();        /* more ids than the CM may have: a leak */
}

static void fz_release(struct sr_cm_id *id, uint64_t now)
{
	for (unsigned int i = 0; i < nheld; i++)
		if (held[i] == id)
			held[i] = held[--nheld];
	sr_cm_id_destroy(id, now);
}

static void fz_send(void *ctx, const struct sr_cm_addr *to, const uint8_t *mad)
{
	struct sr_cm_msg m;

	(void)ctx;
	(void)to;
	/* What the CM sends must parse (Get responses aside). */
	if (mad[3] != SR_MAD_METHOD_GET_RESP &&
	    sr_mad_parse(mad, SR_MAD_SIZE, &m) != SR_MAD_ERR_OK)
		abort();
}

static void fz_event(void *ctx, struct sr_cm_id *id, const struct sr_cm_event *ev)
{
	(void)ctx;
	(void)ev;
	last = id;
	fz_hold(id);
}

static void check_round_trip(const uint8_t *mad)
{
	struct sr_cm_msg m, again;
	uint8_t out[SR_MAD_SIZE];

	if (sr_mad_parse(mad, SR_MAD_SIZE, &m) != SR_MAD_ERR_OK ||
	    m.method != SR_MAD_METHOD_SEND)
		return;
	if (sr_mad_build(&m, out) != (int)SR_MAD_SIZE)
		abort();
	if (sr_mad_parse(out, SR_MAD_SIZE, &again) != SR_MAD_ERR_OK ||
	    memcmp(&m, &again, sizeof(m)) != 0)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sr_cm_cfg cfg = {
		.ops = { .send = fz_send, .event = fz_event },
		.max_ids = 8, .timewait_ns = 1000000,
	};
	struct sr_cm_addr peers[2] = { { .pkey = 0xFFFF }, { .pkey = 0xFFFF } };
	struct sr_cm_id *l;
	struct sr_cm *cm = sr_cm_create(&cfg);
	uint64_t now = 1;

	if (cm == NULL)
		return 0;
	peers[1].gid[15] = 1;
	last = NULL;
	nheld = 0;
	if (sr_cm_listen(cm, 0x0000000001061C06ull, NULL, &l) == 0)
		fz_hold(l);
	while (size > 0) {
		uint8_t ctl = data[0];
		size_t len = size - 1 < SR_MAD_SIZE ? size - 1 : SR_MAD_SIZE;
		uint8_t *mad = malloc(len ? len : 1);

		if (mad == NULL)
			break;
		memcpy(mad, data + 1, len);
		if (len == SR_MAD_SIZE)
			check_round_trip(mad);
		sr_cm_input(cm, now, &peers[ctl & 1], mad, (uint32_t)len);
		free(mad);
		data += 1 + len;
		size -= 1 + len;
		now += sr_cm_timeout_ns((uint8_t)(ctl >> 1 & 7) * 3);
		sr_cm_poll(cm, now);
		if (last != NULL) {
			struct sr_cm_rep_param rp = { .qpn = 5 };

			switch (ctl >> 4) {
			case 1: (void)sr_cm_accept(last, now, &rp); break;
			case 2: (void)sr_cm_reject(last, now, 28, NULL, 0); break;
			case 3: (void)sr_cm_mra(last, now, 3, NULL, 0); break;
			case 4: (void)sr_cm_rtu(last, now, NULL, 0); break;
			case 5: (void)sr_cm_disconnect(last, now, NULL, 0); break;
			case 6: (void)sr_cm_drep(last, now, NULL, 0); break;
			case 7: (void)sr_cm_sidr_rep(last, now, 0, 5, 5, NULL, 0); break;
			case 8: (void)sr_cm_established(last, now); break;
			case 9: fz_release(last, now); last = NULL; break;
			default: break;
			}
		}
	}
	/* Destroy what the consumer holds, let every timewait end: then no
	 * id may be left. */
	while (nheld > 0)
		fz_release(held[nheld - 1], now);
	for (int i = 0; i < 8 && sr_cm_ids_in_use(cm) > 0; i++) {
		now += 1000000000000ull;
		sr_cm_poll(cm, now);
	}
	if (sr_cm_ids_in_use(cm) != 0)
		abort();
	sr_cm_destroy(cm);
	return 0;
}
