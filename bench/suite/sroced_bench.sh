#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# sroced_bench.sh BUILD_DIR OUT_DIR [RUNS] [LINK] — the shared device
# against the embedded one on the same link (docs/sroced.md).  Two "hosts"
# on a veth pair, made and deleted here; per run (RUNS, default 3, the two
# modes alternating so both sample the same stretch of a shared machine),
# Debian's perftest on the drop-in, server on host A, client on host B:
#   embedded  each process its own device on its veth end
#   sroced    a daemon per host on that veth end, the processes its clients
# LINK says what a device makes of the veth end:
#   af_packet (default)  both ends in one namespace, net_af_packet with
#                        addresses of sroce's own (10.9.0.1, .2); TCP on
#                        127.0.0.1; raw in OUT_DIR/sroced/
#   hostnic              each end in its host's namespace, the kernel's
#                        address on it, the host-NIC port (port = iface:,
#                        AF_XDP: docs/host-nic.md); raw in
#                        OUT_DIR/sroced-hostnic/
# Figures: ib_write_bw 64 B (msg/s) and 64 KiB (Gbit/s), ib_write_lat
# 64 B (typical us); then through the daemons, the aggregate ib_write_bw
# 64 KiB of 1, 2, 4 and 8 client pairs at once.  Before each run, the
# probe sroce-bench-c2c --wake: what waking a sleeping thread on the other
# CPU costs here, the hop a frame pays through an idle daemon (the
# figures follow it: docs/performance.md).  Bandwidths are measured
# within perftest's margins (-f): the -D seconds less a margin at each end.
# perftest's own margin is D/4 in whole seconds, none below -D 4, and then
# a pair's window opens at its own start: of 8 pairs, the early ones'
# windows took in the later ones' start-ups and the first ones' end of
# test (perftest spins ~0.2 s on gettimeofday() to time the CPU before its
# report), which is not traffic (docs/performance.md).  Raw outputs in
# OUT_DIR/sroced/, min / median / max as a Markdown table on stdout (and
# OUT_DIR/sroced/table.md).  Figures only: nothing is asserted.
set -u
build=$1
runs=${3:-3}
link=${4:-af_packet}
case $link in
af_packet) out=$2/sroced ;;
hostnic) out=$2/sroced-hostnic ;;
*) echo "sroced_bench.sh: LINK is af_packet or hostnic, not '$link'"; exit 2 ;;
esac
shim=$build/verbs-shim
tag=$(( $$ % 10000 ))
ns=sroce-sb-$tag
tmp=$(mktemp -d /tmp/sroce-sroced-bench.XXXXXX)
dpids=""
cleanup() {
	for p in $dpids; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	for n in $ns ${ns}a ${ns}b; do ip netns del $n 2>/dev/null; done
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
command -v ib_write_bw >/dev/null || { echo "SKIP: no perftest"; exit 77; }
. "$(dirname "$0")/../../scripts/veth.sh"
rm -rf "$out"
mkdir -p "$out"
if [ $link = af_packet ]; then
	ip netns add $ns || exit 1
	ip -n $ns link set lo up
	sr_veth_pair $ns sa sb || exit 1
	NA="ip netns exec $ns" NB=$NA srv=127.0.0.1
else
	for h in a b; do
		ip netns add $ns$h || exit 1
		ip -n $ns$h link set lo up
	done
	ip link add sa netns ${ns}a type veth peer name sb netns ${ns}b || exit 1
	ip -n ${ns}a addr add 10.9.0.1/24 dev sa
	ip -n ${ns}b addr add 10.9.0.2/24 dev sb
	ip -n ${ns}a link set sa up
	ip -n ${ns}b link set sb up
	NA="ip netns exec ${ns}a" NB="ip netns exec ${ns}b" srv=10.9.0.1
fi
for h in a b; do
	ifc=s$h
	ip=10.9.0.1
	[ $h = b ] && ip=10.9.0.2
	if [ $link = af_packet ]; then
		printf '%s\n' "port = net_af_packet0,iface=$ifc" \
			"mac = 02:00:0a:09:00:${ip##*.}" "ipv4 = $ip/24" \
			"run_dir = $tmp/run-$h" "stats_dir = $tmp" > "$tmp/$h.conf"
	else
		printf '%s\n' "port = iface:$ifc" "iface_mode = af_xdp" \
			"run_dir = $tmp/run-$h" "stats_dir = $tmp" > "$tmp/$h.conf"
	fi
done

daemons_up() {
	for h in a b; do
		# no function in between: $! must be the daemon itself
		nx=$NA
		[ $h = b ] && nx=$NB
		$nx "$build/pmd/sroced" --foreground --config "$tmp/$h.conf" \
			--socket "$tmp/$h.sock" --run-dir "$tmp/$h.run" \
			> "$tmp/$h.log" 2>&1 &
		dpids="$dpids $!"
	done
	for _i in $(seq 100); do
		grep -q serving "$tmp/a.log" 2>/dev/null &&
			grep -q serving "$tmp/b.log" 2>/dev/null && return 0
		sleep 0.1
	done
	echo "sroced did not start:"; tail -n 3 "$tmp/a.log" "$tmp/b.log"; exit 1
}
daemons_down() {
	for p in $dpids; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	dpids=""
}

# env_of MODE HOST: how a process of that host finds its device
env_of() {
	if [ "$1" = sroced ]; then
		echo "SROCE_DAEMON=$tmp/$2.sock"
	else
		echo "SROCE_DAEMON=off SROCE_CONFIG=$tmp/$2.conf"
	fi
}

port=19000
# pt MODE PORT FILE PROGRAM ARGS...: server on A, client on B
pt() {
	mode=$1 pport=$2 f=$3
	shift 3
	$NA env $(env_of "$mode" a) LD_LIBRARY_PATH=$shim timeout 60 "$@" -x 1 \
		-p $pport > "$f.server" 2>&1 &
	s=$!
	for _i in $(seq 200); do
		$NA ss -ltnH "sport = :$pport" | grep -q . && break
		sleep 0.05
	done
	$NB env $(env_of "$mode" b) LD_LIBRARY_PATH=$shim timeout 60 "$@" -x 1 \
		-p $pport $srv > "$f" 2>&1 || true
	wait $s
}

for r in $(seq "$runs"); do
	for mode in embedded sroced; do
		printf '[%s] %s run %s (load %s)\n' "$(date +%H:%M:%S)" $mode $r \
			"$(cut -d' ' -f1 /proc/loadavg)"
		[ $mode = embedded ] &&
			"$build/bench/link/sroce-bench-c2c" --wake --trips 5000 \
				> "$out/wake.$r.txt" 2>&1
		[ $mode = sroced ] && daemons_up
		port=$((port + 20))
		pt $mode $((port + 1)) "$out/bw64-$mode.$r.txt" ib_write_bw -s 64 -D 4 -f 1
		pt $mode $((port + 2)) "$out/bw64k-$mode.$r.txt" ib_write_bw -s 65536 -D 4 -f 1 --report_gbits
		pt $mode $((port + 3)) "$out/lat-$mode.$r.txt" ib_write_lat -s 64 -n 5000
		if [ $mode = sroced ]; then
			for n in 1 2 4 8; do
				i=0 agg=""
				while [ $i -lt $n ]; do
					pt sroced $((port + 4 + i)) "$out/agg$n-$i.$r.txt" \
						ib_write_bw -s 65536 -D 7 -f 2 --report_gbits &
					agg="$agg $!"
					i=$((i + 1))
				done
				# these pairs only: a bare wait would wait for the daemons
				for p in $agg; do wait "$p"; done
			done
			daemons_down
		fi
	done
done

python3 - "$out" "$runs" "$link" <<'PY' | tee "$out/table.md"
import re, statistics, sys
out, runs, link = sys.argv[1], int(sys.argv[2]), sys.argv[3]
print('Link: a veth pair, %s.' % ('net_af_packet on each end, one namespace' if link == 'af_packet'
      else 'each end its host\'s NIC (port = iface:, AF_XDP), two namespaces'))
print()

def perftest(f, col):
    try:
        with open(f, errors='replace') as fh:
            for line in fh:
                t = line.split()
                if len(t) > col and re.fullmatch(r'\d+', t[0]) and \
                        re.fullmatch(r'\d+', t[1]):
                    return float(t[col])
    except OSError:
        pass
    return None

def spread(vals, fmt):
    v = [x for x in vals if x is not None]
    if not v:
        return 'n/a'
    return '%s / %s / %s' % (fmt % min(v), fmt % statistics.median(v), fmt % max(v))

print('| figure (min / median / max of %d runs) | embedded | through sroced | sroced / embedded (medians) |' % runs)
print('|---|---|---|---|')
rows = [('WRITE 64 B, msg/s', 'bw64', 4, 1e6, '%.0f'),
        ('WRITE 64 KiB, Gbit/s', 'bw64k', 3, 1, '%.2f'),
        ('WRITE 64 B latency, typical us', 'lat', 4, 1, '%.2f')]
for name, key, col, mult, fmt in rows:
    e = [perftest('%s/%s-embedded.%d.txt' % (out, key, r), col) for r in range(1, runs + 1)]
    s = [perftest('%s/%s-sroced.%d.txt' % (out, key, r), col) for r in range(1, runs + 1)]
    e = [x * mult if x is not None else None for x in e]
    s = [x * mult if x is not None else None for x in s]
    ev = [x for x in e if x is not None]
    sv = [x for x in s if x is not None]
    ratio = '%.0f %%' % (100 * statistics.median(sv) / statistics.median(ev)) if ev and sv else 'n/a'
    print('| %s | %s | %s | %s |' % (name, spread(e, fmt), spread(s, fmt), ratio))
print()
print('| client pairs through sroced at once | aggregate WRITE 64 KiB, Gbit/s (min / median / max) |')
print('|---|---|')
for n in (1, 2, 4, 8):
    agg = []
    for r in range(1, runs + 1):
        v = [perftest('%s/agg%d-%d.%d.txt' % (out, n, i, r), 3) for i in range(n)]
        agg.append(sum(x for x in v if x is not None) if any(x is not None for x in v) else None)
    print('| %d | %s |' % (n, spread(agg, '%.2f')))

def wake(f):
    try:
        with open(f) as fh:
            for line in fh:
                m = re.search(r'"bench":"wake".*"one_way_ns":([0-9.]+)', line)
                if m:
                    return float(m.group(1)) / 1000
    except OSError:
        pass
    return None

print()
print('Waking a sleeping thread on the other CPU (sroce-bench-c2c --wake, '
      'before each run), one way, us: %s' %
      spread([wake('%s/wake.%d.txt' % (out, r)) for r in range(1, runs + 1)], '%.1f'))
PY
