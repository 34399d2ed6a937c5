# SPDX-License-Identifier: BSD-3-Clause
"""scenarios.py - the interop suite's scenario table (interop.py runs it).

One entry per scenario and role: the group it belongs to, the programs and
arguments on each side (sroce on the host, rxe in the guest), what the
checks expect of the capture.  interop.py --list prints them.
"""


KiB = 1024
MiB = 1024 * KiB
SIZES = [2, 64, KiB, KiB + 1, 4 * KiB, MiB]   # 1 KiB = one path MTU
UD_SIZES = [2, 64, KiB]                        # a UD message is one packet


MCAST_GROUP = '239.83.82.1'

def size_text(s):
    if s >= MiB and s % MiB == 0:
        return '%d MiB' % (s // MiB)
    if s >= KiB and s % KiB == 0:
        return '%d KiB' % (s // KiB)
    return '%d B' % s


# ------------------------------------------------------------- scenarios
#
# A scenario: one program run on both sides, sroce in one role.
#   group   meson test that runs it        prog    the program (both sides)
#   args    its arguments (both sides)     role    sroce's role: server|client
#   kind    pingpong | bw | lat            mode    lab mode: kernel | pure
#   faults  sroce fault rules              expect  extra checks (see check_*)
#   kill    (sroce output pattern, rxe output pattern): sroce's program is
#           killed -9 once its output matches the first, and rxe's side
#           must then print the second

def perftest_iters(kind, size):
    """Budget: each run moves at most ~8 k frames (rxe under TCG ~8 k/s)."""
    if size >= MiB:
        return 5 if kind == 'lat' else 8
    if kind == 'lat':
        return 100
    return 200


def reads_args(prog):
    """perftest 4.5 sets max_rd_atomic to the PEER's outstanding reads
    (rxe: 128, sroce: 16) and fails 'modify QP to RTS' when that exceeds
    the local device's max_qp_rd_atom (any two devices that differ; newer
    perftest negotiates): both sides ask for sroce's 16."""
    return ['-o', '16'] if prog in ('ib_read_bw', 'ib_read_lat',
                                    'ib_atomic_bw') else []


def scenarios():
    out = []

    def add(group, name, prog, args, kind, roles=('server', 'client'),
            mode='kernel', faults=(), expect=(), timeout=120, cm=None,
            conf=(), sroce_prog=None, kill=None, ready='LISTEN'):
        for role in roles:
            out.append(dict(group=group, name='%s/%s' % (name, role),
                            prog=prog, args=list(args), kind=kind,
                            role=role, mode=mode, faults=list(faults),
                            expect=list(expect), timeout=timeout,
                            what=name, cm=cm, conf=list(conf),
                            sroce_prog=sroce_prog, kill=kill,
                            ready=ready))

    # ibv_*_pingpong, -c: verify the received buffers.
    for prog, size in (('ibv_rc_pingpong', 4096), ('ibv_ud_pingpong', 1024)):
        add('pingpong', '%s-%s' % (prog[4:], size_text(size).replace(' ', '')),
            prog, ['-g', '1', '-c', '-n', '50', '-s', str(size)], 'pingpong')

    # perftest over RC, every size.
    rc_progs = [('ib_write_bw', 'bw'), ('ib_read_bw', 'bw'),
                ('ib_send_bw', 'bw'), ('ib_write_lat', 'lat'),
                ('ib_read_lat', 'lat'), ('ib_send_lat', 'lat')]
    for prog, kind in rc_progs:
        for size in SIZES:
            n = perftest_iters(kind, size)
            add('rc', 'rc-%s-%s' % (prog[3:], size_text(size).replace(' ', '')),
                prog, ['-x', '1', '-F', '-c', 'RC', '-s', str(size),
                       '-n', str(n)] + reads_args(prog), kind,
                timeout=180 if size >= MiB else 90)
    for op, short in (('FETCH_AND_ADD', 'fadd'), ('CMP_AND_SWAP', 'cswap')):
        add('rc', 'rc-atomic_bw-%s' % short, 'ib_atomic_bw',
            ['-x', '1', '-F', '-A', op, '-n', '200'] + reads_args('ib_atomic_bw'),
            'bw')

    # UC and UD (RDMA WRITE does not exist on UD).
    for prog in ('ib_write_bw', 'ib_send_bw'):
        for size in SIZES:
            # A 1 MiB UC SEND from sroce is 1024 frames at wire speed: all
            # reach the bridge, the TCG guest drops some, UC drops the
            # message and rxe's perftest waits forever.  Not from sroce.
            roles = ('server',) if prog == 'ib_send_bw' and size >= MiB \
                else ('server', 'client')
            add('uc_ud', 'uc-%s-%s' % (prog[3:], size_text(size).replace(' ', '')),
                prog, ['-x', '1', '-F', '-c', 'UC', '-s', str(size),
                       '-n', str(perftest_iters('bw', size))], 'bw',
                roles=roles, timeout=180 if size >= MiB else 90)
    for size in UD_SIZES:
        add('uc_ud', 'ud-send_bw-%s' % size_text(size).replace(' ', ''),
            'ib_send_bw', ['-x', '1', '-F', '-c', 'UD', '-s', str(size),
                           '-n', '100'], 'bw')

    # RoCEv2 over the IPv6 link-local GID (GID 0 on both sides).
    add('gid6', 'gid6-rc_pingpong', 'ibv_rc_pingpong',
        ['-g', '0', '-c', '-n', '50', '-s', '4096'], 'pingpong')
    add('gid6', 'gid6-ud_pingpong', 'ibv_ud_pingpong',
        ['-g', '0', '-c', '-n', '50', '-s', '1024'], 'pingpong')
    for prog in ('ib_write_bw', 'ib_read_bw', 'ib_send_bw'):
        add('gid6', 'gid6-%s-4KiB' % prog[3:], prog,
            ['-x', '0', '-F', '-s', '4096', '-n', '200'] + reads_args(prog), 'bw')
    add('gid6', 'gid6-atomic_bw-fadd', 'ib_atomic_bw',
        ['-x', '0', '-F', '-A', 'FETCH_AND_ADD', '-n', '200'] +
        reads_args('ib_atomic_bw'), 'bw')
    add('gid6', 'gid6-send_lat-64B', 'ib_send_lat',
        ['-x', '0', '-F', '-s', '64', '-n', '100'], 'lat')

    # Recovery: sroce drops, or corrupts the ICRC of, 2 % of its frames.
    for fault, short in (('tx drop prob=2%', 'drop2'),
                         ('tx corrupt prob=2%', 'corrupt2')):
        for prog in ('ib_write_bw', 'ib_read_bw', 'ib_send_bw'):
            add('recovery', 'loss-%s-%s-64KiB' % (short, prog[3:]), prog,
                ['-x', '1', '-F', '-s', str(64 * KiB), '-n', '40'] +
                reads_args(prog), 'bw',
                faults=[fault], expect=['retransmit'], timeout=240)

    # A repeated atomic must be answered from the responder's memory of it.
    add('recovery', 'loss-drop2-atomic_bw-fadd', 'ib_atomic_bw',
        ['-x', '1', '-F', '-A', 'FETCH_AND_ADD', '-n', '400'] +
        reads_args('ib_atomic_bw'), 'bw', faults=['tx drop prob=2%'],
        expect=['retransmit'], timeout=240)

    # Congestion control (issue 20, docs/congestion.md): sroce runs with its
    # defaults, cc = dcqcn and ecn = ect0.  An nftables rule on the lab's
    # bridge marks every RoCEv2 frame from rxe to sroce CE, so sroce, the
    # notification point, answers with CNPs (opcode 0x81) to rxe, which
    # ignores them.  The programs must still pass, and the bridge capture
    # must hold sroce's CNPs, well formed (reserved bytes zero).
    for prog in ('ib_write_bw', 'ib_send_bw'):
        add('cc', 'cc-ce-%s-64KiB' % prog[3:], prog,
            ['-x', '1', '-F', '-s', str(64 * KiB), '-n', '100'], 'bw',
            expect=['cnp'])

    # Retransmission storms (issue 20, point 5): many QPs from sroce, the
    # requester, into rxe behind the guest's tap (1000 frames).  They ended
    # in RETRY_EXC in most runs when each QP resent its whole window at
    # every timeout; with the window restarted small after a loss and
    # grown by the ACKs (lib/transport/req.c) they complete, retry_cnt 7.
    # The READs: rxe serves one QP's queue at a time, so a QP waits out
    # timeouts while its neighbours progress; resending its READ at each
    # one made rxe answer it twice and the waits longer, up to RETRY_EXC
    # (docs/congestion.md, "A busy responder and READs").
    add('cc', 'storm-write_bw-q16-64KiB', 'ib_write_bw',
        ['-x', '1', '-F', '-q', '16', '-s', str(64 * KiB), '-n', '20'], 'bw',
        roles=('client',), timeout=240)
    add('cc', 'storm-read_bw-q8-64KiB', 'ib_read_bw',
        ['-x', '1', '-F', '-q', '8', '-s', str(64 * KiB), '-n', '20'] +
        reads_args('ib_read_bw'), 'bw', roles=('client',), timeout=240)

    # RDMA-CM: the programs connect through QP1 and the CM (sroce's
    # drop-in librdmacm, rxe's kernel rdma_cm); no TCP, no device name.
    # cm: (server args, client args, what the client prints at the end);
    # {peer} is the other side's IP, {me} this side's.
    add('rdmacm', 'cm-rping', 'rping', [], 'cm', expect=['cm'],
        cm=(['-s', '-a', '{me}', '-V', '-v', '-C', '20'],
            ['-c', '-a', '{peer}', '-V', '-v', '-C', '20'],
            r'ping data: rdma-ping-19:'))
    add('rdmacm', 'cm-ucmatose', 'ucmatose', [], 'cm', expect=['cm'],
        cm=(['-c', '2', '-C', '10'], ['-s', '{peer}', '-c', '2', '-C', '10'],
            r'return status 0'))
    add('rdmacm', 'cm-udaddy', 'udaddy', [], 'cm', expect=['cm'],
        cm=(['-c', '2', '-C', '10'], ['-s', '{peer}', '-c', '2', '-C', '10'],
            r'return status 0'))
    # UD multicast: mckey joins 239.83.82.1 on both sides (the kernel's
    # rdma_cm on RoCEv2 does IPv4 groups only); the client sends 20
    # datagrams to the group's QPN 0xFFFFFF, the server exits only once all
    # arrived.  A guest server has no listener: it is ready once its id
    # exists (and mckey waits 3 s after joining before it sends).
    add('rdmacm', 'cm-mckey', 'mckey', [], 'cm', expect=['mcast'],
        cm=(['-m', MCAST_GROUP, '-b', '{me}', '-C', '20'],
            ['-m', MCAST_GROUP, '-b', '{me}', '-C', '20', '-s'],
            r'return status 0'), ready='mckey')
    # An ND2 program on sroce (tests/nd2/nd2_cm.c: IND2Connector and
    # IND2Listener over the device's CM, no librdmacm) against Linux's
    # rdma_client / rdma_server on the kernel's rdma_cm (port 7471): 16
    # bytes each way, then the client disconnects.  prog is the guest's.
    add('rdmacm', 'cm-nd2-rdma_client', 'rdma_client', [], 'cm',
        expect=['cm'], roles=('server',), sroce_prog='nd2_cm',
        cm=(['-s'], ['-s', '{peer}'], r'rdma_client: end 0'))
    add('rdmacm', 'cm-nd2-rdma_server', 'rdma_server', [], 'cm',
        expect=['cm'], roles=('client',), sroce_prog='nd2_cm',
        cm=([], ['-c', '{peer}'], r'nd2_cm: PASS'))
    # perftest -R connects twice (its own exchange, then the test QP): the
    # TCG guest's server listens again only ~0.1-1 s after the first, so
    # an sroce client's second REQ may find no listener (REJ 8), and
    # perftest 4.5 then retries on ids it destroyed and crashes.  sroce
    # serves, rxe's client connects.
    for prog in ('ib_write_bw', 'ib_read_bw', 'ib_send_bw', 'ib_send_lat'):
        kind = 'lat' if prog.endswith('lat') else 'bw'
        add('rdmacm', 'cm-%s-R' % prog[3:], prog, [], kind, expect=['cm'],
            roles=('server',),
            cm=(['-R', '-n', '100'] + reads_args(prog),
                ['-R', '-n', '100'] + reads_args(prog) + ['{peer}'], None))

    # ARP: the namespace's kernel does not own sroce's address; nobody has
    # a static neighbour entry.  The guest's ARP cache is flushed first.
    add('arp', 'arp-rc_pingpong', 'ibv_rc_pingpong',
        ['-g', '1', '-c', '-n', '50', '-s', '4096'], 'pingpong',
        mode='pure', expect=['arp'])
    add('arp', 'arp-send_bw-4KiB', 'ib_send_bw',
        ['-x', '1', '-F', '-s', '4096', '-n', '200'], 'bw',
        mode='pure', expect=['arp'])
    add('arp', 'arp-ud_pingpong', 'ibv_ud_pingpong',
        ['-g', '1', '-c', '-n', '50', '-s', '1024'], 'pingpong',
        mode='pure', expect=['arp'])

    # The shared device: sroced owns the lab port (the same configuration
    # as the default scenarios), the programs are its clients.
    add('sroced', 'sroced-rc_pingpong-4KiB', 'ibv_rc_pingpong',
        ['-g', '1', '-c', '-n', '50', '-s', '4096'], 'pingpong', mode='sroced')
    add('sroced', 'sroced-ud_pingpong-1KiB', 'ibv_ud_pingpong',
        ['-g', '1', '-c', '-n', '50', '-s', '1024'], 'pingpong', mode='sroced')
    for prog in ('ib_write_bw', 'ib_read_bw', 'ib_send_bw'):
        add('sroced', 'sroced-%s-64KiB' % prog[3:], prog,
            ['-x', '1', '-F', '-s', str(64 * KiB), '-n', '100'] +
            reads_args(prog), 'bw', mode='sroced')
    # RDMA-CM through the daemon's QP1 (the client's CM in its process,
    # the MADs routed by the daemon)
    add('sroced', 'sroced-rping', 'rping', [], 'cm', expect=['cm'],
        mode='sroced',
        cm=(['-s', '-a', '{me}', '-V', '-v', '-C', '20'],
            ['-c', '-a', '{peer}', '-V', '-v', '-C', '20'],
            r'ping data: rdma-ping-19:'))
    # a client killed -9 mid-run: sroced sends the DREQ it cannot, and the
    # kernel's rdma_cm takes it (rping's server sees DISCONNECTED)
    add('sroced', 'sroced-rping-client-killed', 'rping', [], 'cm',
        roles=('client',), mode='sroced', timeout=60,
        cm=(['-s', '-a', '{me}', '-V', '-d', '-C', '100000000'],
            ['-c', '-a', '{peer}', '-V', '-v', '-C', '100000000'],
            r'ping data: rdma-ping-5:'),
        kill=(r'ping data: rdma-ping-5:', r'DISCONNECT EVENT'))
    add('sroced', 'sroced-ucmatose', 'ucmatose', [], 'cm', expect=['cm'],
        mode='sroced',
        cm=(['-c', '2', '-C', '10'], ['-s', '{peer}', '-c', '2', '-C', '10'],
            r'return status 0'))

    # The host's own NIC (port = iface:rxehost0), kernel-assisted, with
    # no nftables rule to hide RoCEv2 from the namespace's kernel.
    add('hostnic', 'hostnic-rc_pingpong-4KiB', 'ibv_rc_pingpong',
        ['-g', '1', '-c', '-n', '50', '-s', '4096'], 'pingpong',
        mode='hostnic')
    for prog in ('ib_write_bw', 'ib_read_bw', 'ib_send_bw'):
        add('hostnic', 'hostnic-%s-4KiB' % prog[3:], prog,
            ['-x', '1', '-F', '-s', '4096', '-n', '200'] + reads_args(prog),
            'bw', mode='hostnic')
    # ... and on its af_packet path, the kernel kept quiet by sroce's own
    # nftables table (iface_nft) instead of the lab's
    for prog, args in (('ibv_rc_pingpong', ['-g', '1', '-c', '-n', '50',
                                            '-s', '4096']),
                       ('ib_write_bw', ['-x', '1', '-F', '-s', '4096',
                                        '-n', '200'])):
        add('hostnic', 'hostnic-afp-%s-4KiB' % prog.split('_', 1)[1], prog,
            args, 'pingpong' if 'pingpong' in prog else 'bw',
            mode='hostnic', conf=['iface_mode = af_packet', 'iface_nft = yes'])
    add('hostnic', 'hostnic-rping', 'rping', [], 'cm', expect=['cm'],
        mode='hostnic',
        cm=(['-s', '-a', '{me}', '-V', '-v', '-C', '20'],
            ['-c', '-a', '{peer}', '-V', '-v', '-C', '20'],
            r'ping data: rdma-ping-19:'))
    return out


# ------------------------------------------------------------- one scenario
