#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# qperf.sh LIB_DIRS — Debian's qperf over RDMA-CM (-cm1): its seven RC tests
# and both atomics, server and client as two processes on the default link.
#
# qperf's client opens its device before it asks the server (over TCP) to
# open its own, and reaches the server's RDMA address at the name it uses
# for TCP.  So the client is the default link's node 0 (the memif server,
# which does not wait for its peer), and the two nodes take addresses the
# kernel answers TCP on: 127.0.0.1 and 127.0.0.2 (loopback is a /8).
# qperf's default mode (-cm0) addresses by LID, which RoCE does not have:
# refused, as on rxe.  Each test must print its figure and exit 0.
set -u
libs=$1
command -v qperf >/dev/null || { echo "SKIP: no qperf"; exit 77; }
tmp=$(mktemp -d /tmp/sroce-qperf.XXXXXX)
. "$(dirname "$0")/../harness.sh"
export LD_LIBRARY_PATH=$libs SROCE_RUN_DIR=$tmp
conf n0 "port = default" "node = 0" "run_dir = $tmp" "stats_dir = off" "ipv4 = 127.0.0.1/8"
conf n1 "port = default" "node = 1" "run_dir = $tmp" "stats_dir = off" "ipv4 = 127.0.0.2/8"
lp=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
SROCE_CONFIG=$tmp/n1.conf timeout 200 qperf -lp "$lp" > "$tmp/server.log" 2>&1 &
pids=$!
sleep 0.5
# qperf ends its event-mode loops with SIGALRM: ibv_get_cq_event must
# return EINTR then (rc_rdma_write_lat stalled until it did).
tests="rc_bw rc_bi_bw rc_lat rc_rdma_read_bw rc_rdma_read_lat rc_rdma_write_bw rc_rdma_write_lat rc_compare_swap_mr rc_fetch_add_mr"
for t in $tests; do
	SROCE_CONFIG=$tmp/n0.conf timeout 60 qperf -lp "$lp" -cm1 -t 1 127.0.0.2 "$t" \
		> "$tmp/client.log" 2>&1 || fail "qperf -cm1 $t: exit $?"
	grep -Eq "^ *(bw|latency|msg_rate) += +[0-9][0-9.,]* " "$tmp/client.log" ||
		fail "qperf -cm1 $t printed no figure"
	echo "ok: $t $(grep -E '(bw|latency|msg_rate) +=' "$tmp/client.log" | tr -s ' ')"
done
# the default mode addresses by LID: refused with a message, not a hang
SROCE_CONFIG=$tmp/n0.conf timeout 60 qperf -lp "$lp" -t 1 127.0.0.2 rc_lat \
	> "$tmp/client.log" 2>&1 && fail "qperf -cm0 rc_lat succeeded without a GRH"
echo "ok: -cm0 (LID addressing) refused: $(grep -v memif "$tmp/client.log" | tail -1)"
