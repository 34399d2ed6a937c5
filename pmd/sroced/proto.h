/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * proto.h — sroced's control protocol: what a process and the daemon say
 * on the daemon's unix socket (SOCK_SEQPACKET, one message per packet,
 * host byte order: both ends are on one host).
 *
 * A process connects and says HELLO; the daemon answers with its device
 * count.  DEV_INFO asks for a device's name, MAC, MTU and addresses.
 * ATTACH makes the connection a client of one device: the daemon opens a
 * frame channel for it (a net_memif interface, server side, on the socket
 * and id in the reply) and hands it a block of QP numbers.  The client
 * holds the connection open for as long as it uses the device: its close
 * (exit, kill -9) is how the daemon learns that the client is gone, and
 * the daemon's close is how the client learns that the device is.
 * ATTACH's reply carries two descriptors (SCM_RIGHTS): the channel's
 * doorbell page (struct srd_bell, a memfd) and the eventfd that rings it.
 *
 * Every request is checked whole (srd_check) before a field is read: a
 * wrong size, magic, version or type is answered with -EPROTO and the
 * connection closed.  Pure C, no DPDK: fuzzed by tests/fuzz.
 */
#ifndef SR_SROCED_PROTO_H
#define SR_SROCED_PROTO_H

#include <stddef.h>
#include <stdint.h>

#define SRD_MAGIC    0x44435253u  /* "SRCD" */
#define SRD_VERSION  1
#define SRD_SOCKET_DEFAULT "/run/sroce/sroced.sock"
#define SRD_NAME_MAX 16
#define SRD_PATH_MAX 108          /* sun_path */
#define SRD_IPV6_MAX 4
#define SRD_DEVS_MAX 8
/* QP numbers: 4096 blocks of 4096; block 0 (QP0, QP1) is the daemon's. */
#define SRD_QPN_SHIFT 12
#define SRD_QPN_BLOCK (1u << SRD_QPN_SHIFT)
#define SRD_BLOCKS    4096u

enum srd_type {
	SRD_UNKNOWN = 0,          /* error replies to a request of no type */
	SRD_HELLO = 1,
	SRD_DEV_INFO = 2,
	SRD_ATTACH = 3,
	SRD_QP_PEER = 4,          /* an attached client's RC/UC QP's peer */
	SRD_LISTEN = 5,           /* its CM listens on a service ID */
	SRD_MCAST = 6,            /* its QPs joined / left a multicast group */
	SRD_TYPE_MAX,
	SRD_REPLY = 0x8000,       /* or'ed into the request's type */
};

struct srd_hdr {
	uint32_t magic;
	uint16_t version;
	uint16_t type;
	uint32_t len;             /* the whole message */
	int32_t status;           /* replies: 0 or -errno */
};

struct srd_hello {
	struct srd_hdr h;
	uint32_t pid;
	char comm[SRD_NAME_MAX];  /* the program, for the daemon's log */
};

struct srd_hello_reply {
	struct srd_hdr h;
	uint32_t ndevs;
	uint32_t client_id;
};

struct srd_dev_req {              /* DEV_INFO and ATTACH */
	struct srd_hdr h;
	uint32_t index;
};

struct srd_dev_info {
	struct srd_hdr h;
	char name[SRD_NAME_MAX];
	uint8_t mac[6];
	uint8_t ipv4[4];
	uint8_t ipv4_prefix;
	uint8_t has_ipv4;
	uint32_t mtu;             /* IP MTU */
	uint32_t n_ipv6;          /* global addresses; link-local from mac */
	uint8_t ipv6[SRD_IPV6_MAX][16];
	uint8_t ipv6_prefix[SRD_IPV6_MAX];
};

struct srd_attach_reply {
	struct srd_hdr h;
	struct srd_dev_info dev;  /* its h unused */
	char memif_socket[SRD_PATH_MAX];
	uint32_t memif_id;
	uint8_t gw_mac[6];        /* the daemon's end of the channel */
	uint16_t pad;
	uint32_t qpn_base;        /* QPNs qpn_base .. + SRD_QPN_BLOCK - 1 */
	uint32_t client_id;
};

/*
 * A channel's doorbell.  The daemon sleeps in ppoll() when it finds no
 * work instead of napping on a timer: before it sleeps it sets
 * daemon_asleep and looks at every ring once more; a client that has just
 * put frames on its channel (a store to the ring) and then finds
 * daemon_asleep set (a load after a full fence) takes the flag and writes
 * the eventfd.  One of the two sees the other's store, so no frame waits
 * for a timer, and a client pays a system call only when the daemon
 * sleeps.  The daemon counts its wake-ups by each client
 * (sw_bell_wakeups on the channel), the client the rings
 * (sw_bell_rung on its device).
 *
 * The other half wakes a client: while the daemon serves other clients
 * too (shared), a client whose CQ polls find nothing sleeps on a second
 * eventfd (ATTACH's third descriptor) with client_asleep set, and the
 * daemon, after putting frames on that client's channel, rings it the
 * same way (sw_bell_rung on the channel, sw_client_sleeps on the
 * client's device).
 */
struct srd_bell {
	uint32_t daemon_asleep;   /* atomic: 1 while the daemon may sleep */
	uint32_t pad[15];         /* a cache line of its own */
	uint32_t client_asleep;   /* atomic: 1 while the client may sleep */
	uint32_t shared;          /* the daemon serves other clients too */
	uint32_t pad2[14];
};

/*
 * QP_PEER: the client's RC or UC QP qpn (of its block) is connected to
 * dqpn at dgid (on) or goes (off).  The daemon lets the client's RC/UC
 * frames out only to the peers of its QPs.  The reply is a bare header.
 */
struct srd_qp_peer {
	struct srd_hdr h;
	uint32_t qpn;
	uint32_t dqpn;
	uint8_t dgid[16];
	uint32_t on;
};

/*
 * LISTEN: the client's CM listens on service_id (on) or no longer (off);
 * the daemon sends it the REQs and SIDR_REQs for it (lib/cm/route.h).
 * The reply is a bare header: 0, -EADDRINUSE (another client listens
 * there), -ENOENT (off: not the client's), -ENOSPC, -EPERM (not attached).
 */
struct srd_listen_req {
	struct srd_hdr h;
	uint64_t service_id;
	uint32_t on;
	uint32_t pad;
};

/*
 * MCAST: the client's UD QPs joined the multicast group gid (on: its
 * first QP attached) or left it (off: its last one went).  The daemon
 * switches the group's datagrams to the client and keeps the device's
 * membership on its port while any client is a member.  The reply is a
 * bare header: 0, -EINVAL (not a multicast GID), -ENOENT (off: not a
 * member), -ENOMEM, -EPERM (not attached).
 */
struct srd_mcast_req {
	struct srd_hdr h;
	uint8_t gid[16];
	uint32_t on;
	uint32_t pad;
};

/* Fill a header for a message of type and size. */
void srd_hdr_init(struct srd_hdr *h, uint16_t type, size_t len);

/*
 * Check a received message of len bytes whole: 0 and *type set (with
 * SRD_REPLY when reply), or -EPROTO (short, bad magic / version / type /
 * size, or a string without its NUL).  reply says which side reads it.
 */
int srd_check(const void *msg, size_t len, int reply, uint16_t *type);

#endif /* SR_SROCED_PROTO_H */
