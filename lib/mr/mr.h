/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mr.h — sroce's memory-registration engine: protection domains, memory
 * regions of every kind, fast-register (FRMR), memory windows, and the
 * data path's lookup (lookup.h).  The ibverbs, NDK and ND2 shims all sit
 * on this one engine.
 *
 * Addresses are sroce's adapter logical addresses: process virtual
 * addresses (IOVA-as-VA).  Registration never pins or touches memory, so
 * its cost does not depend on the size registered.
 *
 * Errors.  int functions return 0 or a negative errno; creators return a
 * pointer, or NULL with errno set to the positive value.  Each errno is
 * one class, which the shims translate through one table:
 *
 *  errno    class                  NDK NTSTATUS                   ND2 HRESULT
 *  -------  ---------------------  -----------------------------  -------------------------
 *  EINVAL   invalid parameter,     STATUS_INVALID_PARAMETER       ND_INVALID_PARAMETER
 *           over a device limit
 *  E2BIG    implementation limit   STATUS_IMPLEMENTATION_LIMIT    ND_INVALID_PARAMETER
 *           (FRMR pages > FRMRPageCount)
 *  EACCES   access violation:      STATUS_ACCESS_VIOLATION        ND_ACCESS_VIOLATION
 *           rights or PD do not allow it (remote flags on an FRMR
 *           initialised without remote access, window/MR rights, PD)
 *  EFAULT   bad buffer: NULL       STATUS_ACCESS_VIOLATION        ND_ACCESS_VIOLATION
 *           address or address + length wraps
 *  EBUSY    device busy: windows   STATUS_DEVICE_BUSY             ND_DEVICE_BUSY
 *           bound, object in use, already registered
 *  ENOMEM   insufficient           STATUS_INSUFFICIENT_RESOURCES  ND_INSUFFICIENT_RESOURCES
 *           resources (table full, allocation failed)
 *  EPERM    a rule forbids it in   STATUS_INVALID_DEVICE_STATE    ND_INVALID_DEVICE_STATE
 *           this object's kind or state (fast-register on a VALID
 *           or normal MR, invalidate of a type-1 window, ...)
 *  EOPNOTSUPP  on-demand paging where the kernel does not let this
 *           process do it (sr_mr_odp_supported); only ibverbs asks
 *           for ODP, and passes it on
 *
 * Threads.  Lookups (sr_mr_lookup) take no lock, and normally no atomic
 * read-modify-write, and may run on any thread concurrently with
 * everything else; each thread that looks up holds up to
 * SR_READER_HAZARDS references without atomics (reader.c), more through
 * a counter.  Other calls on one object are serialised internally;
 * deregistering an object while another thread still uses its handle is
 * the caller's bug, as everywhere.  A thread that holds a reference
 * (struct sr_mr_ref) must not deregister, re-register or re-initialise
 * that region: those wait for references (and, with other reader
 * threads about, cost one membarrier system call).
 */
#ifndef SR_MR_MR_H
#define SR_MR_MR_H

#include <stdbool.h>
#include <stdint.h>

#include "mr/limits.h"
#include "mr/lookup.h"

/* ---------------------------------------------------------------------
 * Device context
 * ------------------------------------------------------------------ */

/*
 * Create a device's registration context with a copy of *limits (NULL:
 * the defaults).  Returns NULL with errno EINVAL (limits fail
 * sr_dev_limits_check) or ENOMEM.
 */
struct sr_mr_dev *sr_mr_dev_create(const struct sr_dev_limits *limits);

/*
 * Destroy a context.  Accepts NULL.  Returns -EBUSY (and destroys
 * nothing) while PDs, MRs or MWs remain or references are held.
 */
int sr_mr_dev_destroy(struct sr_mr_dev *d);

/* The limits the context enforces. */
const struct sr_dev_limits *sr_mr_dev_limits(const struct sr_mr_dev *d);

