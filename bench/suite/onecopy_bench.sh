#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# onecopy_bench.sh BUILD RAW REP [SECONDS]: how many copies a payload byte
# costs, side by side on the default memif link (docs/performance.md, "One
# copy per side").  WRITE and READ of 4 KiB and 64 KiB on 1 QP, REP runs of
# three variants in turn, so each samples the same stretch of the machine:
#   copies     tx_ref_min = off: the sender copies the payload into an mbuf,
#              the port copies the mbuf into the ring (4 copies a byte);
#   by-ref     the default: 4 KiB payloads go out by reference, the port's
#              copy is the sender's only one (3);
#   zero-copy  by reference, and node 1's memif client in zero-copy mode:
#              it receives straight from the ring's memory (one per side);
#              needs hugepages (added here if missing, given back after).
# Writes RAW/rdma_onecopy.txt: sroce-bench-rdma's JSON lines, "mode" the
# variant.  Figures only, no assertion.
set -u
build=$1 raw=$2 rep=$3 secs=${4:-1}
rdma=$build/bench/rdma/sroce-bench-rdma
out=$raw/rdma_onecopy.txt
. "$(dirname "$0")/../../scripts/hugepages.sh"
tmp=$(mktemp -d /tmp/sroce-onecopy.XXXXXX)
trap 'sr_hugepages_restore; rm -rf "$tmp"' EXIT INT TERM
mkdir -p "$tmp/run"
: > "$out"

variants="copies by-ref zero-copy"
if ! sr_hugepages_free 160; then
	echo "onecopy: no 160 free hugepages for memif zero-copy; that variant is left out"
	variants="copies by-ref"
fi

# conf VARIANT NODE LINES...: a node's file
conf() {
	v=$1 n=$2
	shift 2
	printf '%s\n' "ipv4 = 10.0.0.$((n + 1))/24" "mac = 02:53:52:00:00:0$((n + 1))" \
		"mtu = 9000" "stats_dir = off" "$@" > "$tmp/$v.$n.conf"
}
memif="net_memif0,socket=$tmp/run/memif.sock,id=0,rsize=9,bsize=9216"
conf copies 0 "port = $memif,role=server" "tx_ref_min = off"
conf copies 1 "port = $memif,role=client" "tx_ref_min = off"
conf by-ref 0 "port = $memif,role=server"
conf by-ref 1 "port = $memif,role=client"
conf zero-copy 0 "port = $memif,role=server"
conf zero-copy 1 "port = $memif,role=client,zero-copy=yes" "hugepages = yes" \
	"eal = --single-file-segments"

for i in $(seq 1 "$rep"); do
	for v in $variants; do
		echo "== run $i: $v"
		"$rdma" --config0 "$tmp/$v.0.conf" --config1 "$tmp/$v.1.conf" \
			--mode "$v" --only bw --ops write,read --qps 1 \
			--sizes 4096,65536 --seconds "$secs" --repeat 1 > "$tmp/out.txt" 2>&1 ||
			echo "onecopy: $v run $i failed"
		grep -v '^{' "$tmp/out.txt"
		grep '^{' "$tmp/out.txt" >> "$out"
	done
done
