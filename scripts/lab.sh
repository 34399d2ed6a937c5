#!/bin/sh
# Run one teaching lab (docs/labs/): two sroce nodes on the default memif
# link (no NIC, no setup), node 1's traffic captured, fault rules and the
# MTU as the lab wants them; then the capture as text and as a ladder
# diagram (SVG and PNG), and both nodes' counters.
#   scripts/lab.sh NAME        (from the repository root; builds if needed)
#   scripts/lab.sh NAME --trace   the same, and node 1's QP followed live by
#                              sroce-stat --trace (trace.txt)
#   scripts/lab.sh list        the labs
# Files go to $SROCE_LAB_OUT/NAME (default /tmp/sroce-labs/NAME):
#   capture.pcap  capture.txt (sroce-pcap)  ladder.svg  ladder.png
#   run.log (sroce-lab: each operation and the counters)  node0.conf node1.conf
#   trace.txt (with --trace: sroce-stat --trace, node 1's QP event by event)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
name=${1:-list}
trace=""
[ "${2:-}" = --trace ] && trace=1
build=${SROCE_BUILD:-build}

labs="segmentation ack-coalescing lost-packet rnr read-vs-write atomics
      memory-keys congestion"

# lab NAME: set mtu, fault0/fault1 (rules, one per line), ops, args, ladder
# (extra sroce-pcap options) for a lab; 1 when there is no such lab.
lab() {
	mtu=1500 fault0="" fault1="" args="" ladder=""
	case $1 in
	segmentation)   # one WRITE cut into path-MTU packets, one SEND whole
		ops="write:10000 send:200" ;;
	ack-coalescing) # 16 WRITEs at once, then one WRITE of 128 packets
		ops="write:64x16 write:131072" ;;
	lost-packet)    # PSN 105 of a 16-packet WRITE lost once on the wire
		fault1="tx drop psn=105 times=1"
		ops="write:16384" ;;
	rnr)            # node 0 posts its receives 20 ms late, asks for 5 ms waits
		args="--rnr-ms 20 --rnr-timer 18"
		ops="send:100" ;;
	read-vs-write)  # the same 4 KiB each way
		ops="write:4096 read:4096" ;;
	atomics)        # the first ATOMIC ACKNOWLEDGE lost: the request again
		fault0="tx drop opcode=18 times=1"
		ops="fadd:5 fadd:5 word" ;;
	memory-keys)    # a fast-registered MR, written, invalidated, written
		ops="fwrite:4096 sendinv fwrite:64!" ;;
	congestion)     # every 4th request marked CE, as a congested switch would
		fault1="tx ce every=4"
		ops="write:65536x4" ;;
	*)
		return 1 ;;
	esac
}

if [ "$name" = list ] || ! lab "$name"; then
	[ "$name" = list ] || echo "lab.sh: no lab '$name'" >&2
	echo "labs (docs/labs/README.md):" $labs
	[ "$name" = list ]
	exit
fi

if [ -z "${SROCE_LAB_NO_BUILD:-}" ]; then
	if [ ! -f "$build/build.ninja" ]; then
		sh scripts/deps.sh
		meson setup "$build"
	fi
	ninja -C "$build" >/dev/null
fi

out=${SROCE_LAB_OUT:-/tmp/sroce-labs}/$name
mkdir -p "$out"
rm -f "$out/capture.pcap" "$out/ladder.svg" "$out/ladder.png" "$out/trace.txt"
for n in 0 1; do
	{
		echo "# lab $name, node $n (pmd/CONFIG.md)"
		echo "port = default"
		echo "mtu = $mtu"
		[ $n = 1 ] && echo "capture = $out/capture.pcap"
		[ $n = 0 ] && f=$fault0 || f=$fault1
		[ -n "$f" ] && echo "$f" | sed 's/^/fault = /'
		true
	} > "$out/node$n.conf"
done

echo "== lab $name: sroce-lab $args $ops"
for n in 0 1; do
	grep '^fault' "$out/node$n.conf" | sed "s/^/   node $n: /" || true
done
# shellcheck disable=SC2086 # args and ops are lists
if [ -z "$trace" ]; then
	timeout 60 "$build/examples/lab/sroce-lab" --conf0 "$out/node0.conf" \
		--conf1 "$out/node1.conf" $args $ops > "$out/run.log" 2>&1 || {
		cat "$out/run.log"
		echo "lab.sh: sroce-lab failed" >&2
		exit 1
	}
else
	# node 1 waits for the tracer, says its pid and QP; sroce-stat follows
	# the QP until the process ends
	timeout 60 "$build/examples/lab/sroce-lab" --conf0 "$out/node0.conf" \
		--conf1 "$out/node1.conf" --trace-wait 20 $args $ops \
		> "$out/run.log" 2>&1 &
	lab_pid=$!
	i=0
	until grep -q 'for sroce-stat -p' "$out/run.log" || [ $i -ge 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	# shellcheck disable=SC2046 # pid and QPN
	set -- $(sed -n 's/.*sroce-stat -p \([0-9]*\) --trace \([0-9]*\).*/\1 \2/p' \
		"$out/run.log")
	if [ $# -eq 2 ]; then
		"$build/tools/sroce-stat/sroce-stat" -p "$1" --trace "$2" \
			--timeout 40 > "$out/trace.txt" 2> "$out/trace.err" ||
			cat "$out/trace.err" >&2
	fi
	wait $lab_pid || {
		cat "$out/run.log"
		echo "lab.sh: sroce-lab failed" >&2
		exit 1
	}
fi

echo "== the capture (node 1's view; sroce-pcap $out/capture.pcap)"
"$build/tools/sroce-pcap/sroce-pcap" "$out/capture.pcap" > "$out/capture.txt" || true
lines=$(wc -l < "$out/capture.txt")
head -n 60 "$out/capture.txt" | cut -c1-160
[ "$lines" -le 60 ] || echo "... ($lines lines in all: $out/capture.txt)"
echo "== ladder diagram"
# shellcheck disable=SC2086
for ext in svg png; do
	"$build/tools/sroce-pcap/sroce-pcap" --summary --ladder "$out/ladder.$ext" \
		$ladder "$out/capture.pcap" 2>&1 | grep -E '^ladder|sroce-pcap:' || true
done
if [ -n "$trace" ]; then
	echo "== the live trace of node 1's QP (sroce-stat --trace; docs/counters.md)"
	head -n 60 "$out/trace.txt"
	lines=$(wc -l < "$out/trace.txt")
	[ "$lines" -le 60 ] || echo "... ($lines lines in all: $out/trace.txt)"
fi
echo "== what the nodes did, and their counters (docs/counters.md)"
cat "$out/run.log"
echo "== files in $out; open ladder.svg (or ladder.png) in a browser"