struct sr_mr_dev_usage {
	uint32_t pds;          /* PDs allocated */
	uint32_t mrs;          /* MR objects (the privileged MR not counted) */
	uint32_t mws;          /* memory windows */
	uint32_t refs;         /* lookup references held */
	uint64_t xlate_bytes;  /* translation storage allocated */
};

void sr_mr_dev_usage(const struct sr_mr_dev *d, struct sr_mr_dev_usage *u);

/* Objects and references alive: 0 when everything was released. */
unsigned sr_mr_dev_in_use(const struct sr_mr_dev *d);

/*
 * The privileged MR's lkey (NdkGetPrivilegedMemoryRegionToken): local
 * access to the whole adapter address space, any PD, never remote.
 */
uint32_t sr_mr_dev_privileged_lkey(const struct sr_mr_dev *d);

/* ---------------------------------------------------------------------
 * Protection domains
 * ------------------------------------------------------------------ */

/* Returns NULL with errno ENOMEM (over sroce.MaxPd or no memory). */
struct sr_pd *sr_pd_alloc(struct sr_mr_dev *d);

/* Accepts NULL.  -EBUSY while MRs, MWs or QPs use the PD. */
int sr_pd_dealloc(struct sr_pd *pd);

/* Count a user (a QP) of the PD; each get is paired with a put. */
void sr_pd_get(struct sr_pd *pd);
void sr_pd_put(struct sr_pd *pd);
uint32_t sr_pd_users(const struct sr_pd *pd);
uint32_t sr_pd_handle(const struct sr_pd *pd);
struct sr_mr_dev *sr_pd_dev(const struct sr_pd *pd);

/* ---------------------------------------------------------------------
 * Memory regions
 * ------------------------------------------------------------------ */

/*
 * Registration access: any SR_ACCESS_* except that remote write or remote
 * atomic require local write (IBTA), and ZERO_BASED requires iova 0.
 */

/* A page list / flattened MDL chain (NdkRegisterMr, OFW IbRegVirtMr). */
struct sr_page_list {
	const uint64_t *pages;  /* page-aligned adapter logical addresses */
	uint32_t npages;
	uint32_t fbo;           /* first byte offset in pages[0] */
	uint64_t length;        /* bytes from pages[0] + fbo */
};

/* One scatter/gather element (OFW IbRegScatterGatherMr). */
struct sr_sg_elem {
	uint64_t addr;
	uint64_t len;
};

/* What a region translates; used by sr_mr_register() and sr_mr_rereg(). */
enum sr_mr_src_kind {
	SR_MR_SRC_VIRT,   /* a virtual buffer: any address and length */
	SR_MR_SRC_PAGES,  /* a page list */
	SR_MR_SRC_SGL,    /* a scatter/gather list */
};

struct sr_mr_src {
	enum sr_mr_src_kind kind;
	uint64_t iova;    /* address of the first byte (0 with ZERO_BASED) */
	union {
		struct {
			void *addr;
			uint64_t length;
		} virt;
		struct sr_page_list pages;
		struct {
			const struct sr_sg_elem *elems;
			uint32_t n;
		} sgl;
	};
};

/*
 * Create an MR object on a PD, with no registration (NdkCreateMr, ND2
 * CreateMemoryRegion).  fast_register: the object is for fast-register
 * only (sr_frmr_init, sr_frmr_fast_register); otherwise for normal
 * registration only.  NULL with errno EINVAL (no PD) or ENOMEM
 * (sroce.MaxMr reached or no memory).
 */
struct sr_mr *sr_mr_create(struct sr_pd *pd, bool fast_register);

