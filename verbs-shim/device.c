/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * device.c — the device list, device runtimes, ibv_open_device and
 * ibv_close_device, and the import/export verbs (not supported).
 *
 * Devices come from SROCE_CONFIG: one configuration file (pmd/CONFIG.md)
 * per device, several separated by ':', named sroce0, sroce1, ... in that
 * order; with SROCE_CONFIG unset, one device on the default virtual link —
 * or, when sroced runs (pmd/daemon.h: SROCE_DAEMON), the daemon's devices,
 * by its names: opening one attaches to the daemon, whose QPN block the
 * transport uses and whose loss is IBV_EVENT_DEVICE_FATAL.
 * Listing reads nothing and starts nothing.  Opening loads the
 * configuration and builds the GID table and the MR engine; the EAL and
 * the port come up at the first CQ, QP or SRQ (sr_ibv_rt_up), unless the
 * MAC is known only from the port.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "cm_host.h"
#include "core/dev.h"
#include "daemon.h"
#include "gid.h"
#include "pmd.h"
#include "shim.h"

static struct sr_ibv_dev sr_devs[SR_IBV_DEV_MAX];
static unsigned int sr_ndevs;
static pthread_once_t sr_devs_once = PTHREAD_ONCE_INIT;

static void sr_ibv_dev_init(struct sr_ibv_dev *d, unsigned int index,
			    const char *path, size_t pathlen)
{
	struct ibv_device *ib = &d->ibdev;

	d->index = index;
	if (pathlen >= sizeof(d->config_path))
		pathlen = sizeof(d->config_path) - 1;
	memcpy(d->config_path, path, pathlen);
	d->config_path[pathlen] = '\0';
	ib->node_type = IBV_NODE_CA;
	ib->transport_type = IBV_TRANSPORT_IB;
	snprintf(ib->name, sizeof(ib->name), "sroce%u", index);
	snprintf(ib->dev_name, sizeof(ib->dev_name), "sroce%u", index);
	snprintf(ib->dev_path, sizeof(ib->dev_path),
		 "/sys/class/infiniband_verbs/sroce%u", index);
	snprintf(ib->ibdev_path, sizeof(ib->ibdev_path),
		 "/sys/class/infiniband/sroce%u", index);
	pthread_mutex_init(&d->rt.lock, NULL);
	pthread_mutex_init(&d->rt.wait_lock, NULL);
	pthread_mutex_init(&d->rt.map_lock, NULL);
	pthread_mutex_init(&d->rt.xrcd_lock, NULL);
	d->rt.lock_fd = -1;
	d->rt.daemon_fd = -1;
}

/* sroced's devices, by the names it gives them; false: no daemon. */
static bool sr_ibv_devs_daemon(void)
{
	static struct srd_dev_info info[SR_IBV_DEV_MAX];
	bool required;
	const char *sock = sr_pmd_daemon_socket(&required);
	int n;

	if (sock == NULL)
		return false;
	n = sr_pmd_daemon_list(sock, info, SR_IBV_DEV_MAX);
	if (n < 0) {
		if (required)
			fprintf(stderr, "sroce: sroced at %s: %s\n", sock,
				strerror(-n));
		return required;   /* required: no devices at all */
	}
	for (int i = 0; i < n; i++) {
		struct sr_ibv_dev *d = &sr_devs[i];

		sr_ibv_dev_init(d, (unsigned int)i, "", 0);
		d->daemon_sock = sock;
		memcpy(d->ibdev.name, info[i].name, SRD_NAME_MAX);
		memcpy(d->ibdev.dev_name, info[i].name, SRD_NAME_MAX);
		memcpy(d->daemon_mac, info[i].mac, 6);
	}
	sr_ndevs = (unsigned int)n;
	return true;
}

static void sr_ibv_devs_build(void)
{
	const char *env = getenv("SROCE_CONFIG");
	const char *p, *end;

	if (sr_ibv_devs_daemon())
		return;
	if (env == NULL || *env == '\0') {
		sr_ibv_dev_init(&sr_devs[0], 0, "", 0);
		sr_ndevs = 1;
		return;
	}
	for (p = env; *p && sr_ndevs < SR_IBV_DEV_MAX; p = *end ? end + 1 : end) {
		end = strchr(p, ':');
		if (end == NULL)
			end = p + strlen(p);
		if (end > p) {
			sr_ibv_dev_init(&sr_devs[sr_ndevs], sr_ndevs, p,
					(size_t)(end - p));
			sr_ndevs++;
		}
	}
}

struct sr_ibv_dev *sr_ibv_dev_of(struct ibv_device *ibdev)
{
	return sr_container_of(ibdev, struct sr_ibv_dev, ibdev);
}

