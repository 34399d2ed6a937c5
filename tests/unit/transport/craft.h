/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * craft.h — crafted packets for the transport tests: frames built with the
 * wire builder are injected into a node as if the other node sent them,
 * and a node's answers are captured (and kept from the other node).
 */
#ifndef SR_TEST_CRAFT_H
#define SR_TEST_CRAFT_H

#include <stdbool.h>
#include <stdint.h>

#include "harness.h"
#include "wire/build.h"

#define MAXCAP 64
#define NAK(c) (SR_AETH_NAK | SR_NAK_##c)

struct cap {
	int n;
	uint8_t op[MAXCAP];
	uint32_t psn[MAXCAP];
	uint8_t syn[MAXCAP];
	uint32_t msn[MAXCAP];
	uint64_t va[MAXCAP];
	uint32_t rlen[MAXCAP];
	uint32_t plen[MAXCAP];
	uint64_t orig[MAXCAP];
	int swallow;     /* frames from this node are captured and dropped */
};

/* A sim tap (sim_set_tap): captures node c->swallow's frames. */
bool cap_tap(void *ctx, int from, uint8_t *frame, uint32_t *len);
/* A frame from node `from` to node 1-from's QP. */
void craft_init(struct h_pair *p, int from, struct sr_build *b,
		uint8_t opcode, uint32_t psn);
void craft_send(struct h_pair *p, int from, const struct sr_build *b,
		const void *payload, uint32_t len);
/* node 0 sends node 1 a READ of len bytes of its buffer at off. */
void craft_read(struct h_pair *p, uint32_t psn, uint32_t off, uint32_t len);
/* An ACKNOWLEDGE from node 1 with this AETH. */
void craft_ack(struct h_pair *p, uint32_t psn, uint8_t syn, uint32_t msn);
/* Run the simulated wire until nothing moves. */
void settle(struct h_pair *p);

#endif /* SR_TEST_CRAFT_H */
