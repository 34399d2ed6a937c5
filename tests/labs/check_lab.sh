#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# check_lab.sh NAME LAB_SH BUILD_DIR cairo|nocairo
#
# Runs a teaching lab exactly as docs/labs/NAME.md tells the student
# (scripts/lab.sh NAME), then checks what the lab says the student will
# see: in the capture as sroce-pcap prints it (capture.txt), in the
# ladder's text (the SVG's <desc>), and in the counters (run.log).
set -u
name=$1 lab_sh=$2 build=$3 cairo=$4
out=$(mktemp -d /tmp/sroce-lab-test.XXXXXX)
trap 'rm -rf "$out"' EXIT INT TERM
fail=0

SROCE_BUILD=$build SROCE_LAB_NO_BUILD=1 SROCE_LAB_OUT=$out \
	sh "$lab_sh" "$name" > "$out/lab.txt" 2>&1 || {
	cat "$out/lab.txt"
	echo "FAIL: scripts/lab.sh $name exited non-zero"
	exit 1
}
dir=$out/$name
cap=$dir/capture.txt log=$dir/run.log

bad() { echo "FAIL: $*"; fail=1; }
# has FILE TEXT...: every TEXT is a substring of some line of FILE
has() {
	f=$1
	shift
	for t in "$@"; do
		grep -qF -- "$t" "$f" || bad "$(basename "$f"): no '$t'"
	done
}
# count FILE REGEX: packet lines matching (not the summary's)
count() { grep -E -- "$2" "$1" | grep -c " udp "; }
# want_count FILE REGEX N
want_count() {
	n=$(count "$1" "$2")
	[ "$n" -eq "$3" ] || bad "$(basename "$1"): $n lines match '$2', want $3"
}
# counter NODE NAME: a transport counter in run.log (0 when absent)
counter() {
	v=$(awk -v n="node $1:" -v c="xport_$2" '$1 " " $2 == n && $3 == c { print $4 }' "$log")
	echo "${v:-0}"
}
# want_counter NODE NAME OP N   (OP: -eq, -ge)
want_counter() {
	v=$(counter "$1" "$2")
	[ "$v" "$3" "$4" ] || bad "node $1 xport_$2 = $v, want $3 $4"
}
# ladder TEXT...: the drawing names them (cairo builds)
ladder() {
	[ "$cairo" = cairo ] || return 0
	python3 - "$dir/ladder.svg" "$dir/ladder.png" "$@" <<'EOF' || bad "ladder"
import sys, xml.etree.ElementTree as ET
svg, png, want = sys.argv[1], sys.argv[2], sys.argv[3:]
desc = ET.parse(svg).getroot().find('{http://www.w3.org/2000/svg}desc').text
missing = [w for w in want if w not in desc]
with open(png, 'rb') as f:
    sig = f.read(8)
if missing or sig != b'\x89PNG\r\n\x1a\n':
    print('ladder: missing', missing, 'png signature', sig)
    sys.exit(1)
EOF
}

has "$out/lab.txt" "== lab $name" "== ladder diagram" "== what the nodes did"
has "$log" "node 1: QP" "path MTU 1024, first PSN 100"
case $name in
segmentation)
	has "$cap" "RC WRITE_FIRST qp=0x000002 psn=100 " "len=10000]" \
		"RC WRITE_LAST qp=0x000002 psn=109 A " "payload=784 " \
		"RC SEND_ONLY qp=0x000002 psn=110 A " "payload=200 "
	want_count "$cap" "WRITE_MIDDLE.*payload=1024 " 8
	want_count "$cap" "RETH" 1
	want_count "$cap" "RC ACKNOWLEDGE" 2
	ladder "WRITE_FIRST psn=100 RETH" "WRITE_LAST psn=109 A" ;;
ack-coalescing)
	want_count "$cap" "WRITE_ONLY .* A " 16
	want_count "$cap" "WRITE_MIDDLE .* A " 1
	has "$cap" "WRITE_MIDDLE qp=0x000002 psn=179 A " \
		"WRITE_LAST qp=0x000002 psn=243 A " \
		"ACKNOWLEDGE qp=0x000002 psn=243 pkey=0xffff ecn=ECT0 AETH[ACK credits=31 msn=17]"
	# every AckReq is answered: by its own ACK or by a later one
	s=$(counter 0 ack_sent) c=$(counter 0 ack_coalesced)
	[ $((s + c)) -eq 18 ] || bad "ack_sent $s + ack_coalesced $c, want 18"
	[ "$(count "$cap" "RC ACKNOWLEDGE")" -eq "$s" ] || bad "ACKs in capture != ack_sent"
	ladder "ACKNOWLEDGE psn=243 AETH ACK credits=31 msn=17" ;;
