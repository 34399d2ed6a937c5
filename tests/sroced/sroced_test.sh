#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# sroced_test.sh SCENARIO BUILD_DIR — the shared device (docs/sroced.md).
#
# Two "hosts" in one network namespace of the test's own: a veth pair
# sa <-> sb, sroced A on sa (10.9.0.1) and sroced B on sb (10.9.0.2), each
# with its control socket and run folder in a private folder (never the
# default /run/sroce).  Clients are Debian's programs on the drop-in
# libibverbs (LD_LIBRARY_PATH), choosing a daemon with SROCE_DAEMON=SOCKET;
# TCP for their exchanges on 127.0.0.1 of the namespace.
#   loopback     two processes through one daemon (rc, ud, srq pingpong
#                with data checks; ib_send_bw -c UC 64 KiB, none dropped
#                for want of room): the device's own address, no NIC;
#                the daemon makes /dev/infiniband/sroce0 (UCX needs it);
#                bad --idle-spin-us / --idle-nap-us values are refused
#   two_hosts    8 client processes per host at once: ib_write_bw,
#                ib_read_bw, ib_send_bw, rc/uc/ud pingpong with -c
#   kill_client  kill -9 of a client mid-transfer: its peer gets an error
#                completion, another pair and both daemons carry on
#   stop_client  a UD receiver stops (SIGSTOP) while the other host sends
#                to it: what its daemon holds for it waits 20 ms, then
#                frames to it drop as they come, and another pair runs
#   quarantine   a dead client's QPN block is not handed out until its
#                quarantine ends, then it is (--qpn-blocks 2)
#   kill_daemon  a client under a storm of signals connects 17 QP pairs
#                (its calls to the daemon go on through them); kill -9 of
#                the daemon: the client sees DEVICE_FATAL and flushed
#                receives; a new daemon serves new clients
#   forge        a client writes forged frames into its channel (and
#                forged MADs to QP1): dropped and counted, the victim QP
#                untouched
#   ctl_fuzz     hostile control messages; the daemon serves on
#   demo         the two-node demo (examples/two_node) as clients
#   rdmacm       RDMA-CM through the daemons' QP1: rping (data verified)
#                between two processes of one daemon, then between the
#                hosts both ways at once; a second listener on a port is
#                refused; a REQ for a port nobody listens on is REJected
#                (after --cm-hold-ms); a REQ sent a second before its
#                server listens is held for it and connects
#   dead_client  kill -9 of an rping client, through one daemon and from
#                the other host: its daemon sends the DREQ the client
#                cannot (as the kernel's CM does for a process that
#                exits), and the rping server sees DISCONNECTED
#   vlan         both daemons' ports on VLAN 7 (priority 3): rc pingpong,
#                ib_write_bw and rping (QP1) between the hosts; every
#                RoCEv2 frame on the wire tagged, none to the clients
#   mcast        UD multicast (Debian's mckey, rdma_join_multicast): two
#                receivers on host A (one device, two processes) and one
#                on host B join a group; a sender on A sends 30 datagrams:
#                each receiver gets all of them (A's daemon switches them
#                to its member clients and out of its port, B's to its
#                member); A's port reported the group (IGMPv2) once and
#                left it when the last member went
#   hostnic      each host its own namespace whose kernel owns the veth
#                end's address (10.9.1.1, .2), each daemon on its host's
#                NIC (port = iface:, AF_XDP): between the hosts
#                ib_write_bw, ib_send_bw, rc and ud pingpong and rping,
#                srq pingpong through one daemon, all at once while the
#                kernels ping each other over the same veth; 4 MiB
#                READs (each one's responses a burst); then qperf
#                -cm1 (rc_bw, rc_lat, rc_rdma_write_lat: a new server
#                process per test, told its port before it listens)
#   nd2          an ND2 program (tests/nd2/nd2_cm: IND2Connector and
#                IND2Listener over the CM, no librdmacm) through the
#                daemons' QP1: with Debian's rdma_client through one
#                daemon, with another nd2_cm between the hosts
set -u
scen=$1
build=$2
tmp=$(mktemp -d /tmp/sroce-sroced.XXXXXX)
. "$(dirname "$0")/../harness.sh"

ns=srd$$
ip netns add "$ns" || fail "ip netns add"
ip -n "$ns" link set lo up
sr_veth_pair "$ns" sa sb || fail "veth"
export LD_LIBRARY_PATH=$build/verbs-shim
unset SROCE_CONFIG SROCE_NODE SROCE_DAEMON_SOCKET
sroced=$build/pmd/sroced
N="ip netns exec $ns"

# Where host NAME lives: its namespace (both in $ns, unless a scenario
# gives each its own: hns_NAME) and the address its TCP is reached at
# (127.0.0.1 in a shared namespace, else hip_NAME).
host_ns() { eval "echo \${hns_$1:-$ns}"; }
host_ip() { eval "echo \${hip_$1:-127.0.0.1}"; }

# daemon NAME IFACE IP [OPTIONS...]: start sroced NAME, wait until it
# serves.  Its port is net_af_packet on IFACE with the address IP, or,
# with HOSTNIC set, IFACE as the host's NIC (IP is then the kernel's).
daemon() {
	name=$1 ifc=$2 ip=$3
	shift 3
	if [ -n "${HOSTNIC:-}" ]; then
		conf "$name" "port = iface:$ifc" "iface_mode = $HOSTNIC" \
			"run_dir = $tmp/$name.lock" "stats_dir = $tmp" \
			${DAEMON_CONF:-}
	else
		conf "$name" "port = net_af_packet0,iface=$ifc,framecnt=4096" \
			"mac = 02:00:0a:09:00:${ip##*.}" "ipv4 = $ip/24" \
			"stats_dir = $tmp" ${DAEMON_CONF:-}
	fi
	_before=$(grep -c "serving" "$tmp/$name.log" 2>/dev/null)
	ip netns exec "$(host_ns "$name")" env -u LD_LIBRARY_PATH "$sroced" --foreground --verbose --config "$tmp/$name.conf" \
		--socket "$tmp/$name.sock" --run-dir "$tmp/$name.run" "$@" \
		>> "$tmp/$name.log" 2>&1 &
	eval "dpid_$name=$!"
	pids="$pids $!"
	for _i in $(seq 100); do
		[ "$(grep -c "serving" "$tmp/$name.log")" -gt "${_before:-0}" ] &&
			return 0
		sleep 0.1
	done
	fail "sroced $name did not start"
}

