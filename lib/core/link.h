/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * link.h — the only contact between the transport in lib/ and a link.
 *
 * The transport never sees a port, an mbuf or a socket: it is handed whole
 * received frames (Ethernet first) and asks the link for transmit buffers,
 * builds frames into them and submits them.  pmd/ implements these for DPDK
 * ports; the unit tests implement them as a simulated wire.
 */
#ifndef SR_CORE_LINK_H
#define SR_CORE_LINK_H

#include <stdint.h>

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
	/* Monotonic clock in nanoseconds, for retransmit, RNR and ACK timers. */
	uint64_t (*now_ns)(void *link);
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
 * pays its per-call costs (the device lock) once per burst.
 */
typedef void (*sr_link_rx_fn)(void *handler_ctx,
			      const struct sr_link_frame *frames,
			      unsigned int n);

#endif /* SR_CORE_LINK_H */
