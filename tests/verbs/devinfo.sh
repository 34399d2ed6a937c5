#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# devinfo.sh SHIM_DIR
#
# Debian's ibv_devinfo -v and ibv_devices under the shim, on the default
# link (no EAL needed to list or query): the device, its Ethernet port and
# its RoCEv2 GIDs (link-local, IPv4-mapped, IPv6).  Then two devices from
# a SROCE_CONFIG list: sroce0 and sroce1.
set -u
dir=$1
tmp=$(mktemp -d /tmp/sroce-verbs-devinfo.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
export LD_LIBRARY_PATH=$dir SROCE_RUN_DIR=$tmp SROCE_NODE=0
unset SROCE_CONFIG

fail() {
	echo "FAIL: $*"
	cat "$tmp/out"
	exit 1
}
expect() {
	grep -q -- "$1" "$tmp/out" || fail "missing: $1"
}

ibv_devices > "$tmp/out" 2>&1 || fail "ibv_devices failed"
expect "sroce0"
expect "005352fffe000001"

timeout 30 ibv_devinfo -v > "$tmp/out" 2>&1 || fail "ibv_devinfo -v failed"
expect "hca_id:	sroce0"
expect "vendor_id:			0x5352"
expect "state:			PORT_ACTIVE (4)"
expect "link_layer:		Ethernet"
expect "active_mtu:		4096 (5)"
expect "GID\[  0\]:		fe80::53:52ff:fe00:1, RoCE v2"
expect "GID\[  1\]:		::ffff:10.0.0.1, RoCE v2"
expect "GID\[  2\]:		fd00:5352::1, RoCE v2"
expect "atomic_cap:			ATOMIC_HCA (1)"

# Two devices: one configuration file each.
printf 'port = default\nnode = 0\n' > "$tmp/a.conf"
cat > "$tmp/b.conf" <<CONF
port = net_ring0
mac = 02:00:00:00:00:0b
ipv4 = 192.168.77.2/24
ipv6 = fd00:77::2/64
CONF
SROCE_CONFIG=$tmp/a.conf:$tmp/b.conf timeout 30 ibv_devinfo -v > "$tmp/out" 2>&1 ||
	fail "ibv_devinfo -v with two devices failed"
expect "hca_id:	sroce0"
expect "hca_id:	sroce1"
expect "::ffff:192.168.77.2, RoCE v2"
expect "fd00:77::2, RoCE v2"
SROCE_CONFIG=$tmp/a.conf:$tmp/b.conf timeout 30 ibv_devinfo -d sroce1 > "$tmp/out" 2>&1 ||
	fail "ibv_devinfo -d sroce1 failed"
expect "hca_id:	sroce1"

# An af_packet port with no mac = (the port's own) and mtu = 9000 on a
# 1500-byte veth: the device opens, its link-local GID is made from the
# veth's MAC, and it advertises the path MTU the veth carries (1024).
ns=sroce-devinfo-$$
ip netns add $ns || fail "ip netns add"
trap 'ip netns del $ns 2>/dev/null; rm -rf "$tmp"' EXIT INT TERM
ip -n $ns link add sr0 type veth peer name sr1 &&
	ip -n $ns link set sr0 address 02:5f:4a:d3:e5:de &&
	ip -n $ns link set sr0 up && ip -n $ns link set sr1 up ||
	fail "veth"
cat > "$tmp/p.conf" <<CONF
port = net_af_packet0,iface=sr0
ipv4 = 10.68.0.1/24
mtu = 9000
stats_dir = off
CONF
SROCE_CONFIG=$tmp/p.conf timeout 30 ip netns exec $ns ibv_devinfo -v \
	> "$tmp/out" 2>&1 || fail "ibv_devinfo on af_packet without mac ="
expect "GID\[  0\]:		fe80::5f:4aff:fed3:e5de, RoCE v2"
expect "GID\[  1\]:		::ffff:10.68.0.1, RoCE v2"
expect "active_mtu:		1024 (3)"
echo "ok: ibv_devices, ibv_devinfo -v (one and two devices; af_packet, no mac =)"