/*
 * Register memory into an MR object created without fast_register.  One
 * object holds one registration at a time (ND2).  The key byte changes.
 *   -EINVAL  bad access flags, iova + length wraps, length 0 or over
 *            MaxRegistrationSize, a page list or SG list of a bad shape
 *            (see below), ZERO_BASED with iova != 0
 *   -EFAULT  NULL address, or address + length wraps
 *   -EBUSY   the object already holds a registration
 *   -EPERM   the object is a fast-register MR
 *   -ENOMEM  translation storage could not be allocated
 *
 * Page list: npages >= 1, every page page-aligned and non-NULL, fbo <
 * SR_PAGE_SIZE, length >= 1, and the pages exactly cover fbo + length
 * (only the first may start mid-page, only the last may end mid-page).
 * Unless ZERO_BASED, iova's page offset equals fbo.
 *
 * SG list: n >= 1; the first element may start mid-page; every element
 * but the last ends on a page boundary; every element but the first
 * starts on one; every length >= 1.  Anything else is -EINVAL.  Unless
 * ZERO_BASED, iova's page offset equals the first element's.
 *
 * On demand (SR_ACCESS_ON_DEMAND, odp.c): a virtual buffer only (a page
 * list or SG list is -EINVAL) whose memory need not be mapped: the data
 * path reaches it through the kernel, and what is not mapped when a
 * packet needs it is an error completion or NAK (SR_MR_E_FAULT), never a
 * fault.  Address NULL with length UINT64_MAX and iova 0 is an implicit
 * region: one key for every address of the process (iova == address),
 * MaxRegistrationSize not applied.  -EOPNOTSUPP where the kernel lacks
 * what it needs (sr_mr_odp_supported()).
 */
int sr_mr_register(struct sr_mr *mr, const struct sr_mr_src *src, uint32_t access);

/* Shorthands for sr_mr_register(). */
int sr_mr_register_virt(struct sr_mr *mr, void *addr, uint64_t length, uint64_t iova,
			uint32_t access);
int sr_mr_register_pages(struct sr_mr *mr, const struct sr_page_list *pl, uint64_t iova,
			 uint32_t access);
int sr_mr_register_sgl(struct sr_mr *mr, const struct sr_sg_elem *elems, uint32_t n,
		       uint64_t iova, uint32_t access);

/*
 * Drop the registration, keeping the object (ND2 Deregister).  Waits for
 * references.  -EBUSY while windows are bound (ND_DEVICE_BUSY); -EPERM
 * for a fast-register or DMA MR.  Deregistering an empty object is 0.
 */
int sr_mr_deregister(struct sr_mr *mr);

/*
 * Release the object and any registration it holds.  Accepts NULL.
 * Waits for references.  -EBUSY while windows are bound.
 */
int sr_mr_destroy(struct sr_mr *mr);

/* ibverbs/OFW style: create + register in one call (errno as above). */
struct sr_mr *sr_mr_reg(struct sr_pd *pd, const struct sr_mr_src *src, uint32_t access);
struct sr_mr *sr_mr_reg_virt(struct sr_pd *pd, void *addr, uint64_t length, uint64_t iova,
			     uint32_t access);
/* Same as sr_mr_destroy(). */
int sr_mr_dereg(struct sr_mr *mr);

/*
 * The DMA MR of a PD (OFW IbGetDmaMr): local access to the whole adapter
 * address space; no remote key ever reaches it.  access may only hold
 * LOCAL_WRITE and READ_SINK: anything else is EINVAL.
 */
struct sr_mr *sr_mr_get_dma(struct sr_pd *pd, uint32_t access);

/* sr_mr_rereg() flags: which parts change, and whether the keys stay. */
enum sr_rereg_flag {
	SR_REREG_TRANS  = 1u << 0,
	SR_REREG_PD     = 1u << 1,
	SR_REREG_ACCESS = 1u << 2,
	/*
	 * Keep the keys (what ibv_rereg_mr does on mlx5 and rxe, and what
	 * rdma-core's tests expect): a key then names the new registration.
	 * Without it the key byte changes and the old keys stop working.
	 */
	SR_REREG_KEEP_KEYS = 1u << 3,
};

