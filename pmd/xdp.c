/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * xdp.c — XDP program bookkeeping for a host NIC (xdp.h).
 */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/if_link.h>
#include <linux/if_xdp.h>
#include <sys/socket.h>

#ifndef SOL_XDP
#define SOL_XDP 283
#endif

#include "xdp.h"

#define SR_XDP_MAPS_MAX 8
#define SR_XDP_ADDR_MAP "sroce_addrs"
#define SR_XDP_STATS_MAP "sroce_stats"

static char sr_xdp_msg[256];

/* libbpf's print hook: keep the last warning, print nothing. */
static int sr_xdp_print(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	size_t n;

	if (level == LIBBPF_DEBUG)
		return 0;
	vsnprintf(sr_xdp_msg, sizeof(sr_xdp_msg), fmt, ap);
	n = strlen(sr_xdp_msg);
	while (n > 0 && (sr_xdp_msg[n - 1] == '\n' || sr_xdp_msg[n - 1] == '.'))
		sr_xdp_msg[--n] = '\0';
	return 0;
}

void sr_xdp_quiet(void)
{
	libbpf_set_print(sr_xdp_print);
}

const char *sr_xdp_last_msg(void)
{
	return sr_xdp_msg;
}

int sr_xdp_prog_path(char *buf, size_t len)
{
	const char *cand[] = { getenv("SROCE_XDP_PROG"), SR_XDP_OBJ_BUILD,
			       SR_XDP_OBJ_INSTALL };

	for (size_t i = 0; i < sizeof(cand) / sizeof(cand[0]); i++) {
		if (cand[i] == NULL || cand[i][0] == '\0' ||
		    access(cand[i], R_OK) != 0 || strlen(cand[i]) >= len)
			continue;
		strcpy(buf, cand[i]);
		return 0;
	}
	return -ENOENT;
}

/* The attached program's id and attach mode (XDP_FLAGS_*_MODE). */
static int sr_xdp_attached(int ifindex, uint32_t *id, uint32_t *mode)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);
	int rc = bpf_xdp_query(ifindex, 0, &q);

	if (rc)
		return rc;
	*id = q.prog_id;
	switch (q.attach_mode) {
	case XDP_ATTACHED_DRV:
		*mode = XDP_FLAGS_DRV_MODE;
		*id = q.drv_prog_id ? q.drv_prog_id : q.prog_id;
		break;
	case XDP_ATTACHED_SKB:
		*mode = XDP_FLAGS_SKB_MODE;
		*id = q.skb_prog_id ? q.skb_prog_id : q.prog_id;
		break;
	case XDP_ATTACHED_HW:
		*mode = XDP_FLAGS_HW_MODE;
		*id = q.hw_prog_id ? q.hw_prog_id : q.prog_id;
		break;
	case XDP_ATTACHED_MULTI:
		/* several at once: not sroce's doing (it attaches one) */
		*mode = 0;
		*id = q.drv_prog_id ? q.drv_prog_id : q.skb_prog_id;
		break;
	default:
		*mode = 0;
		*id = 0;
		break;
	}
	return 0;
}

/* The name and map ids of program id. */
static int sr_xdp_prog_info(uint32_t id, char name[16], uint32_t *map_ids,
			    uint32_t *n_maps)
{
	struct bpf_prog_info info;
	uint32_t len = sizeof(info);
	int fd = bpf_prog_get_fd_by_id(id), rc;

	if (fd < 0)
		return fd;
	memset(&info, 0, sizeof(info));
	if (map_ids != NULL) {
		info.nr_map_ids = *n_maps;
		info.map_ids = (uint64_t)(uintptr_t)map_ids;
	}
	rc = bpf_obj_get_info_by_fd(fd, &info, &len);
	close(fd);
	if (rc)
		return rc;
	memcpy(name, info.name, 16);
	name[15] = '\0';
	if (map_ids != NULL && info.nr_map_ids < *n_maps)
		*n_maps = info.nr_map_ids;
	return 0;
}

int sr_xdp_query(int ifindex, uint32_t *id, char name[16])
{
	uint32_t mode;
	int rc = sr_xdp_attached(ifindex, id, &mode);

	name[0] = '\0';
	if (rc || *id == 0)
		return rc;
	return sr_xdp_prog_info(*id, name, NULL, NULL);
}

