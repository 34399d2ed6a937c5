/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fault.c — fault rules: parse, decide, corrupt, and the hold queue.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fault.h"
#include "frame.h"

static const char *const sr_fault_names[SR_FAULT_ACTION_MAX] = {
	[SR_FAULT_NONE] = "none",
#define SR_FAULT_NAME(e, s) [SR_FAULT_##e] = s,
	SR_FAULT_ACTIONS(SR_FAULT_NAME)
#undef SR_FAULT_NAME
};

static const struct {
	const char *name;
	uint8_t dir;
} sr_fault_dirs[] = {
	{ .name = "tx", .dir = SR_FAULT_TX },
	{ .name = "rx", .dir = SR_FAULT_RX },
	{ .name = "both", .dir = SR_FAULT_TX | SR_FAULT_RX },
};

const char *sr_fault_action_name(unsigned int action)
{
	return action < SR_FAULT_ACTION_MAX ? sr_fault_names[action] : "?";
}

static int sr_fault_parse_u32(const char *s, uint32_t max, uint32_t *out)
{
	char *end;
	unsigned long v;

	if (*s == '\0' || *s == '-')
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || *end != '\0' || v > max)
		return -EINVAL;
	*out = (uint32_t)v;
	return 0;
}

/* "0.05" or "5%" -> parts per million. */
static int sr_fault_parse_prob(const char *s, uint32_t *ppm)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s)
		return -EINVAL;
	if (*end == '%') {
		v /= 100.0;
		end++;
	}
	if (*end != '\0' || !(v >= 0.0 && v <= 1.0))
		return -EINVAL;
	*ppm = (uint32_t)(v * 1e6 + 0.5);
	return 0;
}

static int sr_fault_parse_kv(struct sr_fault_rule *r, char *tok, char *err,
			     size_t errlen)
{
	char *eq = strchr(tok, '=');
	const char *key = tok, *val;
	uint32_t v;
	int rc = -EINVAL;

	if (eq == NULL)
		goto out_bad;
	*eq = '\0';
	val = eq + 1;

	if (strcmp(key, "prob") == 0) {
		rc = sr_fault_parse_prob(val, &r->prob_ppm);
	} else if (strcmp(key, "opcode") == 0) {
		rc = sr_fault_parse_u32(val, 0xff, &v);
		r->opcode = (int16_t)v;
	} else if (strcmp(key, "psn") == 0) {
		rc = sr_fault_parse_u32(val, 0xffffff, &v);
		r->psn = (int32_t)v;
	} else if (strcmp(key, "every") == 0) {
		rc = sr_fault_parse_u32(val, UINT32_MAX, &r->every);
	} else if (strcmp(key, "us") == 0) {
		rc = sr_fault_parse_u32(val, 10000000, &r->delay_us);
	} else if (strcmp(key, "times") == 0) {
		rc = sr_fault_parse_u32(val, UINT32_MAX, &r->times);
	}
	if (rc == 0)
		return 0;
	*eq = '=';
out_bad:
	snprintf(err, errlen, "bad fault term '%s' (want prob=, opcode=, psn=, every=, us=, times=)",
		 tok);
	return -EINVAL;
}

int sr_fault_rule_parse(struct sr_fault_rule *r, const char *text, char *err,
			size_t errlen)
{
	char buf[256], *save = NULL, *tok;
	bool has_prob = false;
	size_t i;

	*r = (struct sr_fault_rule){ .opcode = -1, .psn = -1,
				     .prob_ppm = UINT32_MAX };
	if (strlen(text) >= sizeof(buf)) {
		snprintf(err, errlen, "fault rule too long");
		return -EINVAL;
	}
	strcpy(buf, text);

	tok = strtok_r(buf, " \t", &save);
	for (i = 0; tok && i < sizeof(sr_fault_dirs) / sizeof(sr_fault_dirs[0]); i++)
		if (strcmp(tok, sr_fault_dirs[i].name) == 0)
			r->dir = sr_fault_dirs[i].dir;
	if (r->dir == 0) {
		snprintf(err, errlen, "fault rule '%s': want tx, rx or both first",
			 text);
		return -EINVAL;
	}
	tok = strtok_r(NULL, " \t", &save);
	for (i = SR_FAULT_NONE + 1; tok && i < SR_FAULT_ACTION_MAX; i++)
		if (strcmp(tok, sr_fault_names[i]) == 0)
			r->action = (uint8_t)i;
	if (r->action == SR_FAULT_NONE) {
		snprintf(err, errlen,
			 "fault rule '%s': want drop, dup, reorder, delay, corrupt or ce",
			 text);
		return -EINVAL;
	}
	while ((tok = strtok_r(NULL, " \t", &save)) != NULL) {
		if (strncmp(tok, "prob=", 5) == 0)
			has_prob = true;
		if (sr_fault_parse_kv(r, tok, err, errlen))
			return -EINVAL;
	}
	if (!has_prob)
		r->prob_ppm = 1000000;
	if (r->action == SR_FAULT_DELAY && r->delay_us == 0)
		r->delay_us = 1000;
	return 0;
}

int sr_fault_rule_format(const struct sr_fault_rule *r, char *buf, size_t len)
{
	const char *dir = r->dir == (SR_FAULT_TX | SR_FAULT_RX) ? "both" :
			  r->dir == SR_FAULT_RX ? "rx" : "tx";
	int n = snprintf(buf, len, "%s %s prob=%.6g", dir,
			 sr_fault_action_name(r->action), r->prob_ppm / 1e6);

	if (r->opcode >= 0)
		n += snprintf(buf + n, len > (size_t)n ? len - n : 0,
			      " opcode=%d", r->opcode);
	if (r->psn >= 0)
		n += snprintf(buf + n, len > (size_t)n ? len - n : 0,
			      " psn=%" PRId32, r->psn);
	if (r->every)
		n += snprintf(buf + n, len > (size_t)n ? len - n : 0,
			      " every=%" PRIu32, r->every);
	if (r->action == SR_FAULT_DELAY)
		n += snprintf(buf + n, len > (size_t)n ? len - n : 0,
			      " us=%" PRIu32, r->delay_us);
	if (r->times)
		n += snprintf(buf + n, len > (size_t)n ? len - n : 0,
			      " times=%" PRIu32, r->times);
	return n;
}