/*
 * Re-register: change translation, PD and/or access of a registered MR
 * in place; the key byte changes unless SR_REREG_KEEP_KEYS.  On failure
 * the registration is
 * unchanged.  Waits for references.
 *   -EINVAL  no or unknown flags, a bad source or access as for
 *            sr_mr_register(), a PD of another device, ZERO_BASED changed
 *            without a new translation, ON_DEMAND added to a page-list
 *            or SG registration, or taken from an implicit region,
 *            without a new translation
 *   -EOPNOTSUPP  ON_DEMAND where sr_mr_odp_supported() is false
 *   -EFAULT  bad buffer
 *   -EBUSY   windows are bound
 *   -EPERM   not a registered normal MR (empty, fast-register, DMA)
 *   -ENOMEM  no memory for the new translation
 */
int sr_mr_rereg(struct sr_mr *mr, uint32_t flags, struct sr_pd *pd,
		const struct sr_mr_src *src, uint32_t access);

/* Tokens.  The rkey is 0 when the MR grants no remote access. */
uint32_t sr_mr_lkey(const struct sr_mr *mr);
uint32_t sr_mr_rkey(const struct sr_mr *mr);
uint32_t sr_mr_rkey_be(const struct sr_mr *mr);  /* network order (ND2) */
uint32_t sr_mr_access(const struct sr_mr *mr);
uint64_t sr_mr_iova(const struct sr_mr *mr);
uint64_t sr_mr_length(const struct sr_mr *mr);
struct sr_pd *sr_mr_pd(const struct sr_mr *mr);
bool sr_mr_is_valid(const struct sr_mr *mr);
bool sr_mr_is_fast_register(const struct sr_mr *mr);
bool sr_mr_is_odp(const struct sr_mr *mr);        /* on demand (explicit or implicit) */
bool sr_mr_is_implicit(const struct sr_mr *mr);   /* implicit on demand */
uint32_t sr_mr_windows(const struct sr_mr *mr);   /* windows bound */
bool sr_mr_idle(const struct sr_mr *mr);          /* no reference held */

/* ---------------------------------------------------------------------
 * On-demand paging (odp.c)
 * ------------------------------------------------------------------ */

/*
 * Whether on-demand regions work in this process: the kernel lets it
 * process_vm_readv/writev itself (a seccomp policy may not) and has
 * MADV_POPULATE_WRITE (Linux 5.14).  Probed once.
 */
bool sr_mr_odp_supported(void);

/* ibv_advise_mr's advice values (the same numbers). */
enum sr_mr_advice {
	SR_ADVISE_PREFETCH = 0,           /* fault the range in, readable */
	SR_ADVISE_PREFETCH_WRITE = 1,     /* fault it in writable */
	SR_ADVISE_PREFETCH_NO_FAULT = 2,  /* only what is present: nothing to do */
};

/* sr_mr_advise() flags: wait for the prefetch and report its failure. */
#define SR_ADVISE_FLAG_FLUSH (1u << 0)

/* One range to advise on (the layout of struct ibv_sge). */
struct sr_mr_advise_sge {
	uint64_t addr;
	uint32_t length;
	uint32_t lkey;
};

/*
 * Prefetch ranges of on-demand regions of pd (ibv_advise_mr).  Every range
 * is checked before any is prefetched.  Without FLUSH a range that cannot
 * be faulted in is ignored (best effort, as an RNIC's asynchronous
 * prefetch); with FLUSH it is -EFAULT.  Zero-length ranges do nothing.
 *   -EOPNOTSUPP  unknown advice
 *   -EINVAL      unknown flags; pd or sg NULL; n 0; an lkey that names no
 *                valid on-demand region of pd (no such key, a window, a
 *                region that is not on demand, another PD's)
 *   -EPERM       PREFETCH_WRITE on a region without LOCAL_WRITE
 *   -EFAULT      a range not inside its region; with FLUSH, a range not
 *                mapped (PREFETCH_WRITE: not mapped writable)
 */
