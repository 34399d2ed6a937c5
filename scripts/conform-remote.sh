#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# conform-remote.sh [USER@]HOST DEVICE GID_INDEX [sroce-conform options]
#
# sroce-conform against an RNIC in another machine, in one command: copies
# build/tools/sroce-conform/sroce-conform-agent there (scp; plain
# libibverbs, built portable), starts it on DEVICE / GID_INDEX (a RoCEv2
# GID of the port facing this host: `show_gids` or `ibv_devinfo -v`), and
# runs the tester here on the sroce port of SROCE_CONFIG (pmd/CONFIG.md;
# e.g. port = iface:eth1: the NIC on the same Ethernet as the RNIC).
# Reports in ./conform-out (or --out DIR).  The exit status is the
# tester's (docs/conformance.md).
set -u
[ $# -ge 3 ] || { sed -n 3,12p "$0"; exit 2; }
host=$1 dev=$2 gid=$3
shift 3
top=$(cd "$(dirname "$0")/.." && pwd)
bin=$top/build/tools/sroce-conform
port=${SROCE_CONFORM_PORT:-7471}
[ -n "${SROCE_CONFIG:-}" ] || { echo "conform-remote: set SROCE_CONFIG to the sroce port's configuration"; exit 2; }
scp -q "$bin/sroce-conform-agent" "$host:/tmp/sroce-conform-agent" || exit 2
ssh -n "$host" "/tmp/sroce-conform-agent --dev $dev --gid $gid --port $port --once > /tmp/sroce-conform-agent.log 2>&1 &" || exit 2
sleep 1
"$bin/sroce-conform" --agent "${host#*@}:$port" "$@"
rc=$?
ssh -n "$host" "cat /tmp/sroce-conform-agent.log" | tail -3
exit $rc
