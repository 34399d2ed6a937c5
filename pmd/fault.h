/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fault.h — fault injection on the link: drop, duplicate, reorder, delay
 * and corrupt frames, by probability or by rule, on transmit and receive.
 *
 * Pure C (no DPDK): the decision and the hold queue work on opaque frame
 * handles, so they are unit-tested without an EAL.  rxtx.c applies the
 * verdicts to mbufs.  Rules are set at start from the configuration and can
 * be replaced while traffic runs through the control block in the stats
 * shared memory (see counters.h), which tools/sroce-stat writes.
 */
#ifndef SR_PMD_FAULT_H
#define SR_PMD_FAULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SR_FAULT_RULES_MAX 8
#define SR_FAULT_HOLD_MAX 256

/* Fault actions: X(enum suffix, config name). */
#define SR_FAULT_ACTIONS(X)      \
	X(DROP, "drop")          \
	X(DUP, "dup")            \
	X(REORDER, "reorder")    \
	X(DELAY, "delay")        \
	X(CORRUPT, "corrupt")    \
	X(CE, "ce")

enum sr_fault_action {
	SR_FAULT_NONE = 0,
#define SR_FAULT_ENUM(e, s) SR_FAULT_##e,
	SR_FAULT_ACTIONS(SR_FAULT_ENUM)
#undef SR_FAULT_ENUM
	SR_FAULT_ACTION_MAX
};

/* Direction mask of a rule. */
enum sr_fault_dir {
	SR_FAULT_TX = 1u << 0,
	SR_FAULT_RX = 1u << 1,
};

/*
 * One rule.  A frame matches when every set criterion holds: UDP/4791 frames
 * only; opcode and PSN read from the BTH (-1 = any); then "every Nth
 * matching frame" (0 = each) and then the probability (parts per million,
 * 1000000 = always).  The first matching rule acts.  A rule that acted
 * `times` times is spent: it matches nothing more.
 */
struct sr_fault_rule {
	uint8_t dir;          /* enum sr_fault_dir mask */
	uint8_t action;       /* enum sr_fault_action */
	int16_t opcode;       /* BTH opcode or -1 */
	int32_t psn;          /* 24-bit PSN or -1 */
	uint32_t every;       /* act on every Nth match, 0 = every match */
	uint32_t prob_ppm;    /* probability in parts per million */
	uint32_t delay_us;    /* DELAY: hold time; REORDER: ignored */
	uint32_t times;       /* act at most this many times, 0 = no limit */
};

/* A rule set: what the config and the control block carry. */
struct sr_fault_set {
	uint32_t n;
	uint32_t reserved;
	uint64_t seed;
	struct sr_fault_rule rule[SR_FAULT_RULES_MAX];
};

/* Name of an action ("drop"...), or "?" for an unknown value. */
const char *sr_fault_action_name(unsigned int action);

/*
 * Parse one rule in the config syntax
 *   <tx|rx|both> <drop|dup|reorder|delay|corrupt|ce> [prob=P] [opcode=N]
 *   [psn=N] [every=N] [us=N] [times=N]
 * P is a fraction 0..1 or a percentage ("5%").  Without prob= and every=
 * the rule always acts.  Returns 0 or -EINVAL with a reason in err.
 */
int sr_fault_rule_parse(struct sr_fault_rule *r, const char *text,
			char *err, size_t errlen);

/* Format a rule back into the config syntax.  Returns snprintf's count. */
int sr_fault_rule_format(const struct sr_fault_rule *r, char *buf,
			 size_t len);

/* The state one direction of a device keeps to apply a rule set. */
struct sr_fault_state {
	struct sr_fault_set set;
	uint64_t rng;
	uint32_t match[SR_FAULT_RULES_MAX];   /* matches seen per rule */
	uint32_t acted[SR_FAULT_RULES_MAX];   /* verdicts given per rule */
	uint64_t hits[SR_FAULT_ACTION_MAX];   /* verdicts given */
};

/* Load a rule set; resets per-rule counts and seeds the generator. */
void sr_fault_state_init(struct sr_fault_state *st,
			 const struct sr_fault_set *set);

/* True when a rule set holds a rule for dir: the fast path skips the rest. */
static inline bool sr_fault_active(const struct sr_fault_state *st,
				   unsigned int dir)
{
	for (uint32_t i = 0; i < st->set.n; i++)
		if (st->set.rule[i].dir & dir)
			return true;
	return false;
}

/*
 * Decide the fate of one frame (Ethernet first) in direction dir.  Returns
 * an enum sr_fault_action; for DELAY sets *delay_ns.  Frames other than
 * UDP/4791 (ARP, ND) always get SR_FAULT_NONE.
 */
unsigned int sr_fault_decide(struct sr_fault_state *st, unsigned int dir,
			     const uint8_t *frame, uint32_t len,
			     uint64_t *delay_ns);

/* Flip one bit of the ICRC (the last 4 bytes of the UDP payload). */
void sr_fault_corrupt(uint8_t *frame, uint32_t len);

/*
 * Mark the frame CE, as a congested switch does: the IP ECN field of an
 * ECN-capable (ECT) frame becomes CE, the IPv4 checksum follows (the ICRC
 * masks the field).  Returns false, changing nothing, for a Not-ECT frame.
 */
bool sr_fault_mark_ce(uint8_t *frame, uint32_t len);

/*
 * A hold queue for delayed and reordered frames: opaque handles released
 * when their time comes (REORDER holds until the next frame passes).
 */
struct sr_fault_hold {
	uint32_t head, count;
	struct {
		void *frame;
		uint64_t due_ns;   /* UINT64_MAX: release after the next frame */
	} slot[SR_FAULT_HOLD_MAX];
};

/* Add a frame.  Returns 0 or -ENOSPC when the queue is full. */
int sr_fault_hold_push(struct sr_fault_hold *h, void *frame, uint64_t due_ns);

/*
 * Take the frames that are due at now_ns (and, when passed is true, those
 * held for reorder) into out, at most max.  Returns the count.
 */
uint32_t sr_fault_hold_pop(struct sr_fault_hold *h, uint64_t now_ns,
			   bool passed, void **out, uint32_t max);

/* Take every frame regardless of time (teardown).  Returns the count. */
uint32_t sr_fault_hold_drain(struct sr_fault_hold *h, void **out,
			     uint32_t max);

#endif /* SR_PMD_FAULT_H */
