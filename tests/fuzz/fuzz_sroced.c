/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target for sroced's control messages (pmd/sroced/proto.h):
 * srd_check must never read past the message, whichever side reads it,
 * and what it accepts must have the size its type says.
 */
#include <stdlib.h>
#include <string.h>

#include "sroced/proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy = malloc(size ? size : 1);   /* exact size: ASan sees overreads */
	uint16_t type;

	if (copy == NULL)
		return 0;
	memcpy(copy, data, size);
	for (int reply = 0; reply < 2; reply++)
		if (srd_check(copy, size, reply, &type) == 0 &&
		    size != ((const struct srd_hdr *)copy)->len)
			abort();
	free(copy);
	return 0;
}
