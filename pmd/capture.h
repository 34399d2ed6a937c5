/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * capture.h — write every frame sent and received, with its time, to a
 * pcap file (libpcap, DLT_EN10MB) that tshark and tools/sroce-pcap read.
 * Pure C, no DPDK; one writer (the progress thread).
 */
#ifndef SR_PMD_CAPTURE_H
#define SR_PMD_CAPTURE_H

#include <stddef.h>
#include <stdint.h>

struct sr_capture;

/*
 * Create (truncate) the file.  Returns the capture or NULL with a reason
 * in err.
 */
struct sr_capture *sr_capture_open(const char *path, uint32_t snaplen,
				   char *err, size_t errlen);

/* Append one frame stamped with the current wall-clock time.  0 or -EIO. */
int sr_capture_frame(struct sr_capture *cap, const uint8_t *frame,
		     uint32_t len);

/*
 * Append a frame given as segments (an mbuf chain): n pieces whose lengths
 * add up to len.  0 or -EIO.
 */
int sr_capture_segs(struct sr_capture *cap, const uint8_t *const *seg,
		    const uint32_t *seg_len, uint32_t n, uint32_t len);

/* Frames written. */
uint64_t sr_capture_count(const struct sr_capture *cap);

/* Flush to the file (called when progress goes idle). */
void sr_capture_flush(struct sr_capture *cap);

/* Flush and close.  Accepts NULL. */
void sr_capture_close(struct sr_capture *cap);

#endif /* SR_PMD_CAPTURE_H */
