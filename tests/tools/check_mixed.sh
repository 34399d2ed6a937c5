#!/bin/sh
# sroce-pcap on a crafted capture mixing every case it must handle, as pcap
# and (when editcap is installed) as pcapng.  Expected: exit status 1 (one
# bad ICRC, one malformed frame) and the lines and counts below.
set -u
mkpcap=$1 tool=$2 dir=${3:-}
if [ -z "$dir" ]; then
	dir=$(mktemp -d /tmp/sroce-pcap-mixed.XXXXXX)
	trap 'rm -rf "$dir"' EXIT INT TERM
fi
fail=0
"$mkpcap" "$dir/mixed.pcap" || { echo "mkpcap failed"; exit 1; }
files="$dir/mixed.pcap"
if command -v editcap >/dev/null 2>&1; then
	editcap -F pcapng "$dir/mixed.pcap" "$dir/mixed.pcapng" && files="$files $dir/mixed.pcapng"
fi
for f in $files; do
	"$tool" "$f" >"$dir/out.txt" 2>&1
	rc=$?
	[ $rc -eq 1 ] || { echo "FAIL $f: exit $rc, want 1"; fail=1; }
	for want in \
		'RC SEND_ONLY qp=0x000012 psn=100 A pkey=0xffff payload=5 pad=3 icrc=ok' \
		'fe80::1 > fe80::2 udp 49153>4791 RC WRITE_ONLY_WITH_IMMEDIATE' \
		'vlan=100 udp 49153>4791 RC READ_REQUEST' \
		'RETH[va=0x0000000000001000 rkey=0x00001234 len=8]' \
		'AtomicETH[va=0x0000000000002000 rkey=0x00004321 swap_add=0x5 cmp=0x7]' \
		'AETH[ACK credits=31 msn=3] AtomicAckETH[orig=0x2a]' \
		'IETH[rkey=0x00000777]' \
		'FETH[sel=0 plt=0] RETH' \
		'UD SEND_ONLY_WITH_IMMEDIATE qp=0x000012 psn=100 A pkey=0xffff DETH[qkey=0x80010000 sqp=0x000001] ImmDt[0x0000cafe]' \
		'MAD[class=0x07 method=0x03 attr=0x0010 CM REQ]' \
		'CNP qp=0x000012 psn=0 pkey=0xffff BECN CNP[reserved=zero] payload=16 pad=0 icrc=ok' \
		'fe80::1 > fe80::2 vlan=100 udp 49153>4791 RC READ_RESPONSE_ONLY qp=0x000012 psn=100 A pkey=0xffff ecn=CE AETH' \
		'RC ACKNOWLEDGE qp=0x000012 psn=100 A pkey=0xffff AETH[ACK credits=31 msn=3] payload=0 pad=0 icrc=BAD' \
		'malformed RoCEv2 frame (82 bytes): BTH transport version is not 0' \
		'RoCEv2: 15 packets, ICRC ok 13, bad 1, malformed 1' \
		'non-RoCE frames: 1 ARP, 1 TCP, 1 UDP'; do
		grep -qF "$want" "$dir/out.txt" || { echo "FAIL $f: missing: $want"; fail=1; }
	done
	"$tool" --summary "$f" | grep -q 'icrc=' && { echo "FAIL: --summary printed frames"; fail=1; }
done
[ $fail -eq 0 ] && echo "1 passed, 0 failed" || { cat "$dir/out.txt"; echo "0 passed, 1 failed"; }
exit $fail
