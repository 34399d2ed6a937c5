#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# hostnic_bench.sh BUILD_DIR OUT_DIR [RUNS] — the host's own NIC (port =
# iface:NAME, docs/host-nic.md) on its two paths side by side: AF_XDP
# (iface_mode = af_xdp) and af_packet (iface_mode = af_packet, iface_nft =
# yes), on a veth pair between two network namespaces made and deleted
# here, the kernel owning the addresses (10.89.0.1 and .2) and carrying
# the out-of-band TCP.  Per path and run (RUNS, default 3, alternating the
# paths so both sample the same stretch of a shared machine):
#   raw frames   bench/link/link_bench rx in A, tx in B: frames/s, Gbit/s
#                at the receiver, 2 s per size; 64 B ping-pong median RTT
#   RDMA WRITE   Debian's perftest on the drop-in libibverbs, server in A,
#                client in B: ib_write_bw 64 B (msg/s), 4 KiB and 64 KiB
#                (Gbit/s), ib_write_lat 64 B (typical us)
# Raw outputs in OUT_DIR/hostnic/, then min / median / max of each figure
# as a Markdown table on stdout (and OUT_DIR/hostnic/table.md).  Figures
# only: nothing is asserted about speed.
set -u
build=$1
out=$2/hostnic
runs=${3:-3}
shim=$build/verbs-shim
link=$build/bench/link/link_bench
tag=$(( $$ % 10000 ))
nsa=sroce-hb-a-$tag
nsb=sroce-hb-b-$tag
ia=hba$tag
ib=hbb$tag
tmp=$(mktemp -d /tmp/sroce-hostnic-bench.XXXXXX)
spid=""
cleanup() {
	[ -n "$spid" ] && kill "$spid" 2>/dev/null
	ip netns del $nsa 2>/dev/null
	ip netns del $nsb 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

command -v ib_write_bw >/dev/null || { echo "SKIP: no perftest"; exit 77; }
rm -rf "$out"
mkdir -p "$out" "$tmp/stats"
ip netns add $nsa && ip netns add $nsb || exit 1
ip -n $nsa link set lo up
ip -n $nsb link set lo up
ip link add $ia netns $nsa type veth peer name $ib netns $nsb || exit 1
ip -n $nsa addr add 10.89.0.1/24 dev $ia
ip -n $nsb addr add 10.89.0.2/24 dev $ib
ip -n $nsa link set $ia up
ip -n $nsb link set $ib up

# conf PATH IFACE MODE
conf() {
	nft=no
	[ "$3" = af_packet ] && nft=yes
	printf '%s\n' "port = iface:$2" "iface_mode = $3" "iface_nft = $nft" \
		"run_dir = $tmp" "stats_dir = $tmp/stats" > "$1"
}

# raw FILE: link_bench rx in A, tx in B
raw() {
	SROCE_CONFIG=$tmp/a.conf ip netns exec $nsa timeout 120 "$link" rx \
		> "$tmp/rx.log" 2>&1 &
	spid=$!
	sleep 1
	SROCE_CONFIG=$tmp/b.conf ip netns exec $nsb timeout 120 "$link" tx \
		--peer 10.89.0.1 --seconds 2 --pings 5000 > "$tmp/tx.log" 2>&1
	wait $spid
	spid=""
	cat "$tmp/rx.log" "$tmp/tx.log" > "$1"
}

# pt FILE PROGRAM ARGS...: perftest server in A, client in B
pt() {
	f=$1
	shift
	port=$((18600 + tag % 1000))
	for try in 1 2; do
		SROCE_CONFIG=$tmp/a.conf LD_LIBRARY_PATH=$shim ip netns exec $nsa \
			timeout 60 "$@" -d sroce0 -x 1 -p $port > "$tmp/s.log" 2>&1 &
		spid=$!
		sleep 1
		SROCE_CONFIG=$tmp/b.conf LD_LIBRARY_PATH=$shim ip netns exec $nsb \
			timeout 60 "$@" -d sroce0 -x 1 -p $port 10.89.0.1 > "$f" 2>&1
		wait $spid
		spid=""
		grep -Eq '^ *[0-9]+ +[0-9]+ +[0-9.]+ ' "$f" && return 0
		cat "$tmp/s.log" >> "$f"
		port=$((port + 1))
	done
}

for r in $(seq "$runs"); do
	for mode in af_xdp af_packet; do
		printf '[%s] %s run %s (load %s)\n' "$(date +%H:%M:%S)" $mode $r \
			"$(cut -d' ' -f1 /proc/loadavg)"
		conf "$tmp/a.conf" $ia $mode
		conf "$tmp/b.conf" $ib $mode
		raw "$out/raw-$mode.$r.txt"
		pt "$out/write_bw-64-$mode.$r.txt" ib_write_bw -s 64 -D 2
		pt "$out/write_bw-4096-$mode.$r.txt" ib_write_bw -s 4096 -D 2 --report_gbits
		pt "$out/write_bw-65536-$mode.$r.txt" ib_write_bw -s 65536 -D 2 --report_gbits
		pt "$out/write_lat-64-$mode.$r.txt" ib_write_lat -s 64 -n 5000
	done
done

python3 - "$out" <<'EOF' | tee "$out/table.md"
import glob, os, re, statistics, sys
out = sys.argv[1]

def perftest(f, col):
    with open(f, errors='replace') as fh:
        for line in fh:
            t = line.split()
            if len(t) > col and re.fullmatch(r'\d+', t[0]) and \
                    re.fullmatch(r'\d+', t[1]):
                return float(t[col])
    return None

def raw(f, size, col):
    # link_bench: rx's table (frame, frames, Mframes/s, Gbit/s), tx's
    # ping-pong line
    with open(f, errors='replace') as fh:
        text = fh.read()
    if col == 'rtt':
        m = re.search(r'RTT min [\d.]+ us, median ([\d.]+) us', text)
        return float(m.group(1)) if m else None
    for line in text.splitlines():
        t = line.split()
        if len(t) == 4 and t[0] == str(size):
            try:
                return float(t[2]) * 1e6 if col == 'fps' else float(t[3])
            except ValueError:
                return None
    return None

rows = [
    ('raw frames 64 B, frames/s', lambda m, r: raw('%s/raw-%s.%d.txt' % (out, m, r), 64, 'fps'), '%.0f'),
    ('raw frames 1 KiB, Gbit/s', lambda m, r: raw('%s/raw-%s.%d.txt' % (out, m, r), 1024, 'gbps'), '%.2f'),
    ('raw ping-pong 64 B, median RTT us', lambda m, r: raw('%s/raw-%s.%d.txt' % (out, m, r), 64, 'rtt'), '%.2f'),
    ('WRITE 64 B, msg/s', lambda m, r: perftest('%s/write_bw-64-%s.%d.txt' % (out, m, r), 4) * 1e6, '%.0f'),
    ('WRITE 4 KiB, Gbit/s', lambda m, r: perftest('%s/write_bw-4096-%s.%d.txt' % (out, m, r), 3), '%.2f'),
    ('WRITE 64 KiB, Gbit/s', lambda m, r: perftest('%s/write_bw-65536-%s.%d.txt' % (out, m, r), 3), '%.2f'),
    ('WRITE 64 B latency, typical us', lambda m, r: perftest('%s/write_lat-64-%s.%d.txt' % (out, m, r), 4), '%.2f'),
]
runs = sorted({int(f.rsplit('.', 2)[-2]) for f in glob.glob(out + '/raw-*.txt')})
print('| figure | AF_XDP min / median / max | af_packet min / median / max |')
print('|---|---|---|')
med = {}
for name, get, fmt in rows:
    cells = []
    for mode in ('af_xdp', 'af_packet'):
        v = []
        for r in runs:
            try:
                x = get(mode, r)
            except (OSError, TypeError):
                x = None
            if x is not None:
                v.append(x)
        if v:
            med[(name, mode)] = statistics.median(v)
            cells.append(' / '.join(fmt % x for x in
                                    (min(v), statistics.median(v), max(v))) +
                         ('' if len(v) == len(runs) else ' (%d of %d runs)' % (len(v), len(runs))))
        else:
            cells.append('no figure')
    print('| %s | %s | %s |' % (name, cells[0], cells[1]))
k = 'WRITE 64 B, msg/s'
if (k, 'af_xdp') in med and (k, 'af_packet') in med and med[(k, 'af_packet')]:
    print('\nWRITE 64 B message rate, AF_XDP / af_packet (medians): %.2fx' %
          (med[(k, 'af_xdp')] / med[(k, 'af_packet')]))
EOF