int sr_mr_advise(struct sr_pd *pd, unsigned advice, uint32_t flags,
		 const struct sr_mr_advise_sge *sg, uint32_t n);

/* ---------------------------------------------------------------------
 * Fast-register MRs (frmr.c): the FREE <-> VALID engine
 * ------------------------------------------------------------------ */

/*
 * Initialise a fast-register MR object (NdkInitializeFastRegisterMr):
 * room for page_count pages; remote_access allows remote rights later.
 * May be repeated while the MR is FREE (waits for references).
 *   -EINVAL  page_count 0
 *   -E2BIG   page_count above sr_frmr_max_pages()
 *   -EPERM   not a fast-register MR, or the MR is VALID
 *   -ENOMEM  no memory for the page array
 */
int sr_frmr_init(struct sr_mr *mr, uint32_t page_count, bool remote_access);

/* The most pages an FRMR takes, whatever the device's limits say. */
#define SR_FRMR_MAX_PAGES (UINT32_C(1) << 20)

/*
 * The pages an FRMR may be initialised with: FRMRPageCount is the size
 * "with the most FRMRs" (NDKPI), not a maximum, so as many as the largest
 * registration spans (MaxRegistrationSize at any FBO), if that is more, up
 * to SR_FRMR_MAX_PAGES (a page array of 8 MiB).
 */
uint32_t sr_frmr_max_pages(const struct sr_dev_limits *l);

/* A fast-register work request (NdkFastRegister, IB_WR_REG_MR). */
struct sr_frmr_req {
	const struct sr_pd *pd;   /* PD of the QP posting the request */
	const uint64_t *pages;    /* AdapterPageArray, page-aligned */
	uint32_t npages;          /* AdapterPageCount */
	uint32_t fbo;             /* FBO: first byte offset in pages[0] */
	uint64_t length;          /* Length */
	uint64_t iova;            /* BaseVirtualAddress */
	uint32_t access;          /* SR_ACCESS_* */
	uint32_t key;             /* the MR's index with the new key byte */
};

/*
 * Fast-register: FREE -> VALID with the request's pages, FBO, length,
 * base address, rights and key byte.  Checked in this order:
 *   -EINVAL  NULL argument or an MR of another device
 *   -EPERM   not a fast-register MR, not initialised, or VALID
 *   -EBUSY   another thread is re-initialising it
 *   -EACCES  the request's PD is not the MR's
 *   -EINVAL  key index is not the MR's, or key byte unchanged
 *   -EINVAL  unknown access bits, ZERO_BASED, or remote write/atomic
 *            without local write
 *   -EACCES  remote rights on an MR initialised without remote access
 *   -EINVAL  npages 0 or above the initialised count; pages NULL;
 *            fbo >= SR_PAGE_SIZE; length 0, over npages * SR_PAGE_SIZE -
 *            fbo or over MaxRegistrationSize; iova not fbo + n *
 *            SR_PAGE_SIZE (so 0 only with fbo 0); iova + length wraps;
 *            any page not page-aligned
 *   -EFAULT  otherwise, any NULL page or page that wraps
 */
int sr_frmr_fast_register(struct sr_mr_dev *d, struct sr_mr *mr, const struct sr_frmr_req *req);
/*
 * The checks of sr_frmr_fast_register() that need only the request and
 * what the MR was initialised with (PD, rights, page count, FBO, length,
 * base address, pages), not its state: what a consumer API returns from
 * the posting call (NdkFastRegister), before the work request is queued.
 * -EPERM not a fast-register MR or not initialised; -EACCES the PD; the
 * rest as sr_frmr_fast_register().
 */
int sr_frmr_check_params(const struct sr_mr *mr, const struct sr_frmr_req *req);

/* The QP number that matches any QP in sr_mr_invalidate_qp(). */
#define SR_QPN_ANY UINT32_MAX