struct ibv_device **ibv_get_device_list(int *num_devices)
{
	struct ibv_device **list;

	pthread_once(&sr_devs_once, sr_ibv_devs_build);
	list = calloc(sr_ndevs + 1, sizeof(*list));
	if (list == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	for (unsigned int i = 0; i < sr_ndevs; i++)
		list[i] = &sr_devs[i].ibdev;
	if (num_devices)
		*num_devices = (int)sr_ndevs;
	return list;
}

void ibv_free_device_list(struct ibv_device **list)
{
	free(list);
}

const char *ibv_get_device_name(struct ibv_device *device)
{
	return device ? device->name : NULL;
}

int ibv_get_device_index(struct ibv_device *device)
{
	return device ? (int)sr_ibv_dev_of(device)->index : -1;
}

/* Node GUID: the modified EUI-64 of the MAC, as RoCE devices report it. */
__be64 sr_ibv_guid(const uint8_t mac[6])
{
	uint8_t g[8];
	__be64 v;

	sr_gid_eui64(g, mac);
	memcpy(&v, g, sizeof(v));
	return v;
}

__be64 ibv_get_device_guid(struct ibv_device *device)
{
	struct sr_ibv_dev *d = sr_ibv_dev_of(device);
	__be64 guid = 0;

	if (d->daemon_sock != NULL)   /* listing does not attach */
		return sr_ibv_guid(d->daemon_mac);
	if (sr_ibv_rt_get(d) == 0) {
		guid = sr_ibv_guid(d->rt.mac);
		sr_ibv_rt_put(d);
	}
	return guid;
}

/* ---- runtime ---- */

/* Load the device's configuration: its own file when there are several. */
static int sr_ibv_cfg_load(struct sr_ibv_dev *d, char *err, size_t errlen)
{
	struct sr_ibv_rt *rt = &d->rt;

	if (d->daemon_sock != NULL) {
		struct sr_pmd_daemon_att att;
		int rc;

		if (rt->daemon_fd >= 0)      /* attached at an earlier open */
			return 0;
		rc = sr_pmd_daemon_attach(d->daemon_sock, d->index, &rt->cfg,
					  &att, err, errlen);
		if (rc == 0)
			rt->daemon_fd = att.fd;   /* the pmd device closes it */
		return rc;
	}
	if (sr_ndevs <= 1)
		return sr_pmd_config_load(&rt->cfg, &rt->lock_fd, err, errlen);
	return sr_pmd_config_load_path(&rt->cfg, d->config_path, &rt->lock_fd,
				       err, errlen);
}

static int sr_ibv_dev_poll(void *arg, unsigned int lane, unsigned int nlanes)
{
	struct sr_ibv_rt *rt = arg;
	int work = (int)sr_dev_poll_shard(rt->dev, 64, lane, nlanes);
	uint64_t now = sr_pmd_now_ns(rt->pmd);

	sr_xstats_poll(&rt->xstats, now);
	/* sroced gone: every QP to ERR, IBV_EVENT_DEVICE_FATAL */
	if (lane == 0 && sr_pmd_daemon_lost(rt->pmd, now)) {
		fprintf(stderr, "sroce: sroced went away: device fatal\n");
		sr_dev_fatal(rt->dev);
	}
	return work;
}

/* The port, with rt->lock held: 0 or -errno (said on stderr). */
static int sr_ibv_pmd_up(struct sr_ibv_rt *rt)
{
	char err[SR_CONFIG_ERR_MAX] = "";
	int rc;

	if (rt->pmd != NULL)
		return 0;
	rc = sr_pmd_dev_create(&rt->cfg, rt->lock_fd, &rt->pmd, err,
			       sizeof(err));
	if (rc) {
		fprintf(stderr, "sroce: %s\n", err);
		return rc;
	}
	rt->lock_fd = -1;            /* the pmd device owns it now */
	/* sroced's channel: frames sent before it is up would be lost */
	if (rt->cfg.has_gw && sr_pmd_link_wait(rt->pmd, 10000))
		fprintf(stderr, "sroce: sroced's frame channel is not up after 10 s\n");
	/* a host NIC's GIDs follow the interface (port_event.c) */
	if (sr_pmd_host_path(rt->pmd) != NULL)
		sr_pmd_set_gid_change_cb(rt->pmd, sr_ibv_gid_changed, rt);
	return 0;
}

int sr_ibv_rt_up(struct sr_ibv_rt *rt)
{
	struct sr_dev_config dc = { 0 };
	int rc;

	pthread_mutex_lock(&rt->lock);
	rc = sr_ibv_pmd_up(rt);
	if (rc)
		goto out_unlock;
	if (rt->dev == NULL && rt->mr != NULL) {
		sr_pmd_dev_config(rt->pmd, &rt->gids, &dc);
		dc.mr = rt->mr;
		dc.async_cb = sr_ibv_async_cb;
		dc.async_ctx = rt;
		__atomic_store_n(&rt->dev, sr_dev_create(&dc), __ATOMIC_RELEASE);
		if (rt->dev == NULL) {
			rc = -ENOMEM;
			goto out_unlock;
		}
		/* a GID that changed meanwhile (sr_ibv_gid_changed) */
		sr_ibv_gids_sync(rt);
		sr_xstats_init(&rt->xstats, rt->pmd, rt->dev);
		sr_pmd_set_rx_handler(rt->pmd, sr_dev_rx_burst, rt->dev);
		rc = sr_pmd_engine_register(rt->pmd, sr_ibv_dev_poll, rt);
		if (rc)
			goto out_unlock;
		if (rt->cfg.mode == SR_PMD_MODE_DEDICATED)
			rc = sr_pmd_start(rt->pmd);
		else
			rc = sr_ibv_helper_start(rt);
	}
out_unlock:
	pthread_mutex_unlock(&rt->lock);
	return rc;
}

void *sr_ibv_obj_new(struct sr_ibv_rt *rt, size_t size)
{
	int rc = sr_ibv_rt_up(rt);
	void *w;

	if (rc) {
		errno = sr_ibv_err(rc);
		return NULL;
	}
	w = calloc(1, size);
	if (w == NULL)
		errno = ENOMEM;
	return w;
}

int sr_ibv_rt_get(struct sr_ibv_dev *d)
{
	struct sr_ibv_rt *rt = &d->rt;
	char err[SR_CONFIG_ERR_MAX] = "";
	const uint8_t *ipv4;
	int rc = 0;

	pthread_mutex_lock(&rt->lock);
	if (rt->refs++ > 0)
		goto out_unlock;
	/* a port kept from an earlier open keeps its configuration (put) */
	rc = rt->pmd != NULL ? 0 : sr_ibv_cfg_load(d, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "sroce: %s\n", err);
		goto out_unref;
	}
	rt->mr = sr_mr_dev_create(NULL);
	if (rt->mr == NULL) {
		rc = -errno;
		goto out_close_lock;
	}
	if (rt->cfg.has_mac) {
		memcpy(rt->mac, rt->cfg.mac, sizeof(rt->mac));
	} else {
		/*
		 * The MAC is the port's own: the port comes up now (the
		 * transport later, once the GIDs, made from it, are known).
		 */
		rc = sr_ibv_pmd_up(rt);
		if (rc)
			goto out_destroy_mr;
		sr_pmd_mac(rt->pmd, rt->mac);
	}
	if (rt->pmd != NULL && sr_pmd_host_path(rt->pmd) != NULL) {
		/*
		 * A host NIC: the interface's addresses, followed from now on
		 * by the helper thread's progress even before any CQ or QP
		 * (port_event.c).
		 */
		rt->gids = *sr_pmd_gids(rt->pmd);
		rc = sr_ibv_helper_start(rt);
		if (rc)
			goto out_destroy_mr;
		goto out_unlock;
	}
	ipv4 = rt->cfg.has_ipv4 ? rt->cfg.ipv4 : NULL;
	rc = sr_gid_table_build(&rt->gids, rt->mac, ipv4,
				(const uint8_t(*)[16])rt->cfg.ipv6,
				rt->cfg.n_ipv6);
	if (rc)
		goto out_destroy_mr;
	goto out_unlock;
out_destroy_mr:
	sr_mr_dev_destroy(rt->mr);
	rt->mr = NULL;
out_close_lock:
	if (rt->lock_fd >= 0)
		close(rt->lock_fd);
	rt->lock_fd = -1;
out_unref:
	rt->refs--;
out_unlock:
	pthread_mutex_unlock(&rt->lock);
	return rc;
}

