/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * xrcd.c — XRC domains: a device object counted by its users.
 */
#include <errno.h>
#include <stdlib.h>

#include "core/alloc.h"
#include "qp/qp_priv.h"
#include "qp/xrcd.h"

struct sr_xrcd *sr_xrcd_alloc(struct sr_dev *dev)
{
	struct sr_xrcd *x;

	if (dev == NULL)
		return NULL;
	x = sr_zalloc(sizeof(*x));
	if (x == NULL)
		return NULL;
	x->dev = dev;
	sr_dev_lock_all(dev);
	dev->nxrcd++;
	sr_dev_unlock_all(dev);
	return x;
}

int sr_xrcd_dealloc(struct sr_xrcd *x)
{
	struct sr_dev *dev;

	if (x == NULL)
		return 0;
	dev = x->dev;
	sr_dev_lock_all(dev);
	if (x->users != 0) {
		sr_dev_unlock_all(dev);
		return -EBUSY;
	}
	dev->nxrcd--;
	sr_dev_unlock_all(dev);
	free(x);
	return 0;
}

unsigned int sr_xrcd_users(const struct sr_xrcd *x)
{
	return x->users;
}

unsigned int sr_dev_xrcd_count(const struct sr_dev *dev)
{
	return dev->nxrcd;
}