/*
 * Invalidate (local invalidate, or remote: SEND_WITH_INVALIDATE carrying
 * the rkey): VALID -> FREE for a fast-register MR or a type-2 window.
 * Invalidating a FREE one with its current key is 0.
 *   -EINVAL  no such key (wrong index, stale key byte, free slot), or
 *            remote and the key is not an rkey (DMA MR, an FRMR
 *            initialised without remote access); pd NULL
 *   -EPERM   not invalidatable (normal or DMA MR, type-1 window)
 *   -EACCES  pd is not the object's PD; or (_qp) a type-2 window bound
 *            to another QP
 *   -EBUSY   windows are bound to the MR, or it is being changed
 */
int sr_mr_invalidate(struct sr_mr_dev *d, uint32_t key, bool remote, const struct sr_pd *pd);
int sr_mr_invalidate_qp(struct sr_mr_dev *d, uint32_t key, bool remote,
			const struct sr_pd *pd, uint32_t qpn);

/* ---------------------------------------------------------------------
 * Memory windows (mw.c)
 * ------------------------------------------------------------------ */

enum sr_mw_type {
	SR_MW_TYPE_1 = 1,  /* bound by a verb; rebindable; not invalidatable */
	SR_MW_TYPE_2 = 2,  /* bound by a work request to one QP; invalidatable */
};

/* NULL with errno EINVAL (no PD, bad type) or ENOMEM (sroce.MaxMw). */
struct sr_mw *sr_mw_alloc(struct sr_pd *pd, enum sr_mw_type type);

/* Unbinds and releases.  Accepts NULL.  Returns 0. */
int sr_mw_dealloc(struct sr_mw *mw);

/* A bind request (ibv_bind_mw, IB_WR_BIND_MW, NdkBind). */
struct sr_mw_bind {
	struct sr_mr *mr;         /* region to bind to (type 1: NULL unbinds) */
	const struct sr_pd *pd;   /* PD of the QP posting the bind */
	uint32_t qpn;             /* that QP (a type-2 window is bound to it) */
	uint32_t key;             /* type 2: the window's index, new key byte */
	uint64_t addr;            /* window start, in the MR's address space */
	uint64_t length;          /* type 1: 0 unbinds */
	uint32_t access;          /* REMOTE_READ/WRITE/ATOMIC, ZERO_BASED */
};

/*
 * Bind a window (IBTA rules).  The window's key byte changes (type 1: a
 * new byte; type 2: the request's).  Checked in this order:
 *   -EINVAL  NULL argument, unknown access bits, type 2 with no MR or
 *            length 0, type 1 zero-based, an MR of another device
 *   -EPERM   type 2 already bound (VALID)
 *   -EINVAL  type 2: key index not the window's or key byte unchanged
 *   -EACCES  the window's PD, or the MR's, is not the QP's
 *   -EPERM   the MR is not VALID, or is a DMA MR
 *   -EACCES  the MR lacks MW_BIND, or the window asks remote write or
 *            atomic on an MR without local write
 *   -EINVAL  length over MaxWindowSize; [addr, addr + length) not inside
 *            the MR or wrapping
 */
int sr_mw_bind(struct sr_mw *mw, const struct sr_mw_bind *b);
/*
 * The checks of sr_mw_bind() against the request and the region as it is
 * now (rights, MW_BIND, range), not the window's state: what a consumer
 * API returns from the posting call (NdkBind, IND2QueuePair::Bind).  An
 * unbind passes.  Errors as sr_mw_bind().
 */
int sr_mw_bind_check_params(const struct sr_mw *mw, const struct sr_mw_bind *b);

uint32_t sr_mw_rkey(const struct sr_mw *mw);
uint32_t sr_mw_rkey_be(const struct sr_mw *mw);
enum sr_mw_type sr_mw_type(const struct sr_mw *mw);
bool sr_mw_is_bound(const struct sr_mw *mw);
struct sr_pd *sr_mw_pd(const struct sr_mw *mw);

#endif /* SR_MR_MR_H */
