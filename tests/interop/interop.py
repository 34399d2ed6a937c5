#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""interop.py - sroce against the Linux kernel's Soft-RoCE (rdma_rxe).

Suite 'interop'.  Debian's unmodified RDMA programs (ibverbs-utils,
perftest) run on the host with the drop-in libibverbs (LD_LIBRARY_PATH =
<build>/verbs-shim) on a DPDK net_af_packet port on the rxe-vm lab's veth
rxehost0, against the same programs on rdma_rxe in a QEMU guest
(../shared/rxe-vm).  Every scenario is captured on the lab bridge and the
capture must pass sroce-pcap (ICRC, well-formed) and tshark (no malformed
RoCE frame).  One line per scenario: PASS/FAIL, what ran, the figures.

  interop.py --build DIR [--out DIR] [--group G ...] [--only REGEX] [--list]
             [--keep]
  interop.py --build DIR --down          stop the guest, delete the namespace
  interop.py --table RESULTS...          result files as a Markdown table

Lab handling (rxelab.py): build.sh runs when its artifacts are missing, the lab network
comes up in the mode a group needs (kernel-assisted 'net-up' or pure
'net-up --no-host-ip'), guest 1 boots with rdma_rxe when it is not running.
Group 'hostnic' runs sroce on the new port kind instead (port =
iface:rxehost0, docs/host-nic.md: AF_XDP, or af_packet with one line why,
the interface's MAC and addresses, no mac/ipv4 keys) in kernel-assisted
mode without the lab's nftables table that drops udp/4791 (sroce must take
its frames from the kernel itself): the table is removed for each such
scenario and put back after it.
The guest is left running (the last meson test, interop_lab_down, stops it).

