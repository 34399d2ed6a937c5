/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * simlink.h — a deterministic simulated wire between two sroce devices.
 *
 * Two ports, each implementing struct sr_link_ops for one device, joined
 * by a queue of frames in flight ordered by delivery time on a virtual
 * clock.  A seeded PRNG decides, per frame: loss, duplication, extra
 * delay (reordering), corruption (one bit flipped: the ICRC catches it),
 * and a base delay with jitter.  Same seed, same run, byte for byte.
 *
 * sim_step() delivers what is due, polls both devices, and when nothing
 * moved advances the clock straight to the next frame or timer, so long
 * timeouts cost no real time.
 */
#ifndef SR_TEST_SIMLINK_H
#define SR_TEST_SIMLINK_H

#include <stdbool.h>
#include <stdint.h>

#include "core/dev.h"
#include "core/link.h"

struct sim_cfg {
	uint64_t seed;
	uint32_t loss_ppm;      /* parts per million */
	uint32_t dup_ppm;
	uint32_t reorder_ppm;
	uint32_t corrupt_ppm;
	uint64_t delay_ns;      /* base one-way delay */
	uint64_t jitter_ns;     /* uniform extra delay */
	uint64_t reorder_ns;    /* extra delay of a reordered frame */
	uint64_t step_ns;       /* clock advance per busy step (0: 200) */
	uint32_t budget;        /* packets per poll (0: 16) */
};

struct sim_net;

/*
 * A tap sees every submitted frame before the wire does (from: port 0 or
 * 1).  Return false to swallow it.  The frame may be modified.
 */
typedef bool (*sim_tap_fn)(void *ctx, int from, uint8_t *frame, uint32_t *len);

struct sim_net *sim_create(const struct sim_cfg *cfg);
/* Frees frames still in flight.  Returns frames that leaked (tx_alloc'd
 * buffers never submitted nor aborted). */
int sim_destroy(struct sim_net *n);

const struct sr_link_ops *sim_ops(void);
void *sim_port(struct sim_net *n, int port);   /* link ctx of a port */
void sim_attach(struct sim_net *n, int port, struct sr_dev *dev);
void sim_set_tap(struct sim_net *n, sim_tap_fn fn, void *ctx);
/*
 * Frames a port sent with their payload by reference (tx_alloc_ref, used
 * by a device whose sr_dev_config.tx_ref_min is set; the port copies the
 * payload in at submit and puts the region's reference).
 */
uint64_t sim_by_ref(const struct sim_net *n, int port);
/* Port's transmit buffers: room more, then none (a full queue); -1: any. */
void sim_set_tx_room(struct sim_net *n, int port, long room);
void sim_set_cfg(struct sim_net *n, const struct sim_cfg *cfg);

/* Inject a frame as if port from had sent it (through loss etc. unless raw). */
void sim_inject(struct sim_net *n, int from, const uint8_t *frame,
		uint32_t len);

/* One step.  Returns true if anything happened or is still pending. */
bool sim_step(struct sim_net *n);
/* The same, but never jumping the clock to a timer: runs until quiet. */
bool sim_step_frames(struct sim_net *n);
uint64_t sim_now(const struct sim_net *n);
void sim_advance(struct sim_net *n, uint64_t ns);
uint32_t sim_in_flight(const struct sim_net *n);
uint64_t sim_rand(struct sim_net *n);

struct sim_stats {
	uint64_t sent, delivered, lost, duped, reordered, corrupted;
};
void sim_stats(const struct sim_net *n, struct sim_stats *s);

#endif /* SR_TEST_SIMLINK_H */
