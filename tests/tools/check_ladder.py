#!/usr/bin/env python3
"""sroce-pcap --ladder draws what it should.

  check_ladder.py SROCE_PCAP MKPCAP CAPTURES DATA cairo|nocairo

With cairo: SVG and PNG of reference captures and of crafted and real
captures with faults; each SVG parses as XML and its <desc> (the arrows as
text) names the expected packets and highlights; each PNG starts with the
PNG signature and has the size its header says; a bad extension and a
bad filter are refused (exit 2, one line).  Without cairo: --ladder
exits 2 saying sroce-pcap was built without cairo."""
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

SVG = '{http://www.w3.org/2000/svg}'


def run(tool, args):
    p = subprocess.run([tool] + args, capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def svg_desc(path):
    root = ET.parse(path).getroot()
    assert root.tag == SVG + 'svg', root.tag
    desc = root.find(SVG + 'desc')
    assert desc is not None and desc.text, 'no <desc>'
    return desc.text


def png_ok(path):
    with open(path, 'rb') as f:
        head = f.read(24)
    assert head[:8] == b'\x89PNG\r\n\x1a\n', 'no PNG signature'
    assert head[12:16] == b'IHDR', 'no IHDR first'
    w, h = struct.unpack('>II', head[16:24])
    assert w >= 1000 and h >= 100, (w, h)
    return w, h


def main():
    tool, mkpcap, captures, data, cairo = sys.argv[1:6]
    tmp = tempfile.mkdtemp(prefix='sroce-ladder.')
    failed = 0
    mixed = os.path.join(tmp, 'mixed.pcap')
    subprocess.run([mkpcap, mixed], check=True)

    if cairo != 'cairo':
        rc, out = run(tool, ['--ladder', tmp + '/x.svg', mixed])
        ok = rc == 2 and 'built without cairo' in out
        print(('ok  ' if ok else 'FAIL') + '  no cairo: ' + out.strip())
        shutil.rmtree(tmp)
        return 0 if ok else 1

    # (capture, extra options, expected lines of <desc>)
    cases = [
        (captures + '/13_write_lat_64B.pcap', ['--time', '0.39-0.395'],
         ['10.77.0.11 QP 29 -> 10.77.0.12 QP 29: WRITE_ONLY psn=4937882 A '
          'RETH va=0x55562448d000 rkey=0xe52 len=64 [retransmission]',
          'ACKNOWLEDGE psn=4937882 AETH ACK credits=31 msn=48 '
          '[duplicate response]']),
        (captures + '/06_read_bw_4KiB.pcap', ['--max', '12', '--time', 'prop'],
         ['READ_REQUEST psn=', 'READ_RESPONSE_FIRST psn=',
          'AETH ACK credits=31 msn=']),
        (mixed, [], ['ACKNOWLEDGE psn=100 A AETH ACK credits=31 msn=3 [bad ICRC]',
                     ': CNP  [congestion (CNP, CE)]',
                     'COMPARE_SWAP psn=100 A AtomicETH va=0x2000 rkey=0x4321',
                     'fe80::1 QP ? -> fe80::2 QP 18']),
        (data + '/labs/lost_packet.pcap', [],
         ['AETH NAK PSN sequence error', '[NAK]', '[retransmission]']),
    ]
    for cap, extra, want in cases:
        if not os.path.exists(cap):
            print('FAIL  missing ' + cap)
            failed += 1
            continue
        name = os.path.basename(cap)
        for ext in ('svg', 'png'):
            out = os.path.join(tmp, name + '.' + ext)
            rc, log = run(tool, ['--summary', '--ladder', out] + extra + [cap])
            try:
                assert rc in (0, 1), 'exit %d: %s' % (rc, log)
                assert 'ladder: ' + out in log, log
                if ext == 'png':
                    png_ok(out)
                else:
                    desc = svg_desc(out)
                    for w in want:
                        assert w in desc, 'missing %r in\n%s' % (w, desc)
                print('ok    %s %s %s' % (name, ext, ' '.join(extra)))
            except AssertionError as e:
                print('FAIL  %s %s: %s' % (name, ext, e))
                failed += 1

    for args, what in ((['--ladder', tmp + '/x.pdf'], '.svg or .png'),
                       (['--ladder', tmp + '/x.svg', '--psn', '9-1'], 'bad value'),
                       (['--ladder', tmp + '/x.svg', '--time', 'slow'], 'bad value')):
        rc, log = run(tool, ['--summary'] + args +
                      [captures + '/15_send_lat_64B.pcap'])
        ok = rc == 2 and what in log
        print(('ok  ' if ok else 'FAIL') + '  refused: ' + ' '.join(args))
        failed += 0 if ok else 1
    # Nothing to draw: one clear line, exit 2, no picture written.
    noroce = os.path.join(tmp, 'noroce.pcap')
    with open(noroce, 'wb') as f:
        arp = bytes.fromhex('ffffffffffff020000000001' + '0806') + bytes(28)
        f.write(struct.pack('<IHHiIII', 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        f.write(struct.pack('<IIII', 1, 0, len(arp), len(arp)) + arp)
    for cap, args, what in ((noroce, [], 'no RoCEv2 packet in the capture'),
                            (captures + '/15_send_lat_64B.pcap', ['--qp', '999999'],
                             'passes the filters')):
        out = os.path.join(tmp, 'empty.svg')
        rc, log = run(tool, ['--summary', '--ladder', out] + args + [cap])
        ok = rc == 2 and what in log and not os.path.exists(out)
        print(('ok  ' if ok else 'FAIL') + '  nothing to draw: %s %s' %
              (os.path.basename(cap), ' '.join(args)))
        failed += 0 if ok else 1
    # A huge capture without filters: one line saying how to filter, exit 2,
    # no picture (not a 100 MB image).
    huge = os.path.join(tmp, 'huge.pcap')
    with open(captures + '/02_write_bw_64B.pcap', 'rb') as f:
        head, body = f.read(24), f.read()
    recs, off = [], 0
    while off + 16 <= len(body):
        incl = struct.unpack('<I', body[off + 8:off + 12])[0]
        recs.append(body[off:off + 16 + incl])
        off += 16 + incl
    with open(huge, 'wb') as f:
        f.write(head)
        for i in range(5000):
            r = recs[i % len(recs)]
            f.write(struct.pack('<II', 1000 + i // 1000, (i % 1000) * 1000) + r[8:])
    for ext in ('svg', 'png'):
        out = os.path.join(tmp, 'huge.' + ext)
        rc, log = run(tool, ['--summary', '--ladder', out, huge])
        lines = [x for x in log.splitlines() if 'draw fewer' in x]
        ok = (rc == 2 and len(lines) == 1 and '--max' in lines[0] and
              not os.path.exists(out))
        print(('ok  ' if ok else 'FAIL') + '  huge capture refused (%s): %s' %
              (ext, lines[0] if lines else log.strip()[-200:]))
        failed += 0 if ok else 1
        # With a filter the same capture draws.
        rc, log = run(tool, ['--summary', '--ladder', out, '--max', '50', huge])
        ok = rc in (0, 1) and os.path.exists(out)
        print(('ok  ' if ok else 'FAIL') + '  huge capture with --max 50 (%s)' % ext)
        failed += 0 if ok else 1
    shutil.rmtree(tmp)
    print('%s' % ('all passed' if not failed else '%d failed' % failed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