Everything stays inside the lab's namespace (rxelab): the host side runs
under 'ip netns exec rxelab'.  A failing scenario keeps its folder
(<out>/<scenario>/: bridge.pcap, sroce.pcap, sroce.out, rxe.out,
sroce.stats, checks.txt); a passing one keeps its outputs only (--keep:
the captures too).
"""
import argparse
import glob
import os
import re
import shutil
import signal
import subprocess
import sys
import time

from rxelab import (GUEST, HOST_IP, NS, OOB_PORT, Lab, LabError, log,
                    run)
from scenarios import MCAST_GROUP, scenarios

HOST_MAC = '02:00:0a:4d:00:64'
HOST_IP6 = 'fe80::aff:fe4d:64'  # sroce's link-local GID 0 (from the MAC)
BRIDGE_IP = '10.77.0.1'         # the namespace kernel's TCP address, pure mode
GUEST_IP = '10.77.0.11'
GUEST_MAC = '52:54:00:4d:00:11'
MAX_CHECKED_CAPTURE = 100 << 20  # a scenario moves ~10 MB at most

# tshark heuristics on InfiniBand payloads that are not RoCE: each would
# take arbitrary SEND/WRITE payloads for its own protocol (RPC-over-RDMA,
# SDP, iSER, ...; eth_over_ib reads any payload whose first bytes look like
# an EtherType and two zero bytes as an encapsulated frame) and call them
# malformed.
TSHARK_NOT_ROCE_HEURISTICS = ['rpcrdma_infiniband', 'sdp_infiniband',
                              'iser_infiniband', 'lnet_ib',
                              'smb_direct_infiniband', 'smcr_infiniband',
                              'mellanox_eoib', 'eth_over_ib', 'fc_infiniband']


# ------------------------------------------------------------- one scenario

class Scenario:
    def __init__(self, sc, lab, tools, out):
        self.sc = sc
        self.lab = lab
        self.tools = tools
        self.dir = os.path.join(out, sc['name'].replace('/', '.'))
        self.problems = []
        self.notes = []

    def path(self, f):
        return os.path.join(self.dir, f)

    def write_config(self):
        if self.sc['mode'] == 'hostnic':
            # the interface's MAC, addresses and MTU (no keys for them)
            lines = ['# written by tests/interop/interop.py',
                     'port = iface:rxehost0',
                     'capture = ' + self.path('sroce.pcap'),
                     'stats_dir = ' + self.dir] + self.sc['conf']
            lines += ['fault = ' + f for f in self.sc['faults']]
            with open(self.path('sroce.conf'), 'w') as f:
                f.write('\n'.join(lines) + '\n')
            return
        lines = ['# written by tests/interop/interop.py',
                 # the default ring (512 frames) overflows while sroce
                 # waits for a core on a busy machine: a 1 MiB message
                 # lost frames before sroce saw them
                 'port = net_af_packet0,iface=rxehost0,framecnt=4096',
                 'mac = ' + HOST_MAC,
                 'ipv4 = %s/24' % HOST_IP,
                 'mtu = 1500',
                 'capture = ' + self.path('sroce.pcap'),
                 'stats_dir = ' + self.dir]
        lines += ['fault = ' + f for f in self.sc['faults']]
        with open(self.path('sroce.conf'), 'w') as f:
            f.write('\n'.join(lines) + '\n')

    def daemon_start(self):
        """Mode sroced: the daemon on the scenario's configuration."""
        sock = self.path('sroced.sock')
        self.daemon_out = open(self.path('sroced.out'), 'w')
        env = {k: v for k, v in os.environ.items() if k != 'LD_LIBRARY_PATH'}
        self.daemon = subprocess.Popen(
            ['ip', 'netns', 'exec', NS, self.tools['sroced'], '--foreground',
             '--verbose', '--config', self.path('sroce.conf'), '--socket',
             sock, '--run-dir', self.path('sroced.run')],
            env=env, stdout=self.daemon_out, stderr=subprocess.STDOUT,
            start_new_session=True)
        for _ in range(100):
            with open(self.path('sroced.out'), errors='replace') as f:
                if 'serving' in f.read():
                    return sock
            if self.daemon.poll() is not None:
                break
            time.sleep(0.1)
        self.problems.append('sroced did not start')
        return sock

    def daemon_stop(self):
        d = getattr(self, 'daemon', None)
        if d is None:
            return
        if d.poll() is not None:
            self.problems.append('sroced exited %s during the scenario' % d.returncode)
        else:
            os.killpg(d.pid, signal.SIGTERM)
            try:
                d.wait(15)
            except subprocess.TimeoutExpired:
                os.killpg(d.pid, signal.SIGKILL)
                d.wait()
        self.daemon_out.close()
        self.daemon = None

    def sroce_start(self, host):
        sc = self.sc
        env = dict(os.environ, SROCE_CONFIG=self.path('sroce.conf'),
                   LD_LIBRARY_PATH=self.tools['shim'] + ':' +
                   self.tools['rdmacm'], SROCE_CM_TRACE='1')
        if sc['mode'] == 'sroced':
            del env['SROCE_CONFIG']
            env['SROCE_DAEMON'] = self.daemon_start()
        if sc['sroce_prog']:
            # a program of ours on the NDK/ND2 shims: no drop-in libraries
            # (its EAL would load the drop-in libibverbs)
            del env['LD_LIBRARY_PATH']
            cmd = ['ip', 'netns', 'exec', NS, self.tools[sc['sroce_prog']]] + \
                self.cm_args(host is None, me=HOST_IP, peer=host)
        elif sc['cm']:
            cmd = ['ip', 'netns', 'exec', NS, sc['prog']] + self.cm_args(
                host is None, me=HOST_IP, peer=host)
        else:
            cmd = ['ip', 'netns', 'exec', NS, sc['prog'], '-d', 'sroce0'] + sc['args']
            if host:
                cmd.append(host)
        self.sroce_out = open(self.path('sroce.out'), 'w')
        self.sroce_out.write('$ %s LD_LIBRARY_PATH=%s %s\n' %
                             ('SROCE_DAEMON=' + env['SROCE_DAEMON']
                              if 'SROCE_DAEMON' in env else
                              'SROCE_CONFIG=' + env['SROCE_CONFIG'],
                              env.get('LD_LIBRARY_PATH', ''),
                              ' '.join(cmd)))
        self.sroce_out.flush()
        self.sroce = subprocess.Popen(cmd, env=env, stdout=self.sroce_out,
                                      stderr=subprocess.STDOUT,
                                      start_new_session=True)
        self.stats_fd = None

    def hold_stats(self):
        """The device unlinks its stats file at close: keep it open."""
        if self.stats_fd is None:
            g = glob.glob(self.path('sroce-%d-*.stats' % self.sroce.pid))
            if not g:
                # ip netns exec execs the program: same pid, but be lenient
                g = glob.glob(self.path('sroce-*-*.stats'))
            if g:
                try:
                    self.stats_fd = open(g[0], 'rb')
                except OSError:
                    pass

    def save_stats(self):
        if self.stats_fd is None:
            return None
        self.stats_fd.seek(0)
        data = self.stats_fd.read()
        self.stats_fd.close()
        with open(self.path('sroce.stats'), 'wb') as f:
            f.write(data)
        r = run([self.tools['stat'], '-f', self.path('sroce.stats')])
        with open(self.path('sroce-stat.txt'), 'w') as f:
            f.write(r.stdout)
        c = {}
        for line in r.stdout.splitlines():
            m = re.match(r'\s+([a-z_0-9]+)\s+(\d+)$', line)
            if m:
                c[m.group(1)] = c.get(m.group(1), 0) + int(m.group(2))
        return c

    def cm_args(self, server, me, peer):
        srv, cli, _ = self.sc['cm']
        return [a.format(me=me, peer=peer) for a in (srv if server else cli)]

    def sroce_listening(self):
        if self.sc['cm']:
            # an rdma_cm server has no socket to see: the device is up and
            # listening once its port has been open a moment
            if not hasattr(self, 'cm_t0'):
                self.cm_t0 = time.monotonic()
            return time.monotonic() - self.cm_t0 > 2.0
        r = self.lab.ns('ss', '-Hltn', 'sport = :%d' % OOB_PORT)
        return r.stdout.strip() != ''

    def guest_cmd(self, host):
        sc = self.sc
        t = sc['timeout']
        if sc['cm']:
            cmd = '%s %s' % (sc['prog'], ' '.join(
                self.cm_args(host is None, me=GUEST_IP, peer=host)))
            if host:
                return 'timeout -k 5 %d %s' % (t, cmd)
            # a server: say when the kernel's rdma_cm has its listener
            return ('timeout -k 5 %d %s & p=$!; i=0; while [ $i -lt 300 ] && '
                    '! rdma res show cm_id | grep -q %s; do sleep 0.1; '
                    'i=$((i+1)); done; echo "@LISTENING"; wait $p'
                    % (t, cmd, sc['ready']))
        cmd = '%s -d rxe0 %s' % (sc['prog'], ' '.join(sc['args']))
        if host:
            cmd += ' ' + host
            return 'timeout -k 5 %d %s' % (t, cmd)
        # a server: say when it listens, so that sroce connects only then
        return ('timeout -k 5 %d %s & p=$!; i=0; while [ $i -lt 300 ] && '
                '! ss -Hltn "sport = :%d" | grep -q .; do sleep 0.1; '
                'i=$((i+1)); done; echo "@LISTENING"; wait $p' %
                (t, cmd, OOB_PORT))

    def run(self):
        sc, lab = self.sc, self.lab
        shutil.rmtree(self.dir, ignore_errors=True)
        os.makedirs(self.dir)
        self.write_config()
        lab.setup('kernel' if sc['mode'] == 'sroced' else sc['mode'])
        saved_nft = lab.nft_lab_rule_off() if sc['mode'] == 'hostnic' else None
        if 'cnp' in sc['expect']:
            lab.nft_ce_on(GUEST_IP, HOST_IP)
            self.notes.append('rxe->sroce frames marked CE on the bridge')
        try:
            return self.run_lab(saved_nft)
        finally:
            if 'cnp' in sc['expect']:
                lab.nft_ce_off()
            lab.nft_lab_rule_on(saved_nft)

    def run_lab(self, saved_nft):
        sc, lab = self.sc, self.lab
        if saved_nft is not None:
            self.notes.append('lab nft rule off')
        if 'arp' in sc['expect']:
            lab.exec('ip neigh flush dev eth0')
        before = lab.rxe_counters() if 'retransmit' in sc['expect'] else None
        self.capture = lab.capture_start(self.path('bridge.pcap'))
        t0 = time.monotonic()          # the programs' time, lab set-up apart
        host_for_guest = BRIDGE_IP if sc['mode'] == 'pure' else HOST_IP
        deadline = time.monotonic() + sc['timeout'] + 30
        jid = None
        try:
            if sc['role'] == 'server':
                self.sroce_start(None)
                while time.monotonic() < deadline and self.sroce.poll() is None:
                    self.hold_stats()
                    if self.sroce_listening():
                        break
                    time.sleep(0.1)
                jid = lab.bg(self.guest_cmd(host_for_guest))
            else:
                jid = lab.bg(self.guest_cmd(None))
                while time.monotonic() < deadline and lab.job_rc(jid) is None:
                    if '@LISTENING' in lab.job_out(jid):
                        break
                    time.sleep(0.1)
                self.sroce_start(GUEST_IP)
            killed = False
            while time.monotonic() < deadline:
                self.hold_stats()
                if sc['kill'] and not killed and self.sroce.poll() is None:
                    with open(self.path('sroce.out'), errors='replace') as f:
                        if re.search(sc['kill'][0], f.read()):
                            os.killpg(self.sroce.pid, signal.SIGKILL)
                            killed = True
                            self.notes.append('sroce side killed -9 mid-run')
                if self.sroce.poll() is not None and lab.job_rc(jid) is not None:
                    break
                time.sleep(0.1)
        finally:
            self.finish(jid)
        self.elapsed = time.monotonic() - t0
        text, dropped = lab.capture_stop(self.capture)
        with open(self.path('capture.txt'), 'w') as f:
            f.write(text)
        if dropped != 0:
            self.problems.append('bridge capture incomplete: %s' % text.strip())
        self.check_all(before)
        return not self.problems

    def finish(self, jid):
        if getattr(self, 'sroce', None) is not None:
            if self.sroce.poll() is None:
                self.problems.append('sroce side still running at the deadline (killed)')
                try:
                    os.killpg(self.sroce.pid, signal.SIGTERM)
                    self.sroce.wait(5)
                except (OSError, subprocess.TimeoutExpired):
                    os.killpg(self.sroce.pid, signal.SIGKILL)
                    self.sroce.wait()
            self.sroce_out.close()
        self.daemon_stop()
        if jid is not None:
            if self.lab.job_rc(jid) is None:
                self.problems.append('rxe side still running at the deadline (killed)')
                self.lab.job_kill(jid)
                for _ in range(50):
                    if self.lab.job_rc(jid) is not None:
                        break
                    time.sleep(0.1)
            with open(self.path('rxe.out'), 'w') as f:
                f.write('$ (guest %d) %s\n' % (GUEST, self.guest_cmd(
                    None if self.sc['role'] == 'client' else
                    BRIDGE_IP if self.sc['mode'] == 'pure' else HOST_IP)))
                f.write(self.lab.job_out(jid))
                f.write('\nexit %s\n' % self.lab.job_rc(jid))
        self.jid = jid
        self.sroce_counters = self.save_stats()

    # ----------------------------------------------------------- checks
    def check_all(self, before):
        sc = self.sc
        s_rc = self.sroce.returncode if getattr(self, 'sroce', None) else None
        g_rc = self.lab.job_rc(self.jid) if self.jid else None
        if s_rc != 0 and not (sc['kill'] and s_rc == -signal.SIGKILL):
            self.problems.append('sroce side exit %s' % s_rc)
        if g_rc != 0 and not sc['kill']:
            # (after a kill the rxe side's program ends in an error)
            self.problems.append('rxe side exit %s' % g_rc)
        with open(self.path('sroce.out'), errors='replace') as f:
            s_out = f.read()
        g_out = self.lab.job_out(self.jid) if self.jid else ''
        if sc['kill'] and not re.search(sc['kill'][1], g_out):
            self.problems.append('rxe side lacks /%s/ after the kill' % sc['kill'][1])
        client_out = s_out if sc['role'] == 'client' else g_out
        self.figures = self.parse_figures(client_out, s_out, g_out)
        self.check_pcap()
        if 'retransmit' in sc['expect']:
            self.check_retransmit(before)
        if 'arp' in sc['expect']:
            self.check_arp()
        if 'cm' in sc['expect']:
            self.check_cm()
        if 'cnp' in sc['expect']:
            self.check_cnp()
        if 'mcast' in sc['expect']:
            self.check_mcast()
        if sc['mode'] == 'hostnic':
            # the path the port took, as sroce-stat names the port
            try:
                with open(self.path('sroce-stat.txt')) as f:
                    m = re.search(r' port \d+ net_(af_xdp|af_packet)', f.read())
            except OSError:
                m = None
            self.notes.append('path ' + (m.group(1) if m else 'unknown'))
            want = 'af_packet' if 'iface_mode = af_packet' in sc['conf'] \
                else 'af_xdp'
            if m and m.group(1) != want:
                self.problems.append('port on %s, want %s' % (m.group(1), want))
        if self.problems and g_rc is not None and g_rc != 0:
            # a failed rxe process may leave a QP that retransmits forever
            # (rxe treats retry_cnt 7 as infinite): make sure none is left
            self.lab.exec('pkill -x %s; sleep 0.5; rdma res show qp' % sc['prog'])

    def parse_figures(self, client_out, s_out, g_out):
        sc = self.sc
        if sc['kind'] == 'cm':
            if not re.search(sc['cm'][2], client_out):
                self.problems.append('client output lacks /%s/' % sc['cm'][2])
            if sc['sroce_prog']:
                return '%s on sroce (IND2 over the CM)' % sc['sroce_prog']
            return 'CM events at sroce: ' + ' '.join(sorted(set(
                re.findall(r'^sroce-cm: (\w+)', s_out, re.M))))
        if sc['kind'] == 'pingpong':
            figs = []
            for who, out in (('sroce', s_out), ('rxe', g_out)):
                if not re.search(r'\d+ iters in [\d.]+ seconds', out):
                    self.problems.append('%s side: no "iters in" line' % who)
            m = re.search(r'(\d+) iters in [\d.]+ seconds = ([\d.]+) usec/iter',
                          client_out)
            if m:
                figs.append('%s iters, %.0f us/iter' % (m.group(1), float(m.group(2))))
            return ', '.join(figs)
        rows = re.findall(r'^\s*(\d+)\s+(\d+)\s+([\d.]+|inf)\s+([\d.]+|inf)\s+'
                          r'([\d.]+|inf)(?:\s+([\d.]+|inf))?.*$', client_out, re.M)
        if not rows:
            self.problems.append('perftest client printed no result row')
            return ''
        r = rows[-1]
        if sc['kind'] == 'bw':
            # #bytes #iterations BW peak[MB/sec] BW average[MB/sec] MsgRate[Mpps]
            return '%s MB/s, %.0f msg/s' % (r[3], float(r[4]) * 1e6)
        # #bytes #iterations t_min t_max t_typical t_avg ...
        return 'typical %s us, min %s us' % (r[4], r[2])

    def pcap_summary(self, f):
        r = run([self.tools['pcap'], '--summary', f])
        m = re.search(r'RoCEv2: (\d+) packets, ICRC ok (\d+), bad (\d+), '
                      r'malformed (\d+)', r.stdout)
        if not m:
            return r.returncode, None, r.stdout
        return r.returncode, tuple(int(x) for x in m.groups()), r.stdout

    def check_pcap(self):
        bridge = self.path('bridge.pcap')
        if not os.path.exists(bridge):
            self.problems.append('no bridge capture')
            return
        size = os.path.getsize(bridge)
        if size > MAX_CHECKED_CAPTURE:
            # a runaway (a side retransmitting for minutes): reading it would
            # take longer than the whole suite; it stays for diagnosis
            self.problems.append('bridge capture of %d MB not checked' % (size >> 20))
            return
        rc, s, text = self.pcap_summary(bridge)
        with open(self.path('checks.txt'), 'w') as f:
            f.write('sroce-pcap --summary bridge.pcap (exit %d)\n%s\n' % (rc, text))
        if s is None:
            self.problems.append('sroce-pcap: no summary (exit %d)' % rc)
            return
        pkts, ok, bad, malformed = s
        self.pcap_counts = s
        corrupted = (self.sroce_counters or {}).get('fault_corrupt', 0)
        if pkts == 0:
            self.problems.append('no RoCEv2 frame on the bridge')
        if malformed:
            self.problems.append('sroce-pcap: %d malformed frames' % malformed)
        if 'tx corrupt' in ' '.join(self.sc['faults']):
            # the only bad ICRCs are the ones sroce made on purpose
            if bad > corrupted:
                self.problems.append('sroce-pcap: %d bad ICRC, sroce corrupted %d'
                                     % (bad, corrupted))
        elif rc != 0 or bad:
            self.problems.append('sroce-pcap: exit %d, %d bad ICRC' % (rc, bad))
        # tshark, one pass: every UDP/4791 frame decodes as RoCE (a BTH),
        # none is malformed or carries an error
        # (UDP checksums verified: a non-zero one must be right)
        targs = ['tshark', '-n', '-r', bridge, '-o', 'udp.check_checksum:TRUE']
        for h in TSHARK_NOT_ROCE_HEURISTICS:
            targs += ['--disable-heuristic', h]
        r = run(targs + ['-T', 'fields', '-E', 'separator=/t', '-E', 'occurrence=a',
                         '-E', 'aggregator=|',
                         '-e', 'frame.number', '-e', 'udp.dstport',
                         '-e', 'infiniband.bth.opcode', '-e', '_ws.malformed',
                         '-e', '_ws.expert.severity', '-e', '_ws.col.Info',
                         '-e', 'arp.opcode', '-e', 'arp.src.hw_mac',
                         '-e', 'arp.src.proto_ipv4', '-e', 'arp.dst.proto_ipv4',
                         '-e', '_ws.expert.message', '-e', 'ipv6.src',
                         '-e', 'ip.src', '-e', 'infiniband.bth.psn',
                         '-e', 'infiniband.atomicacketh.origremdt'],
                timeout=180)
        rows = [l.split('\t') for l in r.stdout.splitlines() if l.count('\t') >= 14]
        self.tshark_rows = rows

        def errors(x):
            # expert severity 0x00800000 = error (epan/proto.h PI_ERROR).
            # rxe sends UDP checksum 0 over IPv6 too (rxe_net.c
            # prepare_udp_hdr); tshark calls that illegal (RFC 8200).
            # Tolerated from the guest, counted, never from sroce.
            sev = [int(v, 0) for v in x[4].split('|') if v]
            msg = x[10].split('|') if x[10] else []
            out = []
            for i, v in enumerate(sev):
                m = msg[i] if i < len(msg) else ''
                if v < 0x00800000:
                    continue
                if m.startswith('Illegal checksum value (0)') and \
                        x[11] not in ('', HOST_IP6):
                    continue
                out.append(m or 'error')
            return out

        bad = [x for x in rows if x[3] or errors(x)]
        zero6 = sum(1 for x in rows if x[11] and x[11] != HOST_IP6 and
                    'Illegal checksum value (0)' in x[10])
        if zero6:
            self.notes.append('rxe: %d IPv6 frames with UDP checksum 0' % zero6)
        undecoded = [x for x in rows if x[1] == '4791' and not x[2]]
        with open(self.path('checks.txt'), 'a') as f:
            f.write('tshark: %d frames, %d UDP/4791, %d malformed or error, '
                    '%d UDP/4791 not decoded as InfiniBand, %d IPv6 frames of '
                    'rxe with UDP checksum 0 (tolerated)\n' %
                    (len(rows), sum(x[1] == '4791' for x in rows), len(bad),
                     len(undecoded), zero6))
            for x in (bad + undecoded)[:50]:
                f.write('  frame %s: %s %s\n' % (x[0], x[5], errors(x)))
        if r.returncode != 0 or not rows:
            self.problems.append('tshark failed: ' + r.stdout[-300:])
        if bad and 'tx corrupt' not in ' '.join(self.sc['faults']):
            self.problems.append('tshark: %d malformed/error frames' % len(bad))
        elif bad:
            # only ICRC errors, which sroce made on purpose, are allowed
            other = [x for x in bad if x[3]]
            if other:
                self.problems.append('tshark: %d malformed frames' % len(other))
        if undecoded:
            self.problems.append('tshark: %d UDP/4791 frames not decoded as RoCE'
                                 % len(undecoded))
        self.check_atomic_replay(rows)

    def check_atomic_replay(self, rows):
        """A responder answers a repeated atomic from its memory of the
        first execution (IBA ch. 9, duplicate atomic requests): every ATOMIC
        ACKNOWLEDGE of one PSN carries the same original value, or the
        atomic ran twice."""
        answers = {}
        for x in rows:
            if x[2] == '18' and x[14]:          # RC ATOMIC ACKNOWLEDGE
                answers.setdefault((x[12] or x[11], x[13]), set()).add(x[14])
        twice = [k for k, v in answers.items() if len(v) > 1]
        if twice:
            self.problems.append('atomic executed twice: %d PSNs answered with '
                                 'different original values (%s ...)' %
                                 (len(twice), twice[0]))
        dup = sum(1 for x in rows if x[2] == '18') - len(answers)
        if dup > 0:
            self.notes.append('%d atomic responses repeated, all consistent' % dup
                              if not twice else '%d atomic responses repeated' % dup)

    def retransmissions(self):
        """Frames each side sent again (same QP, PSN and opcode; ACKs not
        counted), from the bridge capture."""
        r = run([self.tools['pcap'], self.path('bridge.pcap')], timeout=120)
        seen = set()
        again = {}
        for line in r.stdout.splitlines():
            m = re.match(r'\S+ (\S+) > (\S+) udp \S+ \S+ (\S+) qp=(\S+) psn=(\d+)',
                         line)
            if not m or m.group(3) == 'ACKNOWLEDGE':
                continue
            if m.groups() in seen:
                again[m.group(1)] = again.get(m.group(1), 0) + 1
            seen.add(m.groups())
        return again.get(HOST_IP, 0), again.get(GUEST_IP, 0)

    def check_cnp(self):
        """sroce answered the CE marks with CNPs to rxe: sroce counted CE
        frames (the bridge capture sees rxe's frames before the forward
        hook marks them), and the capture holds CNPs from sroce, each
        decoded with its 16 reserved bytes zero."""
        r = run([self.tools['pcap'], self.path('bridge.pcap')], timeout=120)
        cnps = [l for l in r.stdout.splitlines() if ' CNP[' in l]
        ours = [l for l in cnps if l.split()[1:2] == [HOST_IP]]
        bad = [l for l in cnps if 'reserved=zero' not in l]
        s = self.sroce_counters or {}
        ce = s.get('xport_ce_rcvd', 0)
        with open(self.path('cnp.txt'), 'w') as f:
            f.write('CE-marked frames sroce received %d, CNPs from sroce %d, '
                    'malformed CNPs %d\n' % (ce, len(ours), len(bad)))
            f.write('\n'.join(cnps[:20]) + '\n')
        if ce == 0:
            self.problems.append('sroce received no CE-marked frame')
        if not ours:
            self.problems.append('no CNP from sroce on the bridge')
        if bad:
            self.problems.append('%d CNPs with reserved bytes not zero' % len(bad))
        self.notes.append('sroce: ce_rcvd %d, cnp_sent %s; CNPs on the bridge %d'
                          % (ce, s.get('xport_cnp_sent', '?'), len(ours)))

    def check_retransmit(self, before):
        sc = self.sc
        after = self.lab.rxe_counters()
        keys = ('duplicate_request', 'out_of_seq_request', 'rcvd_seq_err',
                'completer_retry_err', 'retry_exceeded_err')
        d = {k: after.get(k, 0) - (before or {}).get(k, 0) for k in keys}
        s = self.sroce_counters or {}
        sroce_retx, rxe_retx = self.retransmissions()
        with open(self.path('counters.txt'), 'w') as f:
            f.write('rxe counters (difference): %s\n' % d)
            f.write('sroce counters: %s\n' % {k: v for k, v in s.items() if v})
            f.write('frames sent again (bridge capture): sroce %d, rxe %d\n' %
                    (sroce_retx, rxe_retx))
        injected = s.get('fault_drop', 0) + s.get('fault_corrupt', 0)
        if injected == 0:
            self.problems.append('sroce injected no fault (stats: %s)' %
                                 ('none' if not s else 'fault counters 0'))
        # Who carries the data: the requester of WRITE/SEND is the client,
        # of READ the server sends the responses.  When sroce sends data,
        # its faults must show: rxe's responder sees gaps or duplicates and
        # sroce sends frames again.  When sroce sends only ACKs, a lost ACK
        # is often covered by the next one: nothing to require.
        sroce_sends_data = (sc['role'] == 'client') != (sc['prog'] == 'ib_read_bw')
        if sroce_sends_data:
            # rxe as responder counts gaps and duplicates; as the READ
            # requester it counts its retries (completer_retry_err)
            if d['duplicate_request'] + d['out_of_seq_request'] + \
                    d['completer_retry_err'] == 0:
                self.problems.append('rxe counters show no recovery: %s' % d)
            if sroce_retx == 0:
                self.problems.append('sroce sent no frame again')
        if d['retry_exceeded_err']:
            self.problems.append('rxe exhausted its retries')
        self.notes.append('sroce %s %d of its frames; resent: sroce %d, rxe %d; '
                          'rxe counters %s' % (
                              'dropped' if s.get('fault_drop') else 'corrupted',
                              injected, sroce_retx, rxe_retx,
                              ' '.join('%s +%d' % (k, v) for k, v in d.items() if v)
                              or 'unchanged'))

    def check_arp(self):
        """No static entry anywhere (pure mode, the guest's cache flushed):
        one side asks, the other answers; the one asked learns the asker
        from the request (RFC 826), so one exchange per run, in the
        direction of the first frame."""
        rows = [(x[6], x[7], x[8], x[9]) for x in getattr(self, 'tshark_rows', [])
                if x[6]]
        guest_asks = any(x[0] == '1' and x[2] == GUEST_IP and x[3] == HOST_IP
                         for x in rows)
        sroce_answers = any(x[0] == '2' and x[1] == HOST_MAC and x[2] == HOST_IP
                            and x[3] == GUEST_IP for x in rows)
        sroce_asks = any(x[0] == '1' and x[1] == HOST_MAC and x[2] == HOST_IP
                         and x[3] == GUEST_IP for x in rows)
        guest_answers = any(x[0] == '2' and x[1] == GUEST_MAC and x[2] == GUEST_IP
                            and x[3] == HOST_IP for x in rows)
        done = []
        if guest_asks and sroce_answers:
            done.append('guest asked, sroce answered')
        if sroce_asks and guest_answers:
            done.append('sroce asked, guest answered')
        if guest_asks and not sroce_answers:
            self.problems.append('ARP: the guest asked for sroce, no answer')
        if sroce_asks and not guest_answers:
            self.problems.append('ARP: sroce asked for the guest, no answer')
        if not done:
            self.problems.append('ARP: no exchange between sroce and the guest')
        rc, out = self.lab.exec('ip neigh show %s' % HOST_IP)
        if 'PERMANENT' in out or HOST_MAC not in out:
            self.problems.append('ARP: guest entry for sroce: %s' % out.strip())
        self.notes.append('ARP: ' + ', '.join(done))

    def check_cm(self):
        """The handshake went over QP1, both ways, and tshark decodes every
        MAD as a CM message (check_pcap already refused malformed ones)."""
        rows = getattr(self, 'tshark_rows', [])
        mads = [x for x in rows if x[1] == '4791' and x[2] == '100']
        names = set()
        for x in mads:
            for n in ('ConnectRequest', 'ConnectReply', 'ReadyToUse',
                      'DisconnectRequest', 'DisconnectReply',
                      'ServiceIDResReq', 'ServiceIDResReqResp', 'ConnectReject'):
                if n in x[5]:
                    names.add(n)
        want = {'ServiceIDResReq', 'ServiceIDResReqResp'} \
            if self.sc['prog'] == 'udaddy' else {'ConnectRequest', 'ConnectReply'}
        if not want <= names:
            self.problems.append('CM on the bridge: %s, want %s' %
                                 (sorted(names), sorted(want)))
        else:
            self.notes.append('CM: ' + ' '.join(sorted(names)))

    def check_mcast(self):
        """The datagrams went to the group (QPN 0xFFFFFF), and sroce
        reported its membership with an IGMPv2 report and a leave that
        tshark decodes (its own capture: the bridge's starts after the
        join; the lab's bridge does no snooping, nothing else shows it)."""
        rows = getattr(self, 'tshark_rows', [])
        sender = HOST_IP if self.sc['role'] == 'client' else GUEST_IP
        grams = [x for x in rows if x[1] == '4791' and x[12] == sender and
                 x[2] in ('100', '101')]
        if len(grams) < 20:
            self.problems.append('multicast: %d datagrams from %s on the '
                                 'bridge, want 20' % (len(grams), sender))
        r = run(['tshark', '-n', '-r', self.path('sroce.pcap'), '-Y', 'igmp',
                 '-T', 'fields', '-e', 'ip.src', '-e', 'igmp.type',
                 '-e', 'igmp.maddr', '-e', '_ws.malformed'], timeout=60)
        igmp = [l.split('\t') for l in r.stdout.splitlines()]
        ours = [x for x in igmp if x[0] == HOST_IP]
        if any(len(x) > 3 and x[3] for x in ours):
            self.problems.append('IGMP from sroce: malformed')
        for t, what in (('0x16', 'v2 report'), ('0x17', 'leave')):
            if not any(x[1] == t and x[2] == MCAST_GROUP for x in ours):
                self.problems.append('IGMP: no %s for %s from sroce: %s'
                                     % (what, MCAST_GROUP, ours))
        self.notes.append('multicast: %d datagrams, IGMP from sroce %s' %
                          (len(grams), ' '.join(sorted(set(x[1] for x in ours)))))

    def line(self):
        sc = self.sc
        ok = not self.problems
        fig = getattr(self, 'figures', '')
        extra = '; '.join(self.notes)
        s = '%s %-36s sroce=%-6s %6.1fs  %s' % ('PASS' if ok else 'FAIL',
                                               sc['what'], sc['role'],
                                               self.elapsed, fig)
        if extra:
            s += ' [' + extra + ']'
        if not ok:
            s += '\n     ' + '\n     '.join(self.problems) + \
                '\n     (kept: %s)' % self.dir
        return s

    def tidy(self, keep):
        if self.problems or keep:
            return
        for f in ('bridge.pcap', 'sroce.pcap', 'sroce.stats'):
            try:
                os.unlink(self.path(f))
            except OSError:
                pass


