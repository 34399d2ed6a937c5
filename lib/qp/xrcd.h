/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * xrcd.h — XRC domains (IBA 11.2.x, ibv_open_xrcd): what XRC SRQs and XRC
 * target QPs belong to.  A target QP takes receive WQEs only from SRQs of
 * its own domain; the responder checks it per request (transport/resp.c).
 *
 * A domain is a plain object here: sharing one between opens of the same
 * file is the consumer API's business (verbs-shim/xrcd.c).
 */
#ifndef SR_QP_XRCD_H
#define SR_QP_XRCD_H

struct sr_dev;
struct sr_xrcd;

/* NULL: dev NULL (-EINVAL) or no memory. */
struct sr_xrcd *sr_xrcd_alloc(struct sr_dev *dev);
/* 0, -EBUSY (an SRQ or a target QP still belongs to it).  NULL is accepted. */
int sr_xrcd_dealloc(struct sr_xrcd *xrcd);
/* SRQs and target QPs that belong to it (slow path). */
unsigned int sr_xrcd_users(const struct sr_xrcd *xrcd);
/* Domains of the device (leak checks). */
unsigned int sr_dev_xrcd_count(const struct sr_dev *dev);

#endif /* SR_QP_XRCD_H */
