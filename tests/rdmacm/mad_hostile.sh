#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# mad_hostile.sh LIB_DIRS MAD_INJECT SROCE_STAT — bad input to a running
# device's QP1 and CM: an rping server (node 0, the drop-in librdmacm)
# receives mad_inject's hostile and stray datagrams (node 1).  Every one is
# refused and counted (gsi_drop, cm_drop in sroce-stat) or answered as the
# specification says (mad_inject checks the REJ, DREP and SIDR_REP); then
# a real rping client connects to the same server: nothing broke.
set -u
libs=$1
inject=$2
stat=$3
command -v rping >/dev/null || { echo "SKIP: no rping"; exit 77; }
tmp=$(mktemp -d /tmp/sroce-mad.XXXXXX)
. "$(dirname "$0")/../harness.sh"
export SROCE_RUN_DIR=$tmp
# mad_inject and sroce-stat drive DPDK themselves: not over the drop-in
# libibverbs (DPDK's mlx drivers would load it)
unset LD_LIBRARY_PATH
conf n0 "port = default" "node = 0" "run_dir = $tmp" "stats_dir = $tmp"
conf n1 "port = default" "node = 1" "run_dir = $tmp" "stats_dir = off"
LD_LIBRARY_PATH=$libs SROCE_CONFIG=$tmp/n0.conf timeout 60 \
	rping -s -a 10.0.0.1 -V -C 10 > "$tmp/server.log" 2>&1 &
spid=$!
pids=$spid
sleep 1
SROCE_CONFIG=$tmp/n1.conf timeout 30 "$inject" > "$tmp/inject.log" 2>&1 ||
	fail "mad_inject: exit $?"
grep "^mad_inject:" "$tmp/inject.log"
sleep 0.3          # the counters reach the stats file every 100 ms
f=$(ls "$tmp"/sroce-*.stats 2>/dev/null | head -1)
[ -n "$f" ] || fail "no stats file of the server in $tmp"
"$stat" -f "$f" > "$tmp/stat.log" 2>&1 || fail "sroce-stat: exit $?"
ctr() { awk -v n="$1" '$1 == n { print $2; exit }' "$tmp/stat.log"; }
gsi=$(ctr gsi_drop)
cmd=$(ctr cm_drop)
echo "server: gsi_drop=${gsi:-?} cm_drop=${cmd:-?} cm_rx=$(ctr cm_rx) cm_tx=$(ctr cm_tx)"
[ "${gsi:-0}" -ge 3 ] || fail "gsi_drop ${gsi:-none}, want 3 (RC opcode, Q_Key, short)"
[ "${cmd:-0}" -ge 4 ] || fail "cm_drop ${cmd:-none}, want 4 (garbage, attribute, version, stray REP)"
LD_LIBRARY_PATH=$libs SROCE_CONFIG=$tmp/n1.conf timeout 30 \
	rping -c -a 10.0.0.1 -v -V -C 10 > "$tmp/client.log" 2>&1 ||
	fail "rping after the hostile MADs: exit $?"
wait $spid || fail "rping server: exit $?"
pids=""
grep -q "rdma-ping-9:" "$tmp/client.log" || fail "rping client: no 10th ping"
echo "ok: hostile MADs refused and counted, strays answered, rping still connects"
