/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * clients.h — sroce-stat's view of sroced's clients (clients.c).
 */
#ifndef SR_STAT_CLIENTS_H
#define SR_STAT_CLIENTS_H

#include "counters.h"

/*
 * The QPs a client process has open: the slots in use in its own stats
 * files (sroce-<pid>-*.stats in dir, else /dev/shm); -1 when it has none.
 */
int stat_client_qps(const char *dir, int pid);
/* One line on the client a channel file serves (nothing if it is none). */
void stat_client_line(const struct sr_stats_shm *s, const char *dir,
		      const char *indent);
/* -c: a table of every client of the daemons whose files are in dir. */
int stat_clients(const char *dir);

#endif /* SR_STAT_CLIENTS_H */
