#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""conform_rxe.py - sroce-conform against Linux rxe in the rxe-vm lab.

The agent (sroce-conform-agent, plain libibverbs, built on this Debian 12
host: the guest runs the same release, so the binary and its one library,
libibverbs.so.1, are the guest's too) is copied into the guest's shared
folder and started there on rxe0, GID 1 (::ffff:10.77.0.11).  The tester
runs in the lab's namespace on a net_af_packet port on rxehost0 as
10.77.0.100 (kernel-assisted mode: the namespace's kernel answers ARP for
it and carries the TCP connection to the agent).

  conform_rxe.py --build DIR [--out DIR] [--only REGEX] [--findings FILE]

Exit status: the tester's (0: every mandatory scenario passed); with
--findings, 0 when the scenarios that did not pass are exactly the known
findings listed there (name and verdict), else 1 with the differences.
Run it under flock -o /tmp/rxelab.lock (the lab is shared).
"""
import argparse
import os
import shutil
import subprocess
import sys
import time

from rxelab import HOST_IP, NS, RXEVM_DIR, GUEST, Lab, LabError, log

HOST_MAC = '02:00:0a:4d:00:64'
GUEST_IP = '10.77.0.11'
AGENT_PORT = 7471


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--build', required=True)
    ap.add_argument('--out', default='/tmp/sroce-conform-rxe')
    ap.add_argument('--only')
    ap.add_argument('--findings')
    ap.add_argument('--rxevm', default=os.environ.get('RXEVM', os.path.join(
        os.path.dirname(os.path.abspath(__file__)), '..', '..', '..',
        'shared', 'rxe-vm', 'rxe-vm')))
    a = ap.parse_args()
    agent = os.path.join(a.build, 'tools', 'sroce-conform', 'sroce-conform-agent')
    tester = os.path.join(a.build, 'tools', 'sroce-conform', 'sroce-conform')
    for p in (agent, tester):
        if not os.path.exists(p):
            print('conform_rxe: %s is not built' % p)
            return 2
    if not os.path.exists(a.rxevm):
        print('SKIP: no rxe-vm lab at %s' % a.rxevm)
        return 77
    os.makedirs(a.out, exist_ok=True)
    lab = Lab(os.path.abspath(a.rxevm))
    try:
        lab.setup('kernel')
    except LabError as e:
        print('conform_rxe: lab: %s' % e)
        return 2
    share = os.path.join(RXEVM_DIR, 'run', 'g%d' % GUEST, 'share')
    shutil.copy(agent, os.path.join(share, 'sroce-conform-agent'))
    jid = lab.bg('/mnt/host/sroce-conform-agent --dev rxe0 --gid 1 '
                 '--port %d --once' % AGENT_PORT)
    conf = os.path.join(a.out, 'sroce.conf')
    with open(conf, 'w') as f:
        f.write('\n'.join([
            '# written by tests/interop/conform_rxe.py',
            'port = net_af_packet0,iface=rxehost0,framecnt=4096',
            'mac = ' + HOST_MAC, 'ipv4 = %s/24' % HOST_IP, 'mtu = 1500',
            'stats_dir = off']) + '\n')
    env = dict(os.environ, SROCE_CONFIG=conf, SROCE_DAEMON='off')
    env.pop('LD_LIBRARY_PATH', None)
    # rxe under QEMU TCG answers in ~0.2-2 ms, its timers are coarse:
    # wait longer for each frame and for silence
    cmd = ['ip', 'netns', 'exec', NS, tester,
           '--agent', '%s:%d' % (GUEST_IP, AGENT_PORT), '--out', a.out,
           '--wait-ms', '4000', '--quiet-ms', '800', '--keep-captures']
    if a.only:
        cmd += ['--only', a.only]
    time.sleep(1)               # the agent's listen
    r = subprocess.run(cmd, env=env, timeout=1500, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, universal_newlines=True)
    if lab.job_rc(jid) is None:
        lab.job_kill(jid)
    out = '\n'.join(l for l in r.stdout.splitlines()
                    if not l.startswith('memif_connect'))
    print(out)
    with open(os.path.join(a.out, 'summary.txt'), 'w') as f:
        f.write(out + '\n')
    log('conform_rxe: agent output:\n' + lab.job_out(jid)[-2000:])
    if not a.findings:
        return r.returncode
    known = {}
    with open(a.findings) as f:
        for line in f:
            w = line.split()
            if w and not w[0].startswith('#'):
                known[w[0]] = w[1]
    seen, ran = {}, set()
    for line in out.splitlines():
        w = line.split()
        if len(w) > 1 and w[0] in ('PASS', 'FAIL', 'ERROR'):
            ran.add(w[1])
            if w[0] != 'PASS':
                seen[w[1]] = w[0]
    diff = []
    for name, v in sorted(seen.items()):
        if known.get(name) != v:
            diff.append('%s: %s, not a known finding' % (name, v))
    for name, v in sorted(known.items()):
        if name in ran and name not in seen:
            diff.append('%s: passes now (known as %s): update %s'
                        % (name, v, a.findings))
    if len(ran) == 0:
        diff.append('no scenario ran (tester exit status %d)' % r.returncode)
    for d in diff:
        print('conform_rxe: ' + d)
    print('conform_rxe: %d scenarios, %d known findings seen, %d differences'
          % (len(ran), len(seen), len(diff)))
    return 1 if diff else 0


if __name__ == '__main__':
    sys.exit(main())
