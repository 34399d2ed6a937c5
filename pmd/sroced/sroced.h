/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sroced.h — the daemon that owns a host's sroce devices (docs/sroced.md).
 *
 *   main.c    options, configuration, the poll loop, signals, logging;
 *   ctl.c     the control socket: clients come (HELLO, DEV_INFO, ATTACH)
 *             and go (their connection closes), QPN blocks and their
 *             quarantine;
 *   switch.c  frames: from the device's port to the client that owns the
 *             destination QPN, from a client to the port or (the device's
 *             own address) to another client, each client frame checked.
 *
 * One thread does everything: every port (the devices' and the clients'
 * frame channels) runs in inline mode and this thread progresses them.
 */
#ifndef SR_SROCED_H
#define SR_SROCED_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "config.h"
#include "gid.h"
#include "pmd.h"
#include "sroced/peers.h"
#include "sroced/proto.h"

#define SRD_CLIENTS_MAX 64

struct srd_client;

struct srd_device {
	char name[SRD_NAME_MAX];
	char path[SR_CONFIG_STR_MAX];   /* its configuration file */
	struct sr_pmd_config cfg;
	struct sr_pmd_dev *pmd;
	struct srd_dev_info info;       /* what clients are told */
	uint8_t ip[SR_GID_TABLE_MAX][16];  /* own addresses, as GIDs */
	unsigned int nip;
};

struct srd_client {
	int fd;                         /* control connection */
	uint32_t id;
	pid_t pid;
	uid_t uid;
	char comm[SRD_NAME_MAX];
	struct srd_device *dev;         /* NULL until ATTACH */
	struct sr_pmd_dev *port;        /* its frame channel */
	uint32_t block;                 /* its QPN block (0: none) */
	uint8_t gw_mac[6];              /* the channel's MAC on our side */
	uint64_t forged;                /* also in the channel's counters */
	struct srd_peers *peers;        /* its RC/UC QPs' peers (ATTACH) */
};

struct srd_block {
	struct srd_client *owner;
	uint64_t free_at_ns;            /* quarantined until */
};

struct sroced {
	const char *sock_path;
	char run_dir[SR_CONFIG_STR_MAX];
	char memif_sock[SRD_PATH_MAX];
	int listen_fd;
	struct sr_pmd_dev *anchor;      /* memif interface 0 (ctl.c) */
	uint8_t anchor_mac[6];
	struct srd_device dev[SRD_DEVS_MAX];
	unsigned int ndevs;
	struct srd_client *client[SRD_CLIENTS_MAX];
	uint32_t next_id;
	struct srd_block block[SRD_BLOCKS];
	uint32_t nblocks;               /* blocks 1 .. nblocks-1 handed out */
	uint32_t next_block;
	uint64_t quarantine_ns;
	bool verbose;
};

/* main.c */
void srd_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
uint64_t srd_now_ns(void);

/* ctl.c */
int srd_ctl_open(struct sroced *d);
void srd_ctl_close(struct sroced *d);
/* Accept, read and answer what is waiting; drop clients that left. */
void srd_ctl_poll(struct sroced *d);

/* switch.c */
/* The rx handlers of a device's port and of a client's channel. */
void srd_switch_from_port(void *dev_ctx, const struct sr_link_frame *f,
			  unsigned int n);
void srd_switch_from_client(void *client_ctx, const struct sr_link_frame *f,
			    unsigned int n);
/* The daemon the handlers switch for (one per process). */
void srd_switch_init(struct sroced *d);

#endif /* SR_SROCED_H */
