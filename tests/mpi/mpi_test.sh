#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# mpi_test.sh MODE BUILD_DIR MPI_CHECK TMPFILES_CONF IMPL — an MPI job on
# sroce, with Debian's Open MPI 4.1 (IMPL ompi: its UCX PML and OSC) or
# MPICH 4.0 (IMPL mpich: ch4:ucx), as on an RNIC, and UCX told to use only
# the verbs transports (UCX_TLS=rc_verbs,ud_verbs,self), with the
# library's own shared memory off (Open MPI: btl self only; MPICH:
# MPIR_CVAR_NOLOCAL), so every byte between two ranks crosses sroce,
# running tests/mpi/mpi_check (ping-pong 1 B to 4 MiB, MPI_Bcast,
# MPI_Allreduce, MPI_Alltoall, MPI_Put and MPI_Get; every byte checked),
# built against that library.  Nothing but the drop-in in LD_LIBRARY_PATH.
#   embedded  2 ranks on the default link (rank r is node r), no daemon
#   sroced    4 ranks on two daemons joined by a veth pair in a namespace of
#             the test's own: ranks 0 and 1 on daemon A, 2 and 3 on daemon
#             B, so ranks meet both through one device (the daemon's
#             loopback) and across the link
# The MPI library's own messages about the wire go to the log; the test
# asserts mpi_check's last line and the exit status of every rank.
set -u
mode=$1
build=$2
mpi_check=$3
tmpfiles=$4
impl=${5:-ompi}
case $impl in
ompi) launcher=mpirun.openmpi lib="Open MPI" pkg=openmpi-bin ;;
mpich) launcher=mpirun.mpich lib=MPICH pkg=mpich ;;
*) echo "unknown MPI library $impl"; exit 1 ;;
esac
command -v $launcher >/dev/null || { echo "SKIP: no $launcher ($pkg)"; exit 77; }
[ "$(id -u)" = 0 ] || { echo "SKIP: not root"; exit 77; }
tmp=$(mktemp -d /tmp/sroce-mpi.XXXXXX)
. "$(dirname "$0")/../harness.sh"

if [ ! -e /dev/infiniband/sroce0 ]; then      # UCX opens it (ucx.sh)
	if command -v systemd-tmpfiles >/dev/null; then
		systemd-tmpfiles --create "$tmpfiles"
	else
		mkdir -p /dev/infiniband
		mknod -m 666 /dev/infiniband/sroce0 c 1 3
	fi
fi
unset SROCE_CONFIG SROCE_NODE SROCE_DAEMON SROCE_DAEMON_SOCKET GLIBC_TUNABLES
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# each rank picks its node or daemon by its rank (Open MPI and MPICH's
# hydra each set their variable)
cat > "$tmp/rank.sh" <<'EOF'
#!/bin/sh
r=${OMPI_COMM_WORLD_RANK:-$PMI_RANK}
case $SROCE_MPI_MODE in
embedded) export SROCE_NODE=$r ;;
sroced) [ "$r" -lt 2 ] && d=a || d=b
	export SROCE_DAEMON=$SROCE_MPI_TMP/$d.sock ;;
esac
exec "$@"
EOF
chmod +x "$tmp/rank.sh"

# run NP [NETNS_EXEC...]: the library's mpirun, every rank through rank.sh
# (hydra passes mpirun's whole environment on; Open MPI what -x names)
run() {
	np=$1
	shift
	set -- "$@" env SROCE_MPI_MODE="$mode" SROCE_MPI_TMP="$tmp" \
		SROCE_RUN_DIR="$tmp" timeout 240
	case $impl in
	ompi)
		set -- "$@" mpirun.openmpi --oversubscribe --mca plm isolated \
			-np "$np" --mca pml ucx --mca osc ucx --mca btl self \
			-x SROCE_MPI_MODE -x SROCE_MPI_TMP -x SROCE_RUN_DIR \
			-x LD_LIBRARY_PATH="$build/verbs-shim" \
			-x UCX_TLS=rc_verbs,ud_verbs,self \
			-x UCX_NET_DEVICES=sroce0:1 ;;
	mpich)
		set -- "$@" mpirun.mpich -launcher fork -np "$np" \
			-genv LD_LIBRARY_PATH "$build/verbs-shim" \
			-genv UCX_TLS rc_verbs,ud_verbs,self \
			-genv UCX_NET_DEVICES sroce0:1 \
			-genv MPIR_CVAR_NOLOCAL 1 ;;
	esac
	"$@" "$tmp/rank.sh" "$mpi_check" > "$tmp/mpi.log" 2>&1
	rc=$?
	grep -v "memif_connect_client" "$tmp/mpi.log" | tail -20
	[ $rc -eq 0 ] || fail "$launcher -np $np exit $rc"
	grep -q "^mpi_check: $np ranks: .*every byte right" "$tmp/mpi.log" ||
		fail "mpi_check did not finish"
}

case $mode in
embedded)
	run 2
	echo "ok: $lib over UCX, 2 ranks on the default link"
	;;
sroced)
	ns=srm$$
	ip netns add "$ns" || fail "ip netns add"
	ip -n "$ns" link set lo up
	sr_veth_pair "$ns" mpi0 mpi1 || fail "veth"
	for d in a:mpi0:10.11.0.1 b:mpi1:10.11.0.2; do
		name=${d%%:*} rest=${d#*:}
		ifc=${rest%%:*} ip=${rest#*:}
		conf "$name" "port = net_af_packet0,iface=$ifc,framecnt=4096" \
			"mac = 02:00:0a:0b:00:${ip##*.}" "ipv4 = $ip/24" "stats_dir = off"
		ip netns exec "$ns" "$build/pmd/sroced" --foreground \
			--config "$tmp/$name.conf" --socket "$tmp/$name.sock" \
			--run-dir "$tmp/$name.run" > "$tmp/sroced-$name.log" 2>&1 &
		pids="$pids $!"
	done
	for i in $(seq 100); do
		[ "$(cat "$tmp"/sroced-*.log | grep -c serving)" -ge 2 ] && break
		sleep 0.1
	done
	[ "$(cat "$tmp"/sroced-*.log | grep -c serving)" -ge 2 ] ||
		fail "the daemons did not start"
	run 4 ip netns exec "$ns"
	for name in a b; do
		grep -q "client .* attached" "$tmp/sroced-$name.log" ||
			fail "daemon $name served no rank"
	done
	echo "ok: $lib over UCX, 4 ranks on two sroced daemons"
	;;
*)
	fail "unknown mode $mode"
	;;
esac
