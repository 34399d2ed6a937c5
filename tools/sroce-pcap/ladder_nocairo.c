/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ladder_nocairo.c — sr_ladder_draw() when sroce-pcap is built without
 * cairo: the layout still works (and is tested); drawing says why not.
 */
#include <errno.h>
#include <stdio.h>

#include "ladder.h"

bool sr_ladder_can_draw(void)
{
	return false;
}

int sr_ladder_draw(const struct sr_ladder *l, const char *path,
		   const char *title, char *err, size_t errlen)
{
	(void)l;
	(void)title;
	snprintf(err, errlen,
		 "cannot draw %s: this sroce-pcap was built without cairo "
		 "(install libcairo2-dev, then meson setup --reconfigure)",
		 path);
	return -ENOTSUP;
}