# ------------------------------------------------------------- the table

GROUP_TITLES = {
    'pingpong': 'ibv_*_pingpong -c (buffers verified), IPv4-mapped GID',
    'rc': 'perftest over RC, IPv4-mapped GID',
    'uc_ud': 'perftest over UC and UD',
    'gid6': 'RoCEv2 over the IPv6 link-local GID (GID 0)',
    'recovery': 'recovery: sroce drops / corrupts 2 % of its frames',
    'arp': 'ARP, no static neighbour (pure mode)',
    'rdmacm': 'RDMA-CM: Debian\'s rdmacm-utils and perftest -R on the drop-in librdmacm; '
              'an ND2 program on the NDK/ND2 shims',
    'hostnic': 'the host\'s own NIC: port = iface:rxehost0 (no mac/ipv4 keys), '
               'no udp/4791 drop rule',
    'sroced': 'the shared device: sroced owns the lab port, the programs are its clients',
    'cc': 'congestion control on (dcqcn, ECT(0), the defaults): rxe->sroce frames '
          'marked CE on the bridge, sroce sends CNPs to rxe',
}


def table(files):
    """Markdown table of result files (one line per scenario and role)."""
    res = {}
    for fn in files:
        with open(fn) as f:
            for line in f:
                m = re.match(r'(PASS|FAIL) (\S+)\s+sroce=(\w+)\s+([\d.]+)s\s*(.*)$',
                             line.rstrip())
                if m:
                    res[(m.group(2), m.group(3))] = (m.group(1), m.group(5))
    out = ['| scenario | sroce server, rxe client | sroce client, rxe server |',
           '|---|---|---|']
    done = set()
    for sc in scenarios():
        if sc['what'] in done:
            continue
        cells = [res.get((sc['what'], r)) for r in ('server', 'client')]
        if not any(cells):
            continue
        roles = {x['role'] for x in scenarios() if x['what'] == sc['what']}
        if sc['group'] not in done:
            done.add(sc['group'])
            out.append('| **%s** | | |' % GROUP_TITLES[sc['group']])
        done.add(sc['what'])
        cmd = '`%s %s`' % (sc['prog'], ' '.join(
            sc['cm'][1] if sc['cm'] else sc['args']))
        if sc['sroce_prog']:
            # each role its own pair of programs: say which runs where
            srv, cli = sc['cm'][0], sc['cm'][1]
            cmd = 'sroce `%s %s`, rxe `%s %s`' % (
                sc['sroce_prog'], ' '.join(srv if sc['role'] == 'server' else cli),
                sc['prog'], ' '.join(cli if sc['role'] == 'server' else srv))
        if sc['faults']:
            cmd += ', sroce `fault = %s`' % '; '.join(sc['faults'])
        out.append('| %s | %s | %s |' % (cmd, *[
            '%s %s' % (c[0].lower(), c[1].replace('|', '/')) if c else
            'not run' if r in roles else
            '—' if sc['sroce_prog'] else 'excluded (below)'
            for c, r in zip(cells, ('server', 'client'))]))
    return '\n'.join(out)