# on NAME CMD...: run a client of daemon NAME
on() {
	name=$1
	shift
	ip netns exec "$(host_ns "$name")" env SROCE_DAEMON="$tmp/$name.sock" "$@"
}

port=18600
# pair KIND SRV_DAEMON CLI_DAEMON SERVER_IP LOG PROG ARGS...: server and
# client in the background; the caller waits for the pids in $pair_pids
pair_pids=""
pair() {
	kind=$1 sd=$2 cd=$3 log=$4 prog=$5
	shift 5
	port=$((port + 1))
	# no function in between: $! is timeout, which passes a kill on
	ip netns exec "$(host_ns "$sd")" env SROCE_DAEMON="$tmp/$sd.sock" timeout 120 "$prog" "$@" -p "$port" \
		> "$tmp/$log.server.log" 2>&1 &
	pair_pids="$pair_pids $!"
	# the client connects once: wait until the server listens
	for _i in $(seq 300); do
		ip netns exec "$(host_ns "$sd")" ss -ltnH "sport = :$port" | grep -q . && break
		sleep 0.1
	done
	ip netns exec "$(host_ns "$cd")" env SROCE_DAEMON="$tmp/$cd.sock" timeout 120 "$prog" "$@" -p "$port" "$(host_ip "$sd")" \
		> "$tmp/$log.client.log" 2>&1 &
	pair_pids="$pair_pids $!"
	pids="$pids $pair_pids"
}

# wait_pairs: wait for every pair's programs.  One still running after
# 100 s (its timeout kills it at 120) is shown first, for the log: its
# command line, its own device's counters and QPs (sroce-stat -q: state,
# PSNs, what is outstanding), and its threads' stacks when gdb is here.
wait_pairs() {
	rc=0
	_t=0
	while [ $_t -lt 100 ]; do
		_alive=""
		for p in $pair_pids; do
			kill -0 "$p" 2>/dev/null && _alive="$_alive $p"
		done
		[ -z "$_alive" ] && break
		sleep 1
		_t=$((_t + 1))
	done
	for p in $_alive; do
		for c in $(pgrep -P "$p"); do
			echo "--- still running after $_t s: pid $c, $(tr '\0' ' ' < "/proc/$c/cmdline")"
			"$build/tools/sroce-stat/sroce-stat" -p "$c" -q 2>&1 | head -n 60
			command -v gdb >/dev/null &&
				gdb -p "$c" -batch -ex "thread apply all bt" 2>/dev/null |
				grep "^#\|^Thread"
		done
	done
	for p in $pair_pids; do
		wait "$p" || rc=1
	done
	pair_pids=""
	return $rc
}

# rping_pair NAME SRV_DAEMON SRV_IP CLI_DAEMON PORT: rping -C 10 with data
# checks, server and client in the background (waited for with the pairs)
rping_pair() {
	on "$2" timeout 60 rping -s -a "$3" -p "$5" -V -C 10 > "$tmp/$1.server.log" 2>&1 &
	pair_pids="$pair_pids $!"
	sleep 1
	on "$4" timeout 60 rping -c -a "$3" -p "$5" -v -V -C 10 > "$tmp/$1.client.log" 2>&1 &
	pair_pids="$pair_pids $!"
	pids="$pids $pair_pids"
}

# rping_ok NAME: its client got every ping
rping_ok() {
	grep -q "rdma-ping-9:" "$tmp/$1.client.log" ||
		{ cat "$tmp/$1.server.log" "$tmp/$1.client.log"; fail "rping $1"; }
}

# passed LOG KIND: the client's log shows a good run
passed() {
	case $2 in
	pingpong) grep -q "iters in" "$tmp/$1.client.log" &&
		  grep -q "iters in" "$tmp/$1.server.log" ;;
	perftest) grep -Eq '^ *[0-9]+ +[0-9]+ ' "$tmp/$1.client.log" ;;
	esac
}

# counter NAME CLIENT_COMM COUNTER: the value the daemon logged for the
# channel of the (last) client of that program that left
counter() {
	comm=$(printf %.15s "$2")      # the kernel's comm: 15 characters
	id=$(sed -n "s/.*client \([0-9]*\) (pid [0-9]*, $comm) attached.*/\1/p" \
		"$tmp/$1.log" | tail -1)
	[ -n "$id" ] || { echo 0; return; }
	v=$(sed -n "s/^sroced: client $id: $3 \([0-9]*\)$/\1/p" "$tmp/$1.log" | tail -1)
	echo "${v:-0}"
}

# held_pair NAME PORT PROG ARGS...: a server on daemon a and its client on
# daemon b, by hand so that $held_srv is the server program itself (for
# kill -STOP / -9; the client's timeout passes a kill on), $held_cli the
# client's; returns when the pair is mid-transfer: the exchange is over
# (the client, line-buffered, printed the peer's address; with -D the
# table comes only at the end)
held_pair() {
	_name=$1 _port=$2
	shift 2
	$N env SROCE_DAEMON="$tmp/a.sock" "$@" -p "$_port" > "$tmp/$_name.server.log" 2>&1 &
	held_srv=$!
	for _i in $(seq 300); do
		$N ss -ltnH "sport = :$_port" | grep -q . && break
		sleep 0.1
	done
	$N env SROCE_DAEMON="$tmp/b.sock" stdbuf -oL timeout 60 "$@" -p "$_port" 127.0.0.1 > "$tmp/$_name.client.log" 2>&1 &
	held_cli=$!
	pids="$pids $held_srv $held_cli"
	for _i in $(seq 600); do
		grep -q "remote address" "$tmp/$_name.client.log" && break
		sleep 0.1
	done
}