lost-packet)
	has "$cap" "WRITE_MIDDLE qp=0x000002 psn=104 " "WRITE_LAST qp=0x000002 psn=115 A " \
		"ACKNOWLEDGE qp=0x000002 psn=105 pkey=0xffff ecn=ECT0 AETH[NAK PSN sequence error msn=0]" \
		"ACKNOWLEDGE qp=0x000002 psn=115 pkey=0xffff ecn=ECT0 AETH[ACK credits=31 msn=1]"
	# 105 once (the resend), 106..115 twice
	want_count "$cap" "WRITE_MIDDLE qp=0x000002 psn=105 " 1
	want_count "$cap" "WRITE_MIDDLE qp=0x000002 psn=106 " 2
	want_count "$cap" "WRITE_LAST " 2
	want_counter 1 seq_nak_rcvd -eq 1
	want_counter 1 retry -eq 1
	want_counter 0 seq_nak_sent -eq 1
	ladder "[NAK]" "WRITE_MIDDLE psn=105 " "[retransmission]" ;;
rnr)
	has "$cap" "AETH[RNR-NAK timer=18 msn=0]" "AETH[ACK credits=31 msn=1]"
	has "$log" "1 x SEND               success" "receives posted 20 ms after"
	want_counter 1 rnr_nak_rcvd -ge 1
	want_counter 1 rnr_retry -ge 1
	[ "$(counter 1 rnr_nak_rcvd)" -eq "$(counter 0 rnr_nak_sent)" ] ||
		bad "RNR NAKs sent and received differ"
	want_count "$cap" "SEND_ONLY" $(($(counter 1 rnr_retry) + 1))
	ladder "[RNR NAK]" "RNR-NAK timer=18" ;;
read-vs-write)
	has "$cap" "WRITE_FIRST qp=0x000002 psn=100 " "WRITE_LAST qp=0x000002 psn=103 A " \
		"ACKNOWLEDGE qp=0x000002 psn=103 " \
		"READ_REQUEST qp=0x000002 psn=104 A " "len=4096]" \
		"READ_RESPONSE_FIRST qp=0x000002 psn=104 pkey=0xffff ecn=ECT0 AETH[ACK" \
		"READ_RESPONSE_MIDDLE qp=0x000002 psn=105 pkey=0xffff ecn=ECT0 payload=1024" \
		"READ_RESPONSE_LAST qp=0x000002 psn=107 pkey=0xffff ecn=ECT0 AETH[ACK"
	want_count "$cap" "READ_REQUEST" 1
	want_count "$cap" "RC ACKNOWLEDGE" 1
	ladder "READ_REQUEST psn=104 A RETH" ;;
atomics)
	want_count "$cap" "FETCH_ADD qp=0x000002 psn=100 A " 2
	want_count "$cap" "ATOMIC_ACKNOWLEDGE qp=0x000002 psn=100 .*orig=0x3e8" 1
	has "$cap" "ATOMIC_ACKNOWLEDGE qp=0x000002 psn=101 " "orig=0x3ed"
	has "$log" "fadd returned 1000" "fadd returned 1005" "word returned 1010" \
		"node 0: atomic word is 1010"
	want_counter 1 timeout -eq 1
	want_counter 0 req_dup -eq 1
	ladder "FETCH_ADD psn=100 A AtomicETH" "[retransmission]" ;;
memory-keys)
	has "$log" "fast-registered MR of 64 KiB, rkey" "that invalidated rkey" \
		"1 x RDMA_WRITE         remote access error (as it must)"
	[ "$(grep -c "1 x RDMA_WRITE         success" "$log")" -eq 1 ] ||
		bad "want one successful WRITE"
	has "$cap" "SEND_ONLY_WITH_INVALIDATE qp=0x000002 psn=104 A " "IETH[rkey=" \
		"AETH[NAK remote access error"
	want_counter 1 err_nak_rcvd -eq 1
	want_counter 0 err_nak_sent -eq 1
	ladder "AETH NAK remote access error" "[NAK]" ;;
congestion)
	want_count "$cap" "ecn=CE" 64
	has "$cap" "BECN CNP[reserved=zero]"
	want_counter 0 ce_rcvd -eq 64
	want_counter 0 cnp_sent -ge 1
	[ "$(counter 0 cnp_sent)" -eq "$(counter 1 cnp_rcvd)" ] ||
		bad "CNPs sent and received differ"
	want_count "$cap" "CNP qp=" "$(counter 0 cnp_sent)"
	ladder "[congestion (CNP, CE)]" "ecn=CE" ;;
*)
	bad "no checks for lab '$name'" ;;
esac
if [ $fail -ne 0 ]; then
	cat "$out/lab.txt"
	echo "0 passed, 1 failed"
	exit 1
fi
echo "lab $name: as the lab says; 1 passed, 0 failed"
