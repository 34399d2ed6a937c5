# SPDX-License-Identifier: BSD-3-Clause
# veth.sh — sourced, not run: sr_veth_pair NS A B [MTU] makes the veth pair
# A <-> B inside the existing network namespace NS and sets both ends up.
#
# net_af_packet joins the PACKET_FANOUT group (pid ^ ifindex) & 0xffff of
# its namespace: with neighbouring ifindexes, processes of neighbouring pids
# collide (EINVAL at probe).  The two ends get ifindexes equal in their low
# 16 bits, so only pids equal in theirs could.
sr_veth_pair() {
	_ns=$1 _a=$2 _b=$3 _mtu=${4:-1500}
	_idx=$((3000 + $$ % 1000))
	ip -n "$_ns" link add "$_a" index $_idx mtu "$_mtu" type veth \
		peer name "$_b" index $((_idx + 1048576)) || return 1
	ip -n "$_ns" link set "$_a" up && ip -n "$_ns" link set "$_b" up
}