case $scen in
loopback)
	# the idle policy's and the nice option's: a bad value is one line
	# and exit 2
	for bad in "--idle-nap-us 0" "--idle-spin-us x" "--idle-nap-us 100001" \
		   "--idle-yield-us 100001" "--idle-yield-us -1" \
		   "--nice 1" "--nice -21" "--nice x" \
		   "--cm-hold-ms 10001" "--cm-hold-ms x"; do
		"$sroced" --foreground $bad > "$tmp/bad.log" 2>&1
		rc=$?
		[ $rc -eq 2 ] && [ "$(wc -l < "$tmp/bad.log")" -eq 1 ] ||
			fail "sroced $bad: exit $rc, $(cat "$tmp/bad.log")"
	done
	# UCX lists only devices with a node in /dev/infiniband: the daemon
	# makes one for its device when there is none (issue 16).  Daemon a
	# sleeps as soon as its spin ends (--idle-yield-us 0): a ping-pong
	# leaves no millisecond idle, so with the default yielding rounds it
	# might never sleep, and the doorbells below would go untested.
	if [ "$(id -u)" = 0 ]; then
		rm -f /dev/infiniband/sroce0
		daemon a sa 10.9.0.1 --idle-yield-us 0
		[ -c /dev/infiniband/sroce0 ] ||
			fail "sroced made no /dev/infiniband/sroce0"
		echo "ok: sroced made /dev/infiniband/sroce0"
	else
		daemon a sa 10.9.0.1 --idle-yield-us 0
	fi
	grep -q "polls yielding 0 us" "$tmp/a.log" ||
		fail "daemon a: $(grep serving "$tmp/a.log")"
	pair pingpong a a rc ibv_rc_pingpong -g 1 -n 200 -c
	wait_pairs && passed rc pingpong || fail "rc pingpong through one daemon"
	pair pingpong a a ud ibv_ud_pingpong -g 1 -n 200 -c
	wait_pairs && passed ud pingpong || fail "ud pingpong through one daemon"
	pair pingpong a a srq ibv_srq_pingpong -g 1 -n 200 -c
	wait_pairs && passed srq pingpong || fail "srq pingpong through one daemon"
	sleep 0.5
	n=$(counter a ibv_srq_pingpong sw_client_to_client)
	[ "$n" -gt 0 ] || fail "no frame switched client to client ($n)"
	n=$(counter a ibv_srq_pingpong sw_to_nic)
	[ "$n" -eq 0 ] || fail "$n loopback frames went to the NIC"
	grep -q "left; QPN block quarantined" "$tmp/a.log" || fail "no leave line"
	# UC has no flow control: 2000 SENDs of 64 KiB between two processes
	# of one daemon, the receiver slower than the sender at times.  The
	# daemon holds the sender back instead of dropping what finds the
	# receiver's channel full (before: the server waited forever for the
	# lost messages, 4 runs in 4)
	pair perftest a a ucbw ib_send_bw -x 1 -c UC -s 65536 -n 2000
	wait_pairs && passed ucbw perftest || fail "ib_send_bw -c UC through one daemon"
	sleep 0.5
	drops=$(sed -n 's/^sroced: client [0-9]*: sw_drop_full \([0-9]*\)$/\1/p' \
		"$tmp/a.log" | awk '{ s += $1 } END { print s + 0 }')
	[ "$drops" -eq 0 ] || fail "daemon a dropped $drops frames for want of room"
	n=$(counter a ib_send_bw sw_client_to_client)
	[ "$n" -ge 128000 ] || fail "the UC sender's frames switched: $n of 128000"
	echo "ok: UC 2000 x 64 KiB through one daemon, none dropped ($(counter a ib_send_bw sw_parked) frames waited for room)"
	# two clients: the daemon asks for a share each (4 nice steps down),
	# and gives it back when they go (root has CAP_SYS_NICE)
	if [ "$(id -u)" = 0 ]; then
		two=$(sed -n 's/^sroced: nice \(-*[0-9]*\) for 2 clients$/\1/p' "$tmp/a.log" | head -1)
		none=$(sed -n 's/^sroced: nice \(-*[0-9]*\) for [01] clients*$/\1/p' "$tmp/a.log" | tail -1)
		[ -n "$two" ] && [ -n "$none" ] && [ $((none - two)) -eq 4 ] ||
			fail "daemon a's nice: '$two' with 2 clients, '$none' after"
		echo "ok: daemon a at nice $two with 2 clients, $none after"
	fi
	# an idle daemon sleeps on its port's socket and its clients'
	# doorbells, and the clients' frames woke it
	grep -q "then sleeps until a frame or a request comes" "$tmp/a.log" ||
		fail "daemon a does not sleep when idle: $(grep serving "$tmp/a.log")"
	n=$(counter a ibv_srq_pingpong sw_bell_wakeups)
	[ "$n" -gt 0 ] || fail "no client's doorbell woke daemon a ($n)"
	echo "ok: daemon a slept between frames; the srq client woke it $n times"
	# the other half: two clients share daemon a, so a client whose CQ
	# polls find nothing sleeps, and the daemon's frames wake it
	n=$(counter a ibv_srq_pingpong sw_bell_rung)
	[ "$n" -gt 0 ] || fail "daemon a never woke a sleeping client ($n)"
	echo "ok: daemon a woke the sleeping srq client $n times"
	# --no-sleep: the timed naps of before, and no doorbell
	daemon n sb 10.9.0.2 --no-sleep --idle-nap-us 20
	grep -q "then naps 20 us (--no-sleep)" "$tmp/n.log" ||
		fail "daemon n: $(grep serving "$tmp/n.log")"
	pair pingpong n n rcn ibv_rc_pingpong -g 1 -n 200 -c
	wait_pairs && passed rcn pingpong || fail "rc pingpong through a daemon that naps"
	sleep 0.5
	n=$(counter n ibv_rc_pingpong sw_bell_wakeups)
	[ "$n" -eq 0 ] || fail "daemon n (--no-sleep) was woken by a doorbell ($n)"
	echo "PASS: rc, ud and srq pingpong through one daemon"
	;;
