#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# cm_pair.sh LIB_DIRS EXPECT SERVER_CMD -- CLIENT_CMD
#
# Debian's unmodified RDMA-CM programs (rdmacm-utils, perftest -R) as two
# processes on the default link, with the drop-in libibverbs and
# librdmacm (LIB_DIRS, colon-separated, goes in front of the library
# path).  Node 0 (10.0.0.1) is the server, node 1 the client.  Both must
# exit 0, and EXPECT (an extended regex) must match the client's output.
#
# FAULT0 / FAULT1: one fault rule for node 0 / node 1 (pmd/CONFIG.md),
# e.g. "tx drop opcode=100 psn=0 times=1" loses the node's first MAD.
# CM_EXPECT_CM: a regex the CM trace (SROCE_CM_TRACE) of either node must
# match (an event seen).
# PCAP_EXPECT="N PATTERN MIN": node N's capture, decoded by SROCE_PCAP
# (sroce-pcap), has at least MIN lines matching PATTERN (an RX fault acts
# after the capture: a REQ dropped on receive is seen, then its resend).
# CM_SERVER_STAYS=1: the server never exits by itself (cmtime's): once the
# client is done, it is stopped, and must still be running then.
set -u
libs=$1
expect=$2
shift 2
srv=""
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
	srv="$srv $1"
	shift
done
shift
cli="$*"
prog=${srv%% *}
prog=$(echo "$srv" | awk '{ print $1 }')
command -v "$prog" >/dev/null || { echo "SKIP: no $prog (rdmacm-utils, perftest)"; exit 77; }

tmp=$(mktemp -d /tmp/sroce-cm-pair.XXXXXX)
. "$(dirname "$0")/../harness.sh"

export LD_LIBRARY_PATH=$libs SROCE_RUN_DIR=$tmp SROCE_CM_TRACE=1
unset SROCE_CONFIG
for n in 0 1; do
	eval "rule=\${FAULT$n:-}"
	lines="port = default|node = $n|run_dir = $tmp|stats_dir = off|capture = $tmp/node$n.pcap"
	[ -n "$rule" ] && lines="$lines|fault = $rule"
	echo "$lines" | tr '|' '\n' > "$tmp/node$n.conf"
done
limit=${SROCE_CM_TIMEOUT:-60}

# shellcheck disable=SC2086
SROCE_CONFIG=$tmp/node0.conf timeout "$limit" $srv > "$tmp/server.log" 2>&1 &
spid=$!
pids=$spid
sleep 1
# shellcheck disable=SC2086
SROCE_CONFIG=$tmp/node1.conf timeout "$limit" $cli > "$tmp/client.log" 2>&1
crc=$?
if [ "${CM_SERVER_STAYS:-0}" = 1 ]; then
	if kill -0 $spid 2>/dev/null; then
		kill $spid
		wait $spid
		src=0
	else
		wait $spid
		src="$?, gone before the client was done"
	fi
else
	wait $spid
	src=$?
fi
pids=""
[ "$src" = 0 ] && [ $crc -eq 0 ] ||
	fail "server exit $src, client exit $crc:$srv --$cli"
grep -Eq "$expect" "$tmp/client.log" ||
	fail "the client's output does not match /$expect/"
if [ -n "${CM_EXPECT_CM:-}" ]; then
	cat "$tmp/server.log" "$tmp/client.log" | grep -Eq "$CM_EXPECT_CM" ||
		fail "the CM trace does not match /$CM_EXPECT_CM/"
fi
if [ -n "${PCAP_EXPECT:-}" ]; then
	set -- $PCAP_EXPECT
	n=$1 pat=$2 min=$3
	got=$("$SROCE_PCAP" "$tmp/node$n.pcap" 2>/dev/null | grep -c "$pat")
	[ "$got" -ge "$min" ] ||
		fail "node $n's capture has $got lines with '$pat', expected $min or more"
	echo "node $n's capture: $got x '$pat'"
fi
grep -h "^sroce-cm:" "$tmp/server.log" "$tmp/client.log" | awk '{ print $2 }' |
	sort | uniq -c | tr '\n' ' '
echo
echo "ok:$srv --$cli"
