/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * link.h — the only contact between the transport in lib/ and a link.
 *
 * The transport never sees a port, an mbuf or a socket: it is handed whole
 * received frames (Ethernet first) and asks the link for transmit buffers,
 * builds frames into them and submits them (or, where the link can, points
 * a frame's payload at registered memory: one copy less per packet).  pmd/ implements these for DPDK
 * ports; the unit tests implement them as a simulated wire.
 */
#ifndef SR_CORE_LINK_H
#define SR_CORE_LINK_H

#include <stdint.h>

struct sr_mr_ref;

struct sr_link_ops {
	/*
	 * Get a transmit buffer with room for at least len bytes.  Returns its
	 * data pointer and sets *cookie to the link's handle, or returns NULL
	 * when the link has no buffer now (the transport retries later).
	 */
	uint8_t *(*tx_alloc)(void *link, uint32_t len, void **cookie);
	/* Queue the frame of len bytes built in the buffer of cookie. */
	void (*tx_submit)(void *link, void *cookie, uint32_t len);
	/* Give back a buffer from tx_alloc that will not be sent. */
	void (*tx_abort)(void *link, void *cookie);
	/*
	 * Optional (NULL: the transport always copies the payload).  A frame
	 * whose payload stays in registered memory: the link sends the first
	 * hdr_len bytes of the returned buffer, then len bytes at payload, then
	 * the tail_len bytes written into *tail.  It takes over *ref and puts
	 * it (sr_mr_ref_put) once it no longer reads the payload, before the
	 * engine round that submitted the frame ends: a frame that must wait
	 * longer is copied first, so deregistration, which waits for the
	 * reference, waits at most a round.  Returns NULL when it has no
	 * buffer now or cannot send this one by reference; *ref stays the
	 * caller's.  tx_submit (with the whole frame's length) and tx_abort
	 * take the cookie as for tx_alloc.
	 */
	uint8_t *(*tx_alloc_ref)(void *link, uint32_t hdr_len,
				 const uint8_t *payload, uint32_t len,
				 uint32_t tail_len, struct sr_mr_ref *ref,
				 uint8_t **tail, void **cookie);
	/* Monotonic clock in nanoseconds, for retransmit, RNR and ACK timers. */
	uint64_t (*now_ns)(void *link);
	/*
	 * Optional (NULL: now_ns).  The same clock read now, for completion
	 * timestamps: now_ns may answer the time the engine round started
	 * (one read per round), which can come before a post the round
	 * then completes.
	 */
	uint64_t (*clock_ns)(void *link);
};

/* One received frame, Ethernet header first. */
struct sr_link_frame {
	const uint8_t *data;
	uint32_t len;
};

/*
 * What a link calls with the UDP/4791 frames of a receive burst, in wire
 * order (n >= 1).  The frames are only valid during the call: the handler
 * copies what it keeps.  A burst, not a frame per call, so the handler
 * pays its per-call costs (a lane lock) once per burst.
 */
typedef void (*sr_link_rx_fn)(void *handler_ctx,
			      const struct sr_link_frame *frames,
			      unsigned int n);

#endif /* SR_CORE_LINK_H */
