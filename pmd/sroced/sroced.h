/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sroced.h — the daemon that owns a host's sroce devices (docs/sroced.md).
 *
 *   main.c    options, configuration, the poll loop, signals, logging;
 *   idle.c    the idle policy: spin, then sleep until a frame or a
 *             request comes (the clients' doorbells), or nap;
 *   ctl.c     the control socket: clients come (HELLO, DEV_INFO, ATTACH)
 *             and go (their connection closes), QPN blocks and their
 *             quarantine;
 *   switch.c  frames: from the device's port to the client that owns the
 *             destination QPN, from a client to the port or (the device's
 *             own address) to another client, each client frame checked;
 *   qp1.c     QP1: MADs to the client whose CM they name (by listened
 *             service ID or communication ID block), the rest to the
 *             daemon's own CM; the listeners.
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
#include "counters.h"
#include "gid.h"
#include "pmd.h"
#include "sroced/peers.h"
#include "sroced/proto.h"

struct sr_cm_watch;

#define SRD_CLIENTS_MAX 64
#define SRD_LISTEN_MAX  1024
/* The most the daemon raises its priority for its clients (--nice). */
#define SRD_NICE_MAX (-10)
/* How long an idle daemon keeps polling, yielding between rounds (idle.c). */
#define SRD_IDLE_YIELD_NS 1000000ull
/*
 * A device port's receive ring and mbufs, where its file does not set
 * them (rx_desc, mbufs: pmd/CONFIG.md).  Its frames come in bursts a
 * message long: a 4 MiB READ's responses are 4096 frames at once, and
 * with the clients and the daemon sharing CPUs, the embedded default
 * (1024, 8191) overflowed an AF_XDP port's ring (ib_read_bw -a between
 * two host NICs: 124 000 and 304 000 frames lost, a retry-exceeded in 1
 * run of 3; with these, 32 to 1192, 7 of 7 runs pass).
 */
#define SRD_PORT_RX_DESC 4096
#define SRD_PORT_MBUFS 16383
/* How long a REQ for a service nobody listens on waits for one (qp1.c). */
#define SRD_CM_HOLD_MS 50

struct srd_client;
struct sr_frame;
struct sr_gsi;

/*
 * Frames that wait for room where they go (switch.c): the rest of a
 * receive burst, copied, while the port they came from takes no more.
 * From a client's channel: its ring fills and holds the client's engine
 * back, as a full link does, so between two processes of a host, or from
 * a process out of the port, sroced drops nothing for want of room (an
 * RNIC's loopback and its transmit queue do not).  From the device's
 * port, to a client whose channel is full: the port's receive ring holds
 * what comes meanwhile, as a pause frame would (lossless RoCE's PFC), and
 * a 4 MiB message's 4096 frames reach a client that drains them slower
 * than they come.  Tried again each round; those still there
 * SRD_PARK_MAX_NS after they began to wait are dropped and counted where
 * they go (sw_drop_full), and a client that had no room for them is
 * stuck: for SRD_STUCK_NS, frames to it are dropped when it is full, as
 * they were before, and wait no more.  So a client that stops, or drains
 * its channel a frame at a time on purpose, holds the port (and the other
 * clients' traffic) up for 20 ms a second at most, as a NIC's PFC storm
 * watchdog bounds a pause storm.
 */
#define SRD_PARK_MAX_NS 20000000ull
#define SRD_STUCK_NS    1000000000ull
struct srd_park {
	uint32_t n, next;               /* slots used, next to try */
	uint32_t slot;                  /* bytes a slot holds */
	uint64_t since_ns;              /* the first began to wait */
	uint32_t len[SR_CONFIG_BURST_MAX];
	uint8_t *buf;                   /* SR_CONFIG_BURST_MAX slots */
};

struct srd_device {
	char name[SRD_NAME_MAX];
	char path[SR_CONFIG_STR_MAX];   /* its configuration file */
	struct sr_pmd_config cfg;
	struct sr_pmd_dev *pmd;
	struct srd_dev_info info;       /* what clients are told */
	uint8_t ip[SR_GID_TABLE_MAX][16];  /* own addresses, as GIDs */
	unsigned int nip;
	struct sr_gsi *gsi;             /* the daemon's own CM on QP1 */
	struct sr_cm_watch *watch;      /* its clients' connections */
	uint64_t watch_full_logged;     /* its 'full' count last logged */
	uint64_t gsi_pub[4];            /* its counters last published */
	struct srd_group *groups;       /* multicast groups of its clients */
	uint32_t ngroups;
	struct srd_held *held;          /* REQs waiting for a listener */
	unsigned int nheld;
	struct srd_park *park;          /* NULL until its port first waits */
};

/* A multicast group some clients of a device joined (mcast.c). */
struct srd_group {
	uint8_t gid[16];
	uint32_t members;               /* clients */
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
	uint8_t (*groups)[16];          /* multicast groups it joined */
	uint32_t ngroups;
	struct srd_bell *bell;          /* its channel's doorbell, or NULL */
	int bell_efd;                   /* its eventfd (-1: none) */
	int wake_efd;                   /* the client's: we ring it */
	struct srd_park *park;          /* NULL until it first waits */
	uint64_t stuck_until_ns;        /* 0, or no waiting for it until */
};

struct srd_block {
	struct srd_client *owner;
	uint64_t free_at_ns;            /* quarantined until */
};

/* A service ID a client listens on (SRD_LISTEN): its REQs go there. */
struct srd_listen {
	struct srd_client *client;
	const struct srd_device *dev;
	uint64_t sid;
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
	uint64_t cm_hold_ns;            /* a REQ waits for its listener (qp1.c) */
	uint64_t idle_spin_ns;          /* idle rounds spun before a nap */
	uint64_t idle_yield_ns;         /* then rounds that yield the CPU */
	uint64_t idle_nap_ns;           /* then naps this long (main.c) */
	bool no_sleep;                  /* nap even where it could sleep */
	int nice;                       /* now (main.c srd_clients_changed) */
	int nice_base;                  /* at start: with 0 or 1 client */
	int nice_max;                   /* --nice: at most this (0: never) */
	bool nice_denied;               /* no CAP_SYS_NICE: said once */
	struct srd_listen listen[SRD_LISTEN_MAX];
	unsigned int nlisten;
	bool verbose;
};

/* main.c */
void srd_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
uint64_t srd_now_ns(void);

/* main.c: one round of every port (work done, 0: idle) */
int srd_round(struct sroced *d);
/* main.c: a client came or went (shared flags, the daemon's nice) */
void srd_clients_changed(struct sroced *d);

/* idle.c */
/* The default spin and nap for the CPUs the daemon may use. */
void srd_idle_defaults(struct sroced *d);
/* The policy in words, for the start's log line. */
const char *srd_idle_how(const struct sroced *d);
/* After a round that found nothing for idle_ns: spin, sleep or nap;
 * true when the control socket has something to read. */
bool srd_idle(struct sroced *d, uint64_t idle_ns);

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
/* A round's try of the frames that wait (struct srd_park) from a client's
 * channel or a device's port: 1 while any wait (the round has work), else
 * 0.  srd_park_free: what waits goes, with the client or the device. */
int srd_park_retry_client(struct srd_client *c, uint64_t now_ns);
int srd_park_retry_port(struct srd_device *dv, uint64_t now_ns);
void srd_park_free(struct srd_park **k);
/* The daemon the handlers switch for (one per process). */
void srd_switch_init(struct sroced *d);
/* Helpers qp1.c shares: the frame's source or destination IP as a GID;
 * is it one of the device's; the client that owns a QPN block of the
 * device (attached, channel open), NULL if none; copy a frame, with a
 * new Ethernet header, to a client untagged or out of the device's port
 * with its VLAN tag, if any (false: no room; dropped and counted). */
void srd_frame_gid(const uint8_t *p, const struct sr_frame *f, bool dst,
		   uint8_t gid[16]);
bool srd_dev_is_own(const struct srd_device *dv, const uint8_t gid[16]);
struct srd_client *srd_block_owner(const struct srd_device *dv,
				   uint32_t block);
bool srd_emit_client(const struct srd_client *c, const uint8_t *p,
		     uint32_t len, const struct sr_frame *f);
bool srd_emit_port(const struct srd_device *dv, const uint8_t *p,
		   uint32_t len, const struct sr_frame *f, const uint8_t mac[6]);

/* mcast.c: a client's multicast groups (SRD_MCAST) */
int srd_mcast_set(struct srd_client *c, const uint8_t gid[16], bool on);
bool srd_mcast_member(const struct srd_client *c, const uint8_t gid[16]);
void srd_mcast_drop_client(struct srd_client *c);
void srd_mcast_close(struct srd_device *dv);

/* qp1.c */
int srd_qp1_open(struct sroced *d, struct srd_device *dv);
void srd_qp1_close(struct srd_device *dv);
/* The daemon CM's timers (it keeps no connection: rarely any). */
void srd_qp1_poll(struct srd_device *dv, uint64_t now);
/* A frame for QPN 1 of dv (from its port, or from a client to one of its
 * addresses): to the client whose CM it names (counted as ok on counted),
 * else to the daemon's CM. */
void srd_qp1_route(struct srd_device *dv, struct sr_pmd_dev *counted,
		   const uint8_t *p, uint32_t len, const struct sr_frame *f,
		   enum sr_dev_counter ok);
/* Client c sent this QP1 frame (passed srd_qp1_client_ok): its
 * connections are followed (cm/watch.h). */
void srd_qp1_from_client(const struct srd_client *c, const uint8_t *p,
			 const struct sr_frame *f);
/* Client c is gone: its peers get DREQs for its connections; how many. */
unsigned int srd_qp1_client_gone(const struct srd_client *c);
/* May client c send this QP1 frame (a CM Send for its own IDs)? */
bool srd_qp1_client_ok(const struct srd_client *c, const uint8_t *p,
		       const struct sr_frame *f);
/* SRD_LISTEN: 0, -EADDRINUSE (another client's), -ENOENT (off: not
 * c's), -ENOSPC. */
int srd_listen_set(struct sroced *d, struct srd_client *c, uint64_t sid,
		   bool on);
void srd_listen_drop_client(struct sroced *d, const struct srd_client *c);

#endif /* SR_SROCED_H */
