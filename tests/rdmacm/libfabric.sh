#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# libfabric.sh LIB_DIRS EP — Debian's libfabric (1.17) verbs provider on
# sroce: fi_pingpong -p verbs -e EP (msg: verbs over RDMA-CM; rdm:
# verbs;ofi_rxm; dgram: verbs UD), every size, data checked (-c), server
# and client as two processes on the default link.
#
# fi_pingpong reaches the server's fabric address at the name it uses for
# its TCP control connection, and the server opens its device first: the
# server is node 0 (the memif server) at 127.0.0.1, the client node 1 at
# 127.0.0.2 (loopback is a /8, so the kernel carries the control socket).
set -u
libs=$1
ep=$2
command -v fi_pingpong >/dev/null || { echo "SKIP: no fi_pingpong (libfabric-bin)"; exit 77; }
tmp=$(mktemp -d /tmp/sroce-fabric.XXXXXX)
. "$(dirname "$0")/../harness.sh"
export LD_LIBRARY_PATH=$libs SROCE_RUN_DIR=$tmp
conf n0 "port = default" "node = 0" "run_dir = $tmp" "stats_dir = off" "ipv4 = 127.0.0.1/8"
conf n1 "port = default" "node = 1" "run_dir = $tmp" "stats_dir = off" "ipv4 = 127.0.0.2/8"
cport=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
SROCE_CONFIG=$tmp/n0.conf timeout 100 fi_pingpong -p verbs -e "$ep" -B "$cport" \
	-I 100 -c > "$tmp/server.log" 2>&1 &
spid=$!
pids=$spid
sleep 1
SROCE_CONFIG=$tmp/n1.conf timeout 90 fi_pingpong -p verbs -e "$ep" -P "$cport" \
	-I 100 -c 127.0.0.1 > "$tmp/client.log" 2>&1
crc=$?
wait $spid
src=$?
pids=""
[ $src -eq 0 ] && [ $crc -eq 0 ] || fail "fi_pingpong -e $ep: server exit $src, client exit $crc"
# one row per size, the last 1 MiB (4 KiB: dgram carries one MTU)
last=$(grep -E '^[0-9]+[kmg]? +100 +=100 ' "$tmp/client.log" | tail -1)
[ -n "$last" ] || fail "fi_pingpong -e $ep printed no result row"
echo "$(grep -cE '^[0-9]+[kmg]? +100 +=100 ' "$tmp/client.log") sizes; last: $last"
echo "ok: fi_pingpong -p verbs -e $ep -c"