two_hosts)
	daemon a sa 10.9.0.1
	daemon b sb 10.9.0.2
	# 18 polling processes on 2 CPUs: a process may wait far longer than
	# perftest's default ACK timeout (14: 67 ms, 7 retries) for a core;
	# -u 18 (1.07 s) keeps that from being a retry-exceeded error
	pair perftest b a wbw ib_write_bw -x 1 -u 18 -s 65536 -n 500
	pair perftest a b rbw ib_read_bw -x 1 -u 18 -s 65536 -n 300
	pair perftest b a sbw ib_send_bw -x 1 -u 18 -s 4096 -n 500
	pair perftest a b wlat ib_write_lat -x 1 -u 18 -n 200
	pair pingpong b a rc ibv_rc_pingpong -g 1 -n 300 -c
	pair pingpong a b uc ibv_uc_pingpong -g 1 -n 300 -c
	pair pingpong b a ud ibv_ud_pingpong -g 1 -n 300 -c
	pair pingpong a b srq ibv_srq_pingpong -g 1 -n 300 -c
	wait_pairs || ok=no
	for t in wbw:perftest rbw:perftest sbw:perftest wlat:perftest \
		 rc:pingpong uc:pingpong ud:pingpong srq:pingpong; do
		passed "${t%%:*}" "${t##*:}" && continue
		for side in server client; do
			echo "--- ${t%%:*} $side"
			tail -5 "$tmp/${t%%:*}.$side.log"
		done
		fail "${t%%:*}: no result (8 pairs per host at once): $(grep -h -i -m 2 'fail\|error' "$tmp/${t%%:*}".*.log | tr '\n' ' ')"
	done
	[ "${ok:-}" != no ] || fail "a client failed (8 per host at once)"
	n=$(grep -c "attached to sroce0" "$tmp/a.log")
	[ "$n" -ge 8 ] || fail "daemon a served $n clients, want 8"
	echo "PASS: 8 pairs across two daemons at once"
	;;
kill_client)
	daemon a sa 10.9.0.1
	daemon b sb 10.9.0.2
	held_pair victim 18690 ib_write_bw -x 1 -s 65536 -D 30
	victim_srv=$held_srv victim_cli=$held_cli
	pair pingpong b a other ibv_rc_pingpong -g 1 -n 3000 -c
	sleep 2         # two seconds into the transfer
	# the server side (its QP is the WRITEs' target) dies
	kill -9 "$victim_srv"
	t0=$(date +%s)
	wait "$victim_cli" && fail "the dead client's peer exited 0"
	grep -Eqi "completion with error|error" "$tmp/victim.client.log" ||
		fail "the peer saw no error completion"
	echo "peer error after $(( $(date +%s) - t0 )) s: $(grep -i error "$tmp/victim.client.log" | head -1)"
	wait_pairs && passed other pingpong || fail "the other pair failed"
	kill -0 "$dpid_a" && kill -0 "$dpid_b" || fail "a daemon died"
	grep -q "ib_write_bw) left" "$tmp/a.log" || fail "daemon a did not see the client go"
	echo "PASS: kill -9 of a client: peer error, the rest carries on"
	;;
stop_client)
	daemon a sa 10.9.0.1
	daemon b sb 10.9.0.2
	# a UD receiver on host A that stops (SIGSTOP) while host B sends to
	# it: its channel fills and takes nothing.  What daemon a holds for it
	# waits 20 ms (holding the port), then the client is stuck: frames to
	# it drop as they come, and the port carries another pair meanwhile
	held_pair stopped 18691 ib_send_bw -x 1 -c UD -D 20
	stopped=$held_srv sender=$held_cli
	sleep 1
	kill -STOP "$stopped"
	for _i in $(seq 50); do
		grep -q "its channel took nothing" "$tmp/a.log" && break
		sleep 0.1
	done
	if ! grep -q "(pid $stopped, ib_send_bw): its channel took nothing for 20 ms" "$tmp/a.log"; then
		kill -CONT "$stopped"
		fail "daemon a did not give up waiting for the stopped client"
	fi
	echo "ok: $(grep "its channel took nothing" "$tmp/a.log" | head -1)"
	pair pingpong b a other ibv_rc_pingpong -g 1 -n 3000 -c
	wait_pairs
	rc=$?
	kill -CONT "$stopped"
	kill -9 "$stopped" "$sender" 2>/dev/null
	[ $rc -eq 0 ] && passed other pingpong ||
		fail "a pair failed while a client of its daemon was stopped"
	kill -0 "$dpid_a" && kill -0 "$dpid_b" || fail "a daemon died"
	echo "PASS: a stopped client holds its daemon's port 20 ms, then the others carry on"
	;;
