/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * daemon.h — a process's side of sroced (docs/sroced.md): find the daemon,
 * list its devices, attach to one.  Pure C (no DPDK): what comes back is a
 * configuration the process opens as usual (its port is its frame channel
 * to the daemon, a net_memif client) and the block of QP numbers its
 * transport must use (sr_dev_config.qpn_base).
 *
 * SROCE_DAEMON chooses:
 *   unset  the daemon when SROCE_CONFIG is unset and the daemon answers
 *          on SROCE_DAEMON_SOCKET (default /run/sroce/sroced.sock), else
 *          the embedded device;
 *   off    the embedded device, always;
 *   on     the daemon (an error when it does not answer);
 *   PATH   the daemon on that socket (likewise).
 */
#ifndef SR_PMD_DAEMON_H
#define SR_PMD_DAEMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "sroced/proto.h"

/* A client's requester window, PSNs (sr_pmd_config.window). */
#define SR_PMD_DAEMON_WINDOW 512u

/*
 * The daemon's socket to use, or NULL for the embedded device.  *required
 * tells whether a daemon that does not answer is an error.
 */
const char *sr_pmd_daemon_socket(bool *required);

/*
 * Ask the daemon for its devices (at most max): name, MAC, addresses.
 * Returns the count or -errno: -ECONNREFUSED / -ENOENT (no daemon),
 * -EPROTO (a bad answer).
 */
int sr_pmd_daemon_list(const char *sock, struct srd_dev_info *devs,
		       unsigned int max);

struct sr_pmd_daemon_att {
	int fd;                /* the control connection: hold it open */
	uint32_t qpn_base;
	uint32_t client_id;
};

/*
 * Attach to device index: cfg is filled for the frame channel (port,
 * MAC, addresses, MTU, gateway, and the attachment: daemon_fd, which the
 * pmd device made from cfg closes when it goes, and qpn_base), att gets
 * the same.  0 or -errno with one line in err.
 */
int sr_pmd_daemon_attach(const char *sock, unsigned int index,
			 struct sr_pmd_config *cfg,
			 struct sr_pmd_daemon_att *att, char *err,
			 size_t errlen);

/*
 * The channel's doorbell (sroced/proto.h): map the page of fd (closed
 * either way); NULL when it cannot be.  Ring it after frames were put on
 * the channel: efd is written only when the other side said it sleeps
 * (*asleep: the daemon's flag for a client, a client's for the daemon),
 * and the flag is taken; true when it was.  Unmap.
 */
struct srd_bell *sr_pmd_daemon_bell_map(int fd);
bool sr_pmd_daemon_bell_ring(uint32_t *asleep, int efd);
void sr_pmd_daemon_bell_unmap(struct srd_bell *bell);

/*
 * Tell the daemon that QP qpn (of the attachment's block) is connected to
 * dqpn at dgid (on) or no longer (off): it lets RC/UC frames out only to
 * such peers.  Thread-safe (one call at a time).  0 or -errno (-EPERM: not
 * our QP; -ECONNRESET: the daemon is gone).
 */
int sr_pmd_daemon_qp_peer(int fd, uint32_t qpn, const uint8_t dgid[16],
			  uint32_t dqpn, bool on);

/*
 * Tell the daemon that the process's CM listens on service_id (on) or no
 * longer (off): the daemon owns the device's QP1 and sends each process
 * the REQs for its services (lib/cm/route.h).  Thread-safe.  0 or -errno
 * (-EADDRINUSE: another process listens there).
 */
int sr_pmd_daemon_listen(int fd, uint64_t service_id, bool on);

/* The client's QPs joined (on) or left a multicast group (SRD_MCAST). */
int sr_pmd_daemon_mcast(int fd, const uint8_t gid[16], bool on);

/* Is the daemon still there (its end of fd open)?  Never blocks. */
bool sr_pmd_daemon_alive(int fd);

#endif /* SR_PMD_DAEMON_H */