# ------------------------------------------------------------- main

def main():
    here = os.path.dirname(os.path.abspath(__file__))
    src = os.path.dirname(os.path.dirname(here))
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--build', required=True, help='meson build folder')
    ap.add_argument('--out', help='artifacts (default BUILD/interop)')
    ap.add_argument('--group', action='append', help='run these groups')
    ap.add_argument('--only', help='regex on scenario names')
    ap.add_argument('--rxe-vm', default=os.environ.get(
        'RXEVM', os.path.join(src, '..', 'shared', 'rxe-vm', 'rxe-vm')))
    ap.add_argument('--list', action='store_true')
    ap.add_argument('--keep', action='store_true', help='keep passing captures')
    ap.add_argument('--down', action='store_true',
                    help='stop the guest and delete the lab network')
    ap.add_argument('--table', nargs='+', metavar='RESULTS',
                    help='print result files as a Markdown table')
    a = ap.parse_args()
    # meson's timeout sends SIGTERM: unwind, so that what a scenario took
    # from the shared lab (the hostnic group's nftables rule) is put back
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

    if a.table:
        log(table(a.table))
        return 0

    lab = Lab(os.path.abspath(a.rxe_vm))
    if a.down:
        r = lab.down()
        log(r.stdout.strip())
        return 0
    chosen = [s for s in scenarios()
              if (not a.group or s['group'] in a.group)
              and (not a.only or re.search(a.only, s['name']))]
    if a.list:
        for s in chosen:
            log('%-9s %-40s %s %s' % (s['group'], s['name'], s['prog'],
                                      ' '.join(s['args'])))
        return 0
    if not chosen:
        log('no scenario selected')
        return 2
    build = os.path.abspath(a.build)
    tools = dict(shim=os.path.join(build, 'verbs-shim'),
                 rdmacm=os.path.join(build, 'verbs-shim', 'rdmacm'),
                 pcap=os.path.join(build, 'tools', 'sroce-pcap', 'sroce-pcap'),
                 stat=os.path.join(build, 'tools', 'sroce-stat', 'sroce-stat'),
                 sroced=os.path.join(build, 'pmd', 'sroced'),
                 nd2_cm=os.path.join(build, 'tests', 'nd2', 'nd2_cm'))
    for k in ('pcap', 'stat'):
        if not os.access(tools[k], os.X_OK):
            log('missing %s (build first)' % tools[k])
            return 1
    if os.geteuid() != 0:
        log('SKIP: the lab needs root')
        return 77
    for prog in ('qemu-system-x86_64', 'tshark', 'tcpdump'):
        if shutil.which(prog) is None:
            log('missing %s: sh scripts/interop.sh installs the lab packages' % prog)
            return 1
    out = os.path.abspath(a.out or os.path.join(build, 'interop'))
    os.makedirs(out, exist_ok=True)
    summary = os.path.join(out, 'results-%s.txt' % (
        '-'.join(a.group) if a.group else 'all'))
    with open(summary, 'w'):
        pass

    failed = 0
    t0 = time.monotonic()
    for s in chosen:
        sc = Scenario(s, lab, tools, out)
        try:
            sc.run()
        except (LabError, subprocess.TimeoutExpired) as e:
            sc.problems.append('lab: %s' % e)
            sc.elapsed = 0.0
        line = sc.line()
        log(line)
        with open(summary, 'a') as f:
            f.write(line + '\n')
        failed += bool(sc.problems)
        sc.tidy(a.keep)
        if any('rxe side still running' in p for p in sc.problems):
            lab.revive()
    log('%d/%d scenarios passed in %.0f s' % (len(chosen) - failed, len(chosen),
                                              time.monotonic() - t0))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