quarantine)
	daemon a sa 10.9.0.1 --qpn-blocks 2 --quarantine-ms 3000
	# two holders: each opens the device and waits for a client on TCP
	# (no function, no timeout: $! is the program itself)
	$N env SROCE_DAEMON="$tmp/a.sock" ibv_rc_pingpong -g 1 -p 18701 > "$tmp/h1.log" 2>&1 &
	h1=$!
	pids="$pids $h1"
	sleep 1
	$N env SROCE_DAEMON="$tmp/a.sock" ibv_rc_pingpong -g 1 -p 18702 > "$tmp/h2.log" 2>&1 &
	pids="$pids $!"
	sleep 1
	grep -q "QPNs 0x1000-0x1fff" "$tmp/a.log" && grep -q "QPNs 0x2000-0x2fff" "$tmp/a.log" ||
		fail "the holders did not get blocks 1 and 2"
	kill -9 "$h1"
	sleep 0.3
	on a ibv_devinfo > "$tmp/d1.log" 2>&1 &&
		fail "a block was handed out during the quarantine"
	grep -q "no QPN block free" "$tmp/a.log" || fail "no refusal logged"
	ok=0
	for _i in $(seq 100); do
		if on a ibv_devinfo > "$tmp/d2.log" 2>&1; then ok=1; break; fi
		sleep 0.1
	done
	[ $ok = 1 ] || fail "the block never came back"
	[ "$(grep -c "QPNs 0x1000-0x1fff" "$tmp/a.log")" -ge 2 ] ||
		fail "the dead client's block was not the one reused"
	echo "PASS: QPN block quarantined, then reused"
	;;
kill_daemon)
	daemon a sa 10.9.0.1
	# signals while the client talks to the daemon: no call cut short
	$N env SROCE_DAEMON="$tmp/a.sock" timeout 60 "$build/tests/sroced/srd_fatal" --signals > "$tmp/signals.log" 2>&1 ||
		fail "a client under a storm of signals: $(cat "$tmp/signals.log")"
	cat "$tmp/signals.log"
	$N env SROCE_DAEMON="$tmp/a.sock" timeout 60 "$build/tests/sroced/srd_fatal" "$tmp/dead" > "$tmp/fatal.log" 2>&1 &
	fp=$!
	pids="$pids $fp"
	for _i in $(seq 100); do
		grep -q "ready" "$tmp/fatal.log" && break
		sleep 0.1
	done
	grep -q "ready" "$tmp/fatal.log" || fail "the client did not get ready"
	kill -9 "$dpid_a"
	touch "$tmp/dead"
	wait "$fp" || fail "the client did not see the device go"
	cat "$tmp/fatal.log"
	daemon a sa 10.9.0.1
	pair pingpong a a rc ibv_rc_pingpong -g 1 -n 100 -c
	wait_pairs && passed rc pingpong || fail "the new daemon does not serve"
	echo "PASS: daemon killed: DEVICE_FATAL and flushes; a new daemon serves"
	;;
forge)
	daemon a sa 10.9.0.1
	# the victim: a UD QP of the first client, QPN 0x1000
	$N env SROCE_DAEMON="$tmp/a.sock" timeout 60 ibv_ud_pingpong -g 1 -n 100 -c -p 18711 > "$tmp/v.server.log" 2>&1 &
	vs=$!
	pids="$pids $vs"
	sleep 1
	grep -q "QPNs 0x1000-0x1fff" "$tmp/a.log" || fail "the victim is not in block 1"
	# sroce-stat's client view: the victim, its program, block and QP
	# (once its transport has made the QP)
	for _i in $(seq 50); do
		"$build/tools/sroce-stat/sroce-stat" -d "$tmp" -c > "$tmp/clients.txt" 2>&1 ||
			fail "sroce-stat -c"
		awk '$3 == "ibv_ud_pingpong" && $4 == "0x1000-0x1fff" && $5 >= 1 { ok = 1 }
			 END { exit !ok }' "$tmp/clients.txt" && break
		sleep 0.1
	done
	cat "$tmp/clients.txt"
	awk '$3 == "ibv_ud_pingpong" && $4 == "0x1000-0x1fff" && $5 >= 1 { ok = 1 }
		 END { exit !ok }' "$tmp/clients.txt" ||
		fail "sroce-stat -c does not show the victim with its block and QP"
	on a env -u LD_LIBRARY_PATH "$build/tests/sroced/srd_forge" 0x1000 > "$tmp/forge.log" 2>&1 ||
		fail "the forger's good frame did not come back"
	sleep 0.5
	n=$(counter a srd_forge sw_drop_forged)
	[ "$n" -eq 7 ] || fail "forged frames dropped: $n, want 7"
	n=$(counter a srd_forge sw_client_to_client)
	[ "$n" -eq 1 ] || fail "good frames switched: $n, want 1"
	on a timeout 60 ibv_ud_pingpong -g 1 -n 100 -c -p 18711 127.0.0.1 > "$tmp/v.client.log" 2>&1 ||
		fail "the victim's exchange failed after the forgery"
	wait "$vs" || fail "the victim failed"
	echo "PASS: 7 forged frames (UD source QPN, source IP, source MAC, RC and XRC to no peer of its, a MAD for another client's CM, a MAD not from QP1) dropped and counted, the victim untouched"
	;;
