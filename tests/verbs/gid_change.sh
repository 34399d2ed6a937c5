#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# gid_change.sh GID_CHANGE_BIN SHIM_DIR MODE [MTU]
#
# A verbs consumer on a host NIC (port = iface:NAME, docs/host-nic.md)
# follows the interface's addresses: gid_change.c, linked to the drop-in
# libibverbs, opens the device twice on one end of a veth pair in a
# namespace this script creates (no existing interface is touched); the
# script adds fd00:77::5/64 when told to, then deletes it, (with MTU) then
# sets the interface's MTU; the program checks IBV_EVENT_GID_CHANGE on
# both contexts and ibv_query_gid (and active_mtu) within its bound.
# MODE: af_xdp or af_packet (iface_mode).
set -u
bin=$1
shim=$2
mode=$3
mtu=${4:-}

tmp=$(mktemp -d /tmp/sroce-gid-change.XXXXXX)
. "$(dirname "$0")/../harness.sh"
tag=$(( $$ % 10000 ))
ns=sroce-gid-$tag
ia=gca$tag
ib=gcb$tag

ip netns add $ns || fail "ip netns add"
ip -n $ns link set lo up
ip -n $ns link add $ia type veth peer name $ib || fail "veth"
ip -n $ns addr add 10.82.0.1/24 dev $ia
ip -n $ns link set $ib up
ip -n $ns link set $ia up
mkdir -p "$tmp/run" "$tmp/stats"
conf a "port = iface:$ia" "iface_mode = $mode" "run_dir = $tmp/run" \
	"stats_dir = $tmp/stats"

# wait_file PATH: up to 20 s (the program's own waits are 3 s each)
wait_file() {
	i=0
	until [ -e "$1" ]; do
		i=$((i + 1))
		[ $i -ge 400 ] && return 1
		kill -0 $pids 2>/dev/null || return 1
		sleep 0.05
	done
}

SROCE_CONFIG=$tmp/a.conf LD_LIBRARY_PATH=$shim ip netns exec $ns \
	timeout 60 "$bin" fd00:77::5 "$tmp/step" $mtu > "$tmp/prog.log" 2>&1 &
pids=$!
wait_file "$tmp/step.1" || fail "the program did not open the device"
ip -n $ns addr add fd00:77::5/64 dev $ia nodad || fail "addr add"
wait_file "$tmp/step.2" || fail "no GID_CHANGE for the added address"
ip -n $ns addr del fd00:77::5/64 dev $ia || fail "addr del"
if [ -n "$mtu" ]; then
	wait_file "$tmp/step.3" || fail "no GID_CHANGE for the deleted address"
	ip -n $ns link set $ia mtu "$mtu" || fail "link set mtu"
fi
wait $pids || fail "gid_change"
pids=""
cat "$tmp/prog.log"
echo "PASS gid_change ($mode)"