/*
 * The last context closed: the transport and the MR engine go, the port
 * stays until the process exits (sr_ibv_fini).  A process may open the
 * device again any number of times (rdma-core's tests do), and DPDK
 * 22.11's memif keeps a closed server port's listening socket until an
 * event wakes its interrupt thread, so the same port could not be made
 * again; and the port's default-link node stays this process's, as the
 * configuration said when it was first opened.
 */
void sr_ibv_rt_put(struct sr_ibv_dev *d)
{
	struct sr_ibv_rt *rt = &d->rt;

	pthread_mutex_lock(&rt->lock);
	if (rt->refs == 0 || --rt->refs > 0) {
		pthread_mutex_unlock(&rt->lock);
		return;
	}
	pthread_mutex_unlock(&rt->lock);
	sr_ibv_helper_stop(rt);
	pthread_mutex_lock(&rt->lock);
	if (rt->pmd && rt->cfg.mode == SR_PMD_MODE_DEDICATED)
		sr_pmd_stop(rt->pmd);
	if (rt->pmd && rt->dev) {
		sr_pmd_engine_unregister(rt->pmd, sr_ibv_dev_poll, rt);
		sr_pmd_set_rx_handler(rt->pmd, NULL, NULL);
	}
	sr_cm_host_destroy(rt->cm);
	rt->cm = NULL;
	sr_xstats_fini(&rt->xstats);
	sr_dev_destroy(rt->dev);
	rt->dev = NULL;
	sr_mr_dev_destroy(rt->mr);
	rt->mr = NULL;
	if (rt->lock_fd >= 0)
		close(rt->lock_fd);
	rt->lock_fd = -1;
	pthread_mutex_unlock(&rt->lock);
}