rdmacm)
	command -v rping >/dev/null || { echo "SKIP: no rping"; exit 77; }
	export LD_LIBRARY_PATH=$build/verbs-shim:$build/verbs-shim/rdmacm
	# a REQ for a service nobody listens on waits 3 s for a listener
	daemon a sa 10.9.0.1 --cm-hold-ms 3000
	daemon b sb 10.9.0.2
	rping_pair local a 10.9.0.1 a 7174
	wait_pairs || { cat "$tmp/local.server.log" "$tmp/local.client.log"; fail "rping through one daemon"; }
	rping_ok local
	rping_pair ab a 10.9.0.1 b 7174
	rping_pair ba b 10.9.0.2 a 7175
	wait_pairs || fail "rping between the hosts"
	rping_ok ab
	rping_ok ba
	# one listener per service ID on the device, whichever process it is
	on a timeout 60 rping -s -a 10.9.0.1 -p 7176 -C 1 > "$tmp/first.log" 2>&1 &
	first=$!
	pids="$pids $first"
	sleep 1
	on a timeout 20 rping -s -a 10.9.0.1 -p 7176 -C 1 > "$tmp/second.log" 2>&1 &&
		fail "a second process listened on the same port"
	grep -Eiq "in use|EADDRINUSE|listen" "$tmp/second.log" ||
		{ cat "$tmp/second.log"; fail "no address-in-use error"; }
	kill "$first" 2>/dev/null
	# nobody listens on 7177: the daemon's own CM answers REJ
	on b timeout 30 rping -c -a 10.9.0.1 -p 7177 -C 1 > "$tmp/nobody.log" 2>&1 &&
		fail "a connection to a port nobody listens on succeeded"
	grep -q "REJECTED" "$tmp/nobody.log" ||
		{ cat "$tmp/nobody.log"; fail "no REJECTED event for a port nobody listens on"; }
	# the client first: its REQ waits in daemon a for the server to listen
	on b timeout 60 rping -c -a 10.9.0.1 -p 7178 -v -V -C 5 > "$tmp/early.client.log" 2>&1 &
	pair_pids="$pair_pids $!"
	sleep 1
	on a timeout 60 rping -s -a 10.9.0.1 -p 7178 -V -C 5 > "$tmp/early.server.log" 2>&1 &
	pair_pids="$pair_pids $!"
	pids="$pids $pair_pids"
	wait_pairs && grep -q "rdma-ping-4:" "$tmp/early.client.log" ||
		{ cat "$tmp/early.client.log" "$tmp/early.server.log"; fail "a REQ sent before its listener was not held for it"; }
	held=$("$build/tools/sroce-stat/sroce-stat" -f "$tmp/sroce-$dpid_a-0.stats" |
		sed -n 's/^ *sw_cm_held *\([0-9]*\)$/\1/p')
	[ "${held:-0}" -ge 1 ] || fail "daemon a counted no held REQ ($held)"
	echo "ok: a REQ sent 1 s before its server listened reached it (sw_cm_held $held)"
	echo "PASS: rping through one daemon and between two, a second listener refused, a REQ to nobody REJected, a REQ before its listener held for it"
	;;
mcast)
	command -v mckey >/dev/null || { echo "SKIP: no mckey"; exit 77; }
	export LD_LIBRARY_PATH=$build/verbs-shim:$build/verbs-shim/rdmacm
	DAEMON_CONF="capture=$tmp/a.pcap" daemon a sa 10.9.0.1
	daemon b sb 10.9.0.2
	g=239.9.0.5
	for r in a1:a:10.9.0.1 a2:a:10.9.0.1 b1:b:10.9.0.2; do
		n=${r%%:*} rest=${r#*:}
		on "${rest%%:*}" timeout 60 mckey -m $g -b "${rest#*:}" -C 30 \
			> "$tmp/$n.log" 2>&1 &
		pair_pids="$pair_pids $!"
	done
	pids="$pids $pair_pids"
	sleep 2
	on a timeout 60 mckey -m $g -b 10.9.0.1 -C 30 -s > "$tmp/send.log" 2>&1 ||
		{ cat "$tmp/send.log"; fail "mckey sender"; }
	wait_pairs || { tail -n 3 "$tmp/a1.log" "$tmp/a2.log" "$tmp/b1.log"; fail "a receiver did not get every datagram"; }
	for n in a1 a2 b1; do
		grep -q "data transfers complete" "$tmp/$n.log" || fail "receiver $n"
	done
	sleep 0.5
	kill $dpid_a 2>/dev/null; wait $dpid_a 2>/dev/null
	"$build/tools/sroce-pcap/sroce-pcap" "$tmp/a.pcap" > "$tmp/a.txt" 2>&1
	if command -v tshark >/dev/null; then
		# A's capture holds B's reports too: A's own only
		tshark -n -r "$tmp/a.pcap" -Y "igmp && ip.src == 10.9.0.1" \
			-T fields -e igmp.type -e igmp.maddr \
			> "$tmp/igmp.txt" 2>/dev/null
		[ "$(grep -c "^0x16	$g$" "$tmp/igmp.txt")" = 1 ] ||
			{ cat "$tmp/igmp.txt"; fail "A's port did not report $g once"; }
		grep -q "^0x17	$g$" "$tmp/igmp.txt" ||
			{ cat "$tmp/igmp.txt"; fail "A's port did not leave $g"; }
	fi
	echo "PASS: 30 datagrams to $g reached two members on A and one on B; A's port reported the group once and left it"
	;;
dead_client)
	command -v rping >/dev/null || { echo "SKIP: no rping"; exit 77; }
	export LD_LIBRARY_PATH=$build/verbs-shim:$build/verbs-shim/rdmacm
	daemon a sa 10.9.0.1
	daemon b sb 10.9.0.2
	# dead_pair NAME CLI_DAEMON PORT: an rping server of daemon a, its
	# client of CLI_DAEMON killed -9 mid-run (no timeout wrapper: $! is
	# rping itself)
	dead_pair() {
		on a timeout 60 rping -s -a 10.9.0.1 -p "$3" -d -V -C 100000000 \
			> "$tmp/$1.server.log" 2>&1 &
		srv=$!
		pids="$pids $srv"
		sleep 1
		$N env SROCE_DAEMON="$tmp/$2.sock" rping -c -a 10.9.0.1 -p "$3" -v -V \
			-C 100000000 > "$tmp/$1.client.log" 2>&1 &
		cli=$!
		pids="$pids $cli"
		for _i in $(seq 300); do
			grep -q "rdma-ping-20:" "$tmp/$1.client.log" && break
			sleep 0.1
		done
		grep -q "rdma-ping-20:" "$tmp/$1.client.log" ||
			{ tail -5 "$tmp/$1.server.log" "$tmp/$1.client.log"; fail "rping $1 did not run"; }
		kill -9 "$cli"
		for _i in $(seq 100); do
			grep -q "DISCONNECT EVENT" "$tmp/$1.server.log" && break
			sleep 0.1
		done
		grep -q "DISCONNECT EVENT" "$tmp/$1.server.log" ||
			{ tail -5 "$tmp/$1.server.log"; tail -5 "$tmp/$2.log"; fail "$1: the server saw no DISCONNECTED after its client died"; }
		grep -q "1 connection disconnected for it" "$tmp/$2.log" ||
			{ tail -5 "$tmp/$2.log"; fail "$1: daemon $2 sent no DREQ for its dead client"; }
		kill "$srv" 2>/dev/null
	}
	dead_pair local a 7180
	dead_pair remote b 7181
	echo "PASS: a client killed -9: its daemon disconnected its connection (DREQ), the rping server saw DISCONNECTED, through one daemon and between two"
	;;