void sr_fault_state_init(struct sr_fault_state *st,
			 const struct sr_fault_set *set)
{
	memset(st, 0, sizeof(*st));
	st->set = *set;
	if (st->set.n > SR_FAULT_RULES_MAX)
		st->set.n = SR_FAULT_RULES_MAX;
	st->rng = set->seed ? set->seed : 0x9e3779b97f4a7c15ull;
}

/* xorshift64*: cheap, reproducible from the seed. */
static uint64_t sr_fault_rand(struct sr_fault_state *st)
{
	uint64_t x = st->rng;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	st->rng = x;
	return x * 0x2545f4914f6cdd1dull;
}

unsigned int sr_fault_decide(struct sr_fault_state *st, unsigned int dir,
			     const uint8_t *frame, uint32_t len,
			     uint64_t *delay_ns)
{
	const struct sr_bth *bth;
	struct sr_frame f;
	uint8_t opcode;
	uint32_t psn;

	if (!sr_frame_layout(frame, len, &f) || !sr_frame_is_roce(frame, &f))
		return SR_FAULT_NONE;
	bth = sr_frame_bth(frame, &f);
	opcode = sr_bth_opcode(bth);
	psn = sr_bth_psn(bth);

	for (uint32_t i = 0; i < st->set.n; i++) {
		const struct sr_fault_rule *r = &st->set.rule[i];

		if (!(r->dir & dir) || r->action == SR_FAULT_NONE ||
		    r->action >= SR_FAULT_ACTION_MAX)
			continue;
		if (r->opcode >= 0 && r->opcode != opcode)
			continue;
		if (r->psn >= 0 && (uint32_t)r->psn != psn)
			continue;
		if (r->times && st->acted[i] >= r->times)
			continue;
		if (r->every && ++st->match[i] % r->every != 0)
			continue;
		if (r->prob_ppm < 1000000 &&
		    sr_fault_rand(st) % 1000000 >= r->prob_ppm)
			continue;
		*delay_ns = (uint64_t)r->delay_us * 1000;
		st->acted[i]++;
		st->hits[r->action]++;
		return r->action;
	}
	return SR_FAULT_NONE;
}

void sr_fault_corrupt(uint8_t *frame, uint32_t len)
{
	struct sr_frame f;

	if (!sr_frame_layout(frame, len, &f) || !sr_frame_is_roce(frame, &f))
		return;
	/* The low bit of the ICRC's last byte. */
	frame[f.l4 + f.l4_len - 1] ^= 0x01;
}

int sr_fault_hold_push(struct sr_fault_hold *h, void *frame, uint64_t due_ns)
{
	uint32_t tail;

	if (h->count == SR_FAULT_HOLD_MAX)
		return -ENOSPC;
	tail = (h->head + h->count) % SR_FAULT_HOLD_MAX;
	h->slot[tail].frame = frame;
	h->slot[tail].due_ns = due_ns;
	h->count++;
	return 0;
}

static uint32_t sr_fault_hold_take(struct sr_fault_hold *h, bool all,
				   uint64_t now_ns, bool passed, void **out,
				   uint32_t max)
{
	uint32_t n = 0, kept = 0, count = h->count;

	/* Walk the ring once, compacting what stays in place (order kept). */
	for (uint32_t i = 0; i < count; i++) {
		uint32_t at = (h->head + i) % SR_FAULT_HOLD_MAX;
		uint64_t due = h->slot[at].due_ns;
		bool go = all || (due == UINT64_MAX ? passed : due <= now_ns);

		if (go && n < max) {
			out[n++] = h->slot[at].frame;
		} else {
			uint32_t to = (h->head + kept) % SR_FAULT_HOLD_MAX;

			h->slot[to] = h->slot[at];
			kept++;
		}
	}
	h->count = kept;
	return n;
}

uint32_t sr_fault_hold_pop(struct sr_fault_hold *h, uint64_t now_ns,
			   bool passed, void **out, uint32_t max)
{
	if (h->count == 0)
		return 0;
	return sr_fault_hold_take(h, false, now_ns, passed, out, max);
}

uint32_t sr_fault_hold_drain(struct sr_fault_hold *h, void **out, uint32_t max)
{
	return sr_fault_hold_take(h, true, 0, false, out, max);
}

bool sr_fault_mark_ce(uint8_t *frame, uint32_t len)
{
	struct sr_frame f;
	uint8_t *ip;
	uint32_t sum;

	if (!sr_frame_layout(frame, len, &f) || !sr_frame_is_roce(frame, &f))
		return false;
	ip = frame + f.l3;
	if (f.ip_version == 6) {
		if ((ip[1] & 0x30) == 0)           /* Not-ECT */
			return false;
		ip[1] |= 0x30;
		return true;
	}
	if ((ip[1] & 0x03) == 0)
		return false;
	/* RFC 1624: HC' = ~(~HC + ~m + m') over the word [ver/ihl, tos] */
	sum = (uint16_t)~sr_get_be16(ip + 10) + (uint16_t)~sr_get_be16(ip);
	ip[1] |= 0x03;
	sum += sr_get_be16(ip);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	sr_put_be16(ip + 10, (uint16_t)~sum);
	return true;
}