/* Process exit: the ports of devices no context holds any more. */
__attribute__((destructor)) static void sr_ibv_fini(void)
{
	for (unsigned int i = 0; i < sr_ndevs; i++) {
		struct sr_ibv_rt *rt = &sr_devs[i].rt;

		if (rt->refs == 0 && rt->pmd != NULL) {
			sr_pmd_dev_destroy(rt->pmd);
			rt->pmd = NULL;
		} else if (rt->pmd != NULL) {
			/* still open (librdmacm's contexts, say): nothing of
			 * ours may stay on a host NIC after the process */
			sr_pmd_dev_exit(rt->pmd);
		}
	}
}

/* ---- contexts ---- */

struct ibv_context *ibv_open_device(struct ibv_device *device)
{
	struct sr_ibv_dev *d;
	struct sr_ibv_ctx *ctx;
	int rc;

	if (device == NULL) {
		errno = EINVAL;
		return NULL;
	}
	d = sr_ibv_dev_of(device);
	ctx = calloc(1, sizeof(*ctx));
	if (ctx == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	rc = sr_ibv_rt_get(d);
	if (rc)
		goto out_free;
	ctx->d = d;
	ctx->rt = &d->rt;
	ctx->vctx.context.device = device;
	/*
	 * No kernel command channel, but a real descriptor: programs poll,
	 * fstat and close it (rdma-core's tests); importing a context from
	 * it is EOPNOTSUPP (below).
	 */
	ctx->vctx.context.cmd_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (ctx->vctx.context.cmd_fd < 0) {
		rc = -errno;
		goto out_put;
	}
	ctx->vctx.context.num_comp_vectors = 1;
	pthread_mutex_init(&ctx->vctx.context.mutex, NULL);
	rc = sr_ibv_async_init(ctx);
	if (rc)
		goto out_close_cmd;
	sr_ibv_ctx_ops_init(ctx);
	sr_ibv_ctx_link(ctx);
	return &ctx->vctx.context;
out_close_cmd:
	close(ctx->vctx.context.cmd_fd);
out_put:
	sr_ibv_rt_put(d);
out_free:
	free(ctx);
	errno = sr_ibv_err(rc);
	return NULL;
}

int ibv_close_device(struct ibv_context *context)
{
	struct sr_ibv_ctx *ctx;

	if (context == NULL)
		return EINVAL;
	ctx = sr_ctx(context);
	sr_ibv_ctx_unlink(ctx);
	sr_ibv_async_fini(ctx);
	close(context->cmd_fd);
	sr_ibv_rt_put(ctx->d);
	pthread_mutex_destroy(&context->mutex);
	free(ctx);
	return 0;
}

/* ---- import / export: sroce has no kernel objects to share ---- */

struct ibv_context *ibv_import_device(int cmd_fd)
{
	(void)cmd_fd;
	errno = EOPNOTSUPP;
	return NULL;
}

struct ibv_pd *ibv_import_pd(struct ibv_context *context, uint32_t pd_handle)
{
	(void)context;
	(void)pd_handle;
	errno = EOPNOTSUPP;
	return NULL;
}

void ibv_unimport_pd(struct ibv_pd *pd)
{
	(void)pd;
}

struct ibv_mr *ibv_import_mr(struct ibv_pd *pd, uint32_t mr_handle)
{
	(void)pd;
	(void)mr_handle;
	errno = EOPNOTSUPP;
	return NULL;
}

void ibv_unimport_mr(struct ibv_mr *mr)
{
	(void)mr;
}

struct ibv_dm *ibv_import_dm(struct ibv_context *context, uint32_t dm_handle)
{
	(void)context;
	(void)dm_handle;
	errno = EOPNOTSUPP;
	return NULL;
}

void ibv_unimport_dm(struct ibv_dm *dm)
{
	(void)dm;
}