vlan)
	command -v rping >/dev/null || { echo "SKIP: no rping"; exit 77; }
	command -v tshark >/dev/null || { echo "SKIP: no tshark"; exit 77; }
	for h in a b; do
		DAEMON_CONF="vlan=7 vlan_prio=3 capture=$tmp/$h.pcap"
		[ $h = a ] && daemon a sa 10.9.0.1 || daemon b sb 10.9.0.2
	done
	unset DAEMON_CONF
	pair pingpong b a rc ibv_rc_pingpong -g 1 -n 200 -c
	pair perftest a b wbw ib_write_bw -x 1 -s 4096 -n 300
	wait_pairs || fail "a client failed across daemons on VLAN 7"
	passed rc pingpong || fail "rc pingpong: no result"
	passed wbw perftest || fail "ib_write_bw: no result"
	export LD_LIBRARY_PATH=$build/verbs-shim:$build/verbs-shim/rdmacm
	on a timeout 60 rping -s -a 10.9.0.1 -p 7180 -V -C 5 > "$tmp/rp.server.log" 2>&1 &
	s=$!
	pids="$pids $s"
	sleep 1
	on b timeout 60 rping -c -a 10.9.0.1 -p 7180 -v -V -C 5 > "$tmp/rp.client.log" 2>&1 ||
		{ cat "$tmp/rp.server.log" "$tmp/rp.client.log"; fail "rping over VLAN 7"; }
	wait "$s" || fail "rping server over VLAN 7"
	grep -q "rdma-ping-4:" "$tmp/rp.client.log" || fail "rping: no data"
	for p in $dpid_a $dpid_b; do kill "$p"; wait "$p"; done   # flush the captures
	for h in a b; do
		tagged=$(tshark -r "$tmp/$h.pcap" -Y 'vlan.id == 7 && vlan.priority == 3 && udp.dstport == 4791' 2>/dev/null | wc -l)
		mads=$(tshark -r "$tmp/$h.pcap" -Y 'vlan.id == 7 && infiniband.bth.destqp == 1' 2>/dev/null | wc -l)
		bare=$(tshark -r "$tmp/$h.pcap" -Y '!vlan && udp.dstport == 4791' 2>/dev/null | wc -l)
		[ "$tagged" -gt 300 ] || fail "daemon $h: $tagged RoCEv2 frames tagged VLAN 7 prio 3"
		[ "$mads" -gt 0 ] || fail "daemon $h: no CM MAD on VLAN 7"
		[ "$bare" -eq 0 ] || fail "daemon $h: $bare RoCEv2 frames untagged on the wire"
	done
	n=$(counter a ib_write_bw sw_drop_forged)
	[ "$n" -eq 0 ] || fail "$n client frames refused (a tag leaked to a client?)"
	echo "PASS: rc pingpong, ib_write_bw and rping between daemons on VLAN 7"
	;;
nd2)
	command -v rdma_client >/dev/null || { echo "SKIP: no rdma_client"; exit 77; }
	[ -x "$build/tests/nd2/nd2_cm" ] || { echo "SKIP: nd2_cm not built"; exit 77; }
	daemon a sa 10.9.0.1
	daemon b sb 10.9.0.2
	nd2=$build/tests/nd2/nd2_cm
	# nd2_cm on the NDK/ND2 shims: no drop-in libraries (its EAL would load them)
	on a env -u LD_LIBRARY_PATH timeout 60 "$nd2" -s -p 7471 > "$tmp/nd2.server.log" 2>&1 &
	s=$!
	pids="$pids $s"
	sleep 1
	on a env LD_LIBRARY_PATH=$build/verbs-shim:$build/verbs-shim/rdmacm timeout 60 \
		rdma_client -s 10.9.0.1 -p 7471 > "$tmp/nd2.client.log" 2>&1 ||
		{ cat "$tmp/nd2.server.log" "$tmp/nd2.client.log"; fail "rdma_client to nd2_cm through one daemon"; }
	wait "$s" || { cat "$tmp/nd2.server.log"; fail "nd2_cm -s through one daemon"; }
	on a env -u LD_LIBRARY_PATH timeout 60 "$nd2" -s -p 7472 > "$tmp/nd2.ab.server.log" 2>&1 &
	s=$!
	pids="$pids $s"
	sleep 1
	on b env -u LD_LIBRARY_PATH timeout 60 "$nd2" -c 10.9.0.1 -p 7472 > "$tmp/nd2.ab.client.log" 2>&1 ||
		{ cat "$tmp/nd2.ab.server.log" "$tmp/nd2.ab.client.log"; fail "nd2_cm between the hosts"; }
	wait "$s" || { cat "$tmp/nd2.ab.server.log"; fail "nd2_cm -s between the hosts"; }
	echo "PASS: an ND2 listener through the daemon's QP1 with rdma_client, nd2_cm between two daemons"
	;;
