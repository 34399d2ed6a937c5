/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * loop.h — an in-process NDK backend for the unit tests: one sroce device
 * whose link loops every frame back to itself, so two QPs of one adapter
 * talk to each other with no DPDK, connected through a communication
 * manager whose MADs loop back too.  Address 10.0.0.1.
 */
#ifndef SR_TEST_NDK_LOOP_H
#define SR_TEST_NDK_LOOP_H

#include "mr/limits.h"
#include "sr_ndk.h"

struct nt_loop;

/* NULL on failure.  limits may be NULL (lib's defaults). */
struct nt_loop *nt_loop_create(const struct sr_dev_limits *limits);
/* The backend to give sr_ndk_adapter_create(); the adapter's close frees the loop. */
const struct sr_ndk_backend *nt_loop_backend(struct nt_loop *l);
struct sr_mr_dev *nt_loop_mr(struct nt_loop *l);

#endif /* SR_TEST_NDK_LOOP_H */
