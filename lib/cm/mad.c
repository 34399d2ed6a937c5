/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mad.c — the one parser and the one builder of CM MADs, both driven by
 * the SR_CM_FIELDS table of mad.h.
 */
#include <errno.h>
#include <string.h>

#include "cm/mad.h"

const struct sr_cm_attr_info sr_cm_attr_info[SR_CM_ATTR_COUNT] = {
#define SR_X(n, i, po, pl) \
	[SR_CM_ATTR_##n] = { .name = #n, .id = i, .pdata_off = po, .pdata_len = pl },
	SR_CM_ATTRS(SR_X)
#undef SR_X
};

#define SR_MEMBER_SIZE(m) sizeof(((struct sr_cm_msg *)0)->m)

const struct sr_cm_field_info sr_cm_field_info[SR_CM_F_COUNT] = {
#define SR_X(n, a, by, bi, w, m)                                          \
	[SR_CM_F_##n] = { .name = #n, .attr = SR_CM_ATTR_##a, .byte = by, \
			  .bit = bi, .width = w,                          \
			  .host_off = offsetof(struct sr_cm_msg, m),      \
			  .host_size = SR_MEMBER_SIZE(m) },
	SR_CM_FIELDS(SR_X)
#undef SR_X
};

const char *const sr_mad_err_name[SR_MAD_ERR_COUNT] = {
#define SR_X(n, t) [SR_MAD_ERR_##n] = t,
	SR_MAD_ERRORS(SR_X)
#undef SR_X
};

enum sr_cm_attr sr_cm_attr_by_id(uint16_t id)
{
	for (unsigned int a = 0; a < SR_CM_ATTR_COUNT; a++)
		if (sr_cm_attr_info[a].id == id)
			return (enum sr_cm_attr)a;
	return SR_CM_ATTR_COUNT;
}

uint64_t sr_cm_field_get(const uint8_t *data, enum sr_cm_field f)
{
	const struct sr_cm_field_info *fi = &sr_cm_field_info[f];
	unsigned int pos = fi->byte * 8u + fi->bit;
	uint64_t v = 0;

	for (unsigned int i = 0; i < fi->width && i < 64; i++, pos++)
		v = v << 1 | (uint64_t)(data[pos >> 3] >> (7 - (pos & 7)) & 1);
	return v;
}

void sr_cm_field_put(uint8_t *data, enum sr_cm_field f, uint64_t v)
{
	const struct sr_cm_field_info *fi = &sr_cm_field_info[f];
	unsigned int w = fi->width > 64 ? 64 : fi->width;
	unsigned int pos = fi->byte * 8u + fi->bit + w - 1;

	for (unsigned int i = 0; i < w; i++, pos--, v >>= 1) {
		uint8_t m = (uint8_t)(1u << (7 - (pos & 7)));

		if (v & 1)
			data[pos >> 3] |= m;
		else
			data[pos >> 3] &= (uint8_t)~m;
	}
}

static void host_store(struct sr_cm_msg *msg, const struct sr_cm_field_info *fi,
		       uint64_t v)
{
	uint8_t *p = (uint8_t *)msg + fi->host_off;

	switch (fi->host_size) {
	case 1: { uint8_t x = (uint8_t)v; memcpy(p, &x, 1); break; }
	case 2: { uint16_t x = (uint16_t)v; memcpy(p, &x, 2); break; }
	case 4: { uint32_t x = (uint32_t)v; memcpy(p, &x, 4); break; }
	default: memcpy(p, &v, 8); break;
	}
}

static uint64_t host_load(const struct sr_cm_msg *msg,
			  const struct sr_cm_field_info *fi)
{
	const uint8_t *p = (const uint8_t *)msg + fi->host_off;

	switch (fi->host_size) {
	case 1: { uint8_t x; memcpy(&x, p, 1); return x; }
	case 2: { uint16_t x; memcpy(&x, p, 2); return x; }
	case 4: { uint32_t x; memcpy(&x, p, 4); return x; }
	default: { uint64_t x; memcpy(&x, p, 8); return x; }
	}
}

static void fields_decode(const uint8_t *data, struct sr_cm_msg *msg)
{
	for (unsigned int f = 0; f < SR_CM_F_COUNT; f++) {
		const struct sr_cm_field_info *fi = &sr_cm_field_info[f];

		if (fi->attr != msg->attr)
			continue;
		if (fi->width > 64)
			memcpy((uint8_t *)msg + fi->host_off, data + fi->byte,
			       fi->width / 8u);
		else
			host_store(msg, fi, sr_cm_field_get(data, (enum sr_cm_field)f));
	}
}

static void fields_encode(const struct sr_cm_msg *msg, uint8_t *data)
{
	for (unsigned int f = 0; f < SR_CM_F_COUNT; f++) {
		const struct sr_cm_field_info *fi = &sr_cm_field_info[f];

		if (fi->attr != msg->attr)
			continue;
		if (fi->width > 64)
			memcpy(data + fi->byte, (const uint8_t *)msg + fi->host_off,
			       fi->width / 8u);
		else
			sr_cm_field_put(data, (enum sr_cm_field)f,
					host_load(msg, fi));
	}
}

enum sr_mad_err sr_mad_parse(const uint8_t *buf, uint32_t len,
			     struct sr_cm_msg *msg)
{
	const struct sr_mad_hdr *h = (const struct sr_mad_hdr *)buf;
	const struct sr_cm_attr_info *ai;

	memset(msg, 0, sizeof(*msg));
	msg->attr = SR_CM_ATTR_COUNT;
	if (buf == NULL || len < SR_MAD_SIZE)
		return SR_MAD_ERR_SHORT;
	msg->method = h->method;
	msg->class_version = h->class_version;
	msg->mad_status = sr_get_be16(h->status);
	msg->tid = sr_get_be64(h->tid);
	msg->attr_id = sr_get_be16(h->attr_id);
	msg->attr_mod = sr_get_be32(h->attr_mod);
	if (h->base_version != SR_MAD_BASE_VERSION)
		return SR_MAD_ERR_BASE_VERSION;
	if (h->mgmt_class != SR_MAD_CLASS_CM)
		return SR_MAD_ERR_CLASS;
	if (h->class_version != SR_MAD_CM_CLASS_VERSION)
		return SR_MAD_ERR_CLASS_VERSION;
	msg->attr = sr_cm_attr_by_id(msg->attr_id);
	switch (h->method) {
	case SR_MAD_METHOD_GET:
	case SR_MAD_METHOD_SET:
		/* Answered with GetResp whatever the attribute. */
		return SR_MAD_ERR_OK;
	case SR_MAD_METHOD_SEND:
		break;
	default:
		return h->method & 0x80 ? SR_MAD_ERR_RESPONSE : SR_MAD_ERR_METHOD;
	}
	if (msg->attr == SR_CM_ATTR_COUNT || msg->attr == SR_CM_ATTR_CLASS_PORT_INFO)
		return SR_MAD_ERR_ATTR;
	fields_decode(buf + SR_MAD_HDR_SIZE, msg);
	ai = &sr_cm_attr_info[msg->attr];
	memcpy(msg->pdata, buf + SR_MAD_HDR_SIZE + ai->pdata_off, ai->pdata_len);
	msg->pdata_len = ai->pdata_len;
	/* REJ's ARI and the APR's info have a length of at most 72 bytes. */
	if (msg->info_len > sizeof(msg->info))
		return SR_MAD_ERR_FIELD;
	return SR_MAD_ERR_OK;
}

int sr_mad_build(const struct sr_cm_msg *msg, uint8_t *out)
{
	struct sr_mad_hdr *h = (struct sr_mad_hdr *)out;
	const struct sr_cm_attr_info *ai;

	if (msg->attr >= SR_CM_ATTR_COUNT || msg->attr == SR_CM_ATTR_CLASS_PORT_INFO)
		return -EINVAL;
	ai = &sr_cm_attr_info[msg->attr];
	if (msg->pdata_len > ai->pdata_len)
		return -EINVAL;
	memset(out, 0, SR_MAD_SIZE);
	h->base_version = SR_MAD_BASE_VERSION;
	h->mgmt_class = SR_MAD_CLASS_CM;
	h->class_version = msg->class_version ? msg->class_version
					      : SR_MAD_CM_CLASS_VERSION;
	h->method = msg->method ? msg->method : SR_MAD_METHOD_SEND;
	sr_put_be16(h->status, msg->mad_status);
	sr_put_be64(h->tid, msg->tid);
	sr_put_be16(h->attr_id, ai->id);
	sr_put_be32(h->attr_mod, msg->attr_mod);
	fields_encode(msg, out + SR_MAD_HDR_SIZE);
	memcpy(out + SR_MAD_HDR_SIZE + ai->pdata_off, msg->pdata, msg->pdata_len);
	return (int)SR_MAD_SIZE;
}

void sr_mad_build_get_resp(const uint8_t *req, uint8_t *out)
{
	struct sr_mad_hdr *h = (struct sr_mad_hdr *)out;

	memmove(out, req, SR_MAD_SIZE);
	h->method = SR_MAD_METHOD_GET_RESP;
	sr_put_be16(h->status, SR_MAD_STATUS_UNSUPPORTED_ATTR);
}