ctl_fuzz)
	daemon a sa 10.9.0.1
	$N "$build/tests/sroced/srd_ctl_fuzz" "$tmp/a.sock" 3000 > "$tmp/fuzz.log" 2>&1 ||
		fail "ctl_fuzz"
	cat "$tmp/fuzz.log"
	kill -0 "$dpid_a" || fail "the daemon died"
	pair pingpong a a rc ibv_rc_pingpong -g 1 -n 100 -c
	wait_pairs && passed rc pingpong || fail "no service after the fuzz"
	echo "PASS: hostile control messages refused, service goes on"
	;;
demo)
	daemon a sa 10.9.0.1
	on a env -u LD_LIBRARY_PATH timeout 120 "$build/examples/two_node/sroce-demo" > "$tmp/demo.log" 2>&1 ||
		fail "sroce-demo through the daemon"
	tail -5 "$tmp/demo.log"
	[ "$(grep -c "sroce-demo) attached" "$tmp/a.log")" -eq 2 ] ||
		fail "the demo's two nodes did not both attach"
	echo "PASS: the two-node demo through sroced"
	;;
hostnic)
	command -v rping >/dev/null || { echo "SKIP: no rping"; exit 77; }
	export LD_LIBRARY_PATH=$build/verbs-shim:$build/verbs-shim/rdmacm
	hns_a=${ns}a hns_b=${ns}b hip_a=10.9.1.1 hip_b=10.9.1.2
	trap 'cleanup; ip netns del $hns_a 2>/dev/null; ip netns del $hns_b 2>/dev/null' EXIT INT TERM
	ip netns add "$hns_a" && ip netns add "$hns_b" || fail "ip netns add"
	ip -n "$hns_a" link set lo up
	ip -n "$hns_b" link set lo up
	ip link add ha netns "$hns_a" type veth peer name hb netns "$hns_b" ||
		fail "veth"
	ip -n "$hns_a" addr add "$hip_a/24" dev ha
	ip -n "$hns_b" addr add "$hip_b/24" dev hb
	ip -n "$hns_a" link set ha up
	ip -n "$hns_b" link set hb up
	HOSTNIC=af_xdp daemon a ha "$hip_a"
	HOSTNIC=af_xdp daemon b hb "$hip_b"
	for h in a:ha b:hb; do
		ip -n "$(host_ns "${h%%:*}")" -d link show "${h#*:}" | grep -q "name sroce_redirect" ||
			fail "no XDP program of sroce on ${h#*:}"
	done
	# the kernels' own traffic on the same NICs, all along
	ip netns exec "$hns_b" ping -c 40 -i 0.1 "$hip_a" > "$tmp/ping.txt" 2>&1 &
	ping_pid=$!
	pids="$pids $ping_pid"
	pair perftest a b wbw ib_write_bw -x 1 -u 18 -s 65536 -n 500
	pair perftest b a sbw ib_send_bw -x 1 -u 18 -s 4096 -n 500
	pair pingpong a b rc ibv_rc_pingpong -g 1 -n 300 -c
	pair pingpong b a ud ibv_ud_pingpong -g 1 -n 300 -c
	pair pingpong a a srq ibv_srq_pingpong -g 1 -n 200 -c
	rping_pair rping a "$hip_a" b 7180
	wait_pairs || ok=no
	for t in wbw:perftest sbw:perftest rc:pingpong ud:pingpong srq:pingpong; do
		passed "${t%%:*}" "${t##*:}" ||
			fail "${t%%:*}: no result between two host NICs"
	done
	rping_ok rping
	[ "${ok:-}" != no ] || fail "a client failed"
	wait "$ping_pid" || fail "the kernels' ping lost packets: $(tail -2 "$tmp/ping.txt")"
	grep -q " 0% packet loss" "$tmp/ping.txt" || fail "ping: $(tail -2 "$tmp/ping.txt")"
	sleep 0.5
	# 4 MiB READs: each one's 4096 responses come at once
	pair perftest a b rbw4m ib_read_bw -x 1 -s 4194304 -n 60
	wait_pairs && passed rbw4m perftest ||
		fail "ib_read_bw 4 MiB between the host NICs: $(grep -h -i -m 2 'fail\|error' "$tmp"/rbw4m.*.log | tr '\n' ' ')"
	# qperf tells its peer the RDMA-CM port over TCP before it calls
	# rdma_listen, and runs each test in a new server process; a
	# listener that was slow to come (the device started in
	# rdma_listen) had the peer's REQ answered by the daemon's REJ
	if command -v qperf >/dev/null; then
		on a timeout 60 qperf > "$tmp/qperf.server.log" 2>&1 &
		qs=$!
		pids="$pids $qs"
		sleep 1
		on b timeout 50 qperf -cm1 -t 1 "$hip_a" rc_bw rc_lat rc_rdma_write_lat \
			> "$tmp/qperf.client.log" 2>&1
		kill "$qs" 2>/dev/null
		[ "$(grep -c "latency\|bw  =" "$tmp/qperf.client.log")" -eq 3 ] ||
			fail "qperf -cm1 between the host NICs: $(tr '\n' ' ' < "$tmp/qperf.client.log")"
		echo "ok: qperf -cm1 rc_bw, rc_lat, rc_rdma_write_lat: $(grep "=" "$tmp/qperf.client.log" | tr -s ' \n' ' ')"
	fi
	n=$(counter a ibv_srq_pingpong sw_client_to_client)
	[ "$n" -gt 0 ] || fail "no frame switched between host A's processes ($n)"
	n=$(counter a ibv_srq_pingpong sw_to_nic)
	[ "$n" -eq 0 ] || fail "$n frames of two processes of host A went to its NIC"
	n=$(counter b ib_write_bw sw_to_nic)
	[ "$n" -gt 0 ] || fail "host B's ib_write_bw sent no frame to its NIC"
	echo "PASS: two daemons on their hosts' NICs (AF_XDP): perftest, pingpongs and rping between them and through one, the kernels' ping beside"
	;;
*)
	fail "unknown scenario $scen" ;;
esac
exit 0
