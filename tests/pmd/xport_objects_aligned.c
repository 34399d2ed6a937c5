/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * xport_objects_aligned — regression test of a transport bug found on the
 * real link (fixed in lib/ by "Transport: aligned objects").
 *
 * struct sr_ring (lib/qp/ring.h) has _Alignas(64) members, so struct
 * sr_qp, sr_cq and sr_srq need 64-byte alignment; sr_qp_create(),
 * sr_cq_create() and sr_srq_create() allocated them with calloc(), which
 * gives 16.  gcc -O2 -march=native copies 32-byte fields with aligned
 * vector moves: sr_qp_query(qp, &attr, NULL) ("*attr = qp->attr",
 * vmovdqa 0x40(%rbx)) died with SIGSEGV on a QP at ...b0 (rdma_peer over
 * memif, the node's connect helper).
 *
 * This program makes 32 of each object and exits 1 when any is not
 * aligned for its type, then queries each QP.
 */
#include <stdalign.h>
#include <stdint.h>
#include <stdio.h>

#include "core/dev.h"
#include "mr/mr.h"
#include "qp/qp_priv.h"

#define N 32

static uint8_t *no_alloc(void *link, uint32_t len, void **cookie)
{
	(void)link, (void)len, (void)cookie;
	return NULL;
}

static void no_submit(void *link, void *cookie, uint32_t len)
{
	(void)link, (void)cookie, (void)len;
}

static void no_abort(void *link, void *cookie)
{
	(void)link, (void)cookie;
}

static uint64_t zero_ns(void *link)
{
	(void)link;
	return 0;
}

static const struct sr_link_ops ops = {
	.tx_alloc = no_alloc, .tx_submit = no_submit,
	.tx_abort = no_abort, .now_ns = zero_ns,
};

int main(void)
{
	struct sr_mr_dev *mrd = sr_mr_dev_create(NULL);
	struct sr_dev_config dc = { .link_ops = &ops, .mr = mrd, .gid_count = 1 };
	struct sr_dev *dev = sr_dev_create(&dc);
	struct sr_pd *pd = sr_pd_alloc(mrd);
	struct sr_srq_attr sa = { .max_wr = 16, .max_sge = 1 };
	struct sr_cq *cq[N];
	struct sr_qp *qp[N];
	struct sr_srq *srq[N];
	unsigned int bad_qp = 0, bad_cq = 0, bad_srq = 0;

	for (int i = 0; i < N; i++) {
		struct sr_qp_init_attr init = {
			.qp_type = SR_QPT_RC, .pd = pd,
			.cap = { .max_send_wr = 4, .max_recv_wr = 4,
				 .max_send_sge = 1, .max_recv_sge = 1 },
		};

		cq[i] = sr_cq_create(dev, 16, NULL, NULL);
		srq[i] = sr_srq_create(dev, pd, &sa);
		init.send_cq = init.recv_cq = cq[i];
		qp[i] = sr_qp_create(dev, &init);
		if (!cq[i] || !srq[i] || !qp[i]) {
			fprintf(stderr, "cannot create objects\n");
			return 2;
		}
		bad_qp += (uintptr_t)qp[i] % alignof(struct sr_qp) != 0;
		bad_cq += (uintptr_t)cq[i] % alignof(struct sr_cq) != 0;
		bad_srq += (uintptr_t)srq[i] % alignof(struct sr_srq) != 0;
	}
	printf("alignment needed: qp %zu cq %zu srq %zu; misaligned of %d: qp %u cq %u srq %u\n",
	       alignof(struct sr_qp), alignof(struct sr_cq),
	       alignof(struct sr_srq), N, bad_qp, bad_cq, bad_srq);
	for (int i = 0; i < N && !bad_qp; i++) {
		struct sr_qp_attr attr;

		if (sr_qp_query(qp[i], &attr, NULL) || attr.qp_state != SR_QPS_RESET)
			bad_qp++;
	}
	for (int i = 0; i < N; i++) {
		sr_qp_destroy(qp[i]);
		sr_srq_destroy(srq[i]);
		sr_cq_destroy(cq[i]);
	}
	sr_pd_dealloc(pd);
	sr_dev_destroy(dev);
	sr_mr_dev_destroy(mrd);
	return bad_qp || bad_cq || bad_srq ? 1 : 0;
}
