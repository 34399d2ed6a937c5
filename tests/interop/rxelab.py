#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""rxelab.py - the rxe-vm lab as interop.py drives it (../shared/rxe-vm):
build, network mode, guest, jobs in the guest, the bridge capture, the
guest's rxe counters, and the lab's own nftables rule (group hostnic).
"""
import os
import re
import signal
import subprocess
import time

NS = os.environ.get('RXEVM_NETNS', 'rxelab')
RXEVM_DIR = os.environ.get('RXEVM_DIR', '/var/tmp/rxe-vm')
HOST_IP = '10.77.0.100'         # sroce's address on rxehost0 (both modes)
GUEST = 1
OOB_PORT = 18515
SNAPLEN = 2048                  # the lab's MTU is 1500: no frame is cut


def run(cmd, timeout=None, check=False, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True, timeout=timeout,
                          check=check, **kw)


class Lab:
    def __init__(self, rxevm):
        self.rxevm = rxevm
        self.jobs = os.path.join(RXEVM_DIR, 'run', 'g%d' % GUEST, 'share',
                                 'jobs')

    def vm(self, *args, timeout=120):
        return run([self.rxevm] + list(args), timeout=timeout)

    def ns(self, *args, timeout=30):
        return run(['ip', 'netns', 'exec', NS] + list(args), timeout=timeout)

    def ensure_built(self):
        if all(os.path.exists(os.path.join(RXEVM_DIR, f))
               for f in ('vmlinux', 'rootfs.ext4')):
            return
        build = os.path.join(os.path.dirname(self.rxevm), 'build.sh')
        log('lab: building the rxe-vm images (%s), a few minutes' % build)
        r = run([build], timeout=1800)
        if r.returncode != 0:
            raise LabError('build.sh failed:\n' + r.stdout[-3000:])

    def mode(self):
        r = run(['ip', 'netns', 'list'])
        if not re.search(r'^%s\b' % NS, r.stdout, re.M):
            return None
        r = self.ns('ip', '-4', '-o', 'addr', 'show', 'dev', 'rxehost0')
        return 'kernel' if HOST_IP in r.stdout else 'pure'

    def ensure_net(self, mode):
        if self.mode() != mode:
            args = ['net-up'] + (['--no-host-ip'] if mode == 'pure' else [])
            r = self.vm(*args)
            if r.returncode != 0:
                raise LabError('rxe-vm %s failed:\n%s' % (' '.join(args), r.stdout))
        # LAB WORKAROUND: with arp_ignore=0 (the default) the namespace's
        # kernel also answers ARP for 10.77.0.100 on the bridge, with the
        # bridge's MAC; a guest that takes that answer sends its RoCEv2
        # frames to the bridge, where nobody reads them.  arp_ignore=1:
        # answer only on the interface that owns the address.
        self.ns('sysctl', '-qw', 'net.ipv4.conf.all.arp_ignore=1')

    def guest_running(self):
        pidf = os.path.join(RXEVM_DIR, 'run', 'g%d' % GUEST, 'qemu.pid')
        try:
            with open(pidf) as f:
                os.kill(int(f.read().strip()), 0)
            return True
        except (OSError, ValueError):
            return False

    def ensure_guest(self):
        if self.guest_running():
            return
        r = self.vm('start', str(GUEST), '--rxe', timeout=180)
        if r.returncode != 0:
            raise LabError('guest start failed:\n' + r.stdout)
        log('lab: ' + r.stdout.strip().splitlines()[-1])

    def setup(self, mode):
        self.ensure_built()
        self.ensure_net('kernel' if mode == 'hostnic' else mode)
        self.ensure_guest()

    # The lab's udp/4791 drop rule ('net-up' installs table inet rxelab):
    # away while sroce runs on iface:rxehost0, then put back as it was.
    LAB_NFT_TABLE = ('inet', 'rxelab')

    def nft_lab_rule_off(self):
        r = self.ns('nft', 'list', 'table', *self.LAB_NFT_TABLE)
        if r.returncode != 0:
            return None         # not there: nothing to put back
        d = self.ns('nft', 'delete', 'table', *self.LAB_NFT_TABLE)
        if d.returncode != 0:
            raise LabError('nft delete table failed: ' + d.stdout)
        return r.stdout

    def nft_lab_rule_on(self, saved):
        if saved is None:
            return
        r = subprocess.run(['ip', 'netns', 'exec', NS, 'nft', '-f', '-'],
                           input=saved, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, universal_newlines=True,
                           timeout=30)
        if r.returncode != 0:
            raise LabError('nft restore failed: ' + r.stdout)

    # Group cc: a bridge-family table that marks CE on RoCEv2 frames from
    # src to dst (the IPv4 checksum is fixed up; the ICRC does not cover
    # the ECN bits).
    CE_NFT_TABLE = ('bridge', 'sroce_cc')

    def nft_ce_on(self, src, dst):
        self.nft_ce_off()
        rules = ('table %s %s {\n chain cemark {\n  type filter hook forward '
                 'priority 0; policy accept;\n  ip saddr %s ip daddr %s udp '
                 'dport 4791 ip ecn set ce\n }\n}\n' %
                 (self.CE_NFT_TABLE[0], self.CE_NFT_TABLE[1], src, dst))
        r = subprocess.run(['ip', 'netns', 'exec', NS, 'nft', '-f', '-'],
                           input=rules, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, universal_newlines=True,
                           timeout=30)
        if r.returncode != 0:
            raise LabError('nft (CE marking) failed: ' + r.stdout)

    def nft_ce_off(self):
        self.ns('nft', 'delete', 'table', *self.CE_NFT_TABLE)

    def revive(self):
        """A guest whose agent no longer answers is restarted."""
        rc, out = self.exec('true', timeout=20)
        if rc == 0:
            return
        log('lab: guest %d does not answer (%s): restarting it' % (GUEST, out.strip()))
        self.vm('stop', str(GUEST), timeout=120)
        self.ensure_guest()

    def down(self):
        return self.vm('net-down', timeout=180)

    # jobs in the guest
    def bg(self, shell):
        r = self.vm('bg', str(GUEST), '--', shell)
        if r.returncode != 0:
            raise LabError('rxe-vm bg failed: ' + r.stdout)
        return r.stdout.strip()

    def job_rc(self, jid):
        try:
            with open(os.path.join(self.jobs, jid + '.rc')) as f:
                return int(f.read().strip() or '255')
        except (OSError, ValueError):
            return None

    def job_out(self, jid):
        try:
            with open(os.path.join(self.jobs, jid + '.out'),
                      errors='replace') as f:
                return f.read()
        except OSError:
            return ''

    def job_kill(self, jid):
        self.vm('kill', str(GUEST), jid)

    def exec(self, shell, timeout=60):
        r = self.vm('exec', str(GUEST), '-t', str(timeout), '--', shell,
                    timeout=timeout + 30)
        return r.returncode, r.stdout

    # Capture on the bridge: every frame between sroce and the guest.  Not
    # 'rxe-vm capture' (tcpdump -U: a write per frame, 16 MiB ring): that
    # loses frames of a 1 MiB burst.  A 128 MiB ring, buffered writes, and
    # immediate mode (else the last block waits a second for its timeout);
    # immediate mode retires a ring block per frame, so the snap length
    # (the lab's frames are at most 1518 bytes) keeps blocks small and many.
    def capture_start(self, path):
        err = open(path + '.log', 'w+')
        p = subprocess.Popen(['ip', 'netns', 'exec', NS, 'tcpdump', '-Z', 'root',
                              '-i', 'rxebr0', '-s', str(SNAPLEN), '-B', '131072', '-n',
                              '--immediate-mode',
                              '-w', path, 'udp port 4791 or tcp port %d or arp or '
                              'icmp or icmp6' % OOB_PORT],
                             stdout=subprocess.DEVNULL, stderr=err,
                             start_new_session=True)
        for _ in range(100):
            err.seek(0)
            if 'listening on' in err.read() or p.poll() is not None:
                break
            time.sleep(0.05)
        return p, err

    def capture_stop(self, cap):
        p, err = cap
        time.sleep(0.2)      # the last frames through the bridge
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGINT)
            try:
                p.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
        err.seek(0)
        text = err.read()
        err.close()
        os.unlink(err.name)
        n = {}
        for what in ('captured', 'received by filter', 'dropped by kernel'):
            m = re.search(r'(\d+) packets %s' % what, text)
            n[what] = int(m.group(1)) if m else None
        # frames the kernel took but tcpdump never wrote count as lost too
        lost = None
        if None not in n.values():
            lost = n['dropped by kernel'] + n['received by filter'] - n['captured']
        return ' '.join(l for l in text.splitlines() if 'packets' in l), lost

    def rxe_counters(self):
        rc, out = self.exec('rdma statistic show link rxe0/1')
        toks = out.split()
        c = {}
        for i in range(len(toks) - 1):
            if re.fullmatch(r'[a-z_]+', toks[i]) and toks[i + 1].isdigit():
                c[toks[i]] = int(toks[i + 1])
        return c


class LabError(Exception):
    pass


def log(msg):
    print(msg, flush=True)