int sr_xdp_detach_ours(int ifindex, char *why, size_t whylen)
{
	char name[16] = "";
	uint32_t id, mode;
	int rc = sr_xdp_attached(ifindex, &id, &mode);

	if (rc)
		return rc;
	if (id == 0)
		return 0;
	rc = sr_xdp_prog_info(id, name, NULL, NULL);
	if (rc)
		return rc;
	if (strcmp(name, SR_XDP_PROG_NAME) != 0 || mode == 0) {
		snprintf(why, whylen, "another XDP program ('%s', id %u) is attached",
			 name, id);
		return -EBUSY;
	}
	return bpf_xdp_detach(ifindex, mode, NULL);
}

/* A map of the attached program of ours, by name: its fd, or -errno. */
static int sr_xdp_map(int ifindex, const char *want)
{
	uint32_t ids[SR_XDP_MAPS_MAX], n = SR_XDP_MAPS_MAX, id, mode;
	char name[16];
	int rc = sr_xdp_attached(ifindex, &id, &mode);

	if (rc)
		return rc;
	if (id == 0)
		return -ENOENT;
	rc = sr_xdp_prog_info(id, name, ids, &n);
	if (rc)
		return rc;
	if (strcmp(name, SR_XDP_PROG_NAME) != 0)
		return -ENOENT;
	for (uint32_t i = 0; i < n; i++) {
		struct bpf_map_info info;
		uint32_t len = sizeof(info);
		int fd = bpf_map_get_fd_by_id(ids[i]);

		if (fd < 0)
			continue;
		memset(&info, 0, sizeof(info));
		if (bpf_obj_get_info_by_fd(fd, &info, &len) == 0 &&
		    strcmp(info.name, want) == 0)
			return fd;
		close(fd);
	}
	return -ENOENT;
}

int sr_xdp_addrs_set(int ifindex, const uint8_t (*ip)[16], uint32_t n)
{
	static const uint8_t mark[16];   /* all-zero key: "the set is filled" */
	uint8_t key[16], next[16], one = 1;
	int fd = sr_xdp_map(ifindex, SR_XDP_ADDR_MAP);
	bool more;

	if (fd < 0)
		return fd;
	/* New ones first, then drop the gone ones: never an empty set. */
	for (uint32_t i = 0; i < n; i++)
		bpf_map_update_elem(fd, ip[i], &one, BPF_ANY);
	bpf_map_update_elem(fd, mark, &one, BPF_ANY);
	more = bpf_map_get_next_key(fd, NULL, key) == 0;
	while (more) {
		bool keep = memcmp(key, mark, 16) == 0;

		more = bpf_map_get_next_key(fd, key, next) == 0;
		for (uint32_t i = 0; !keep && i < n; i++)
			keep = memcmp(key, ip[i], 16) == 0;
		if (!keep)
			bpf_map_delete_elem(fd, key);
		memcpy(key, next, 16);
	}
	close(fd);
	return 0;
}

uint64_t sr_xdp_redirected(int ifindex)
{
	int fd = sr_xdp_map(ifindex, SR_XDP_STATS_MAP), ncpu;
	uint64_t *v, sum = 0;
	uint32_t k = 0;

	if (fd < 0)
		return 0;
	ncpu = libbpf_num_possible_cpus();
	v = ncpu > 0 ? calloc((size_t)ncpu, sizeof(*v)) : NULL;
	if (v != NULL && bpf_map_lookup_elem(fd, &k, v) == 0)
		for (int i = 0; i < ncpu; i++)
			sum += v[i];
	free(v);
	close(fd);
	return sum;
}

uint32_t sr_xdp_queues(const char *ifname)
{
	char path[128];
	struct dirent *e;
	uint32_t n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/sys/class/net/%s/queues", ifname);
	d = opendir(path);
	if (d == NULL)
		return 1;
	while ((e = readdir(d)) != NULL)
		if (strncmp(e->d_name, "rx-", 3) == 0)
			n++;
	closedir(d);
	return n ? n : 1;
}

void sr_xdp_socks_stats(const int *fds, int n, struct sr_xdp_sock_stats *out)
{
	memset(out, 0, sizeof(*out));
	for (int i = 0; i < n; i++) {
		struct xdp_statistics st = { 0 };
		socklen_t len = sizeof(st);

		if (getsockopt(fds[i], SOL_XDP, XDP_STATISTICS, &st, &len) != 0)
			continue;
		out->rx_ring_full += st.rx_ring_full;
		out->rx_invalid += st.rx_invalid_descs;
		out->tx_invalid += st.tx_invalid_descs;
	}
}
