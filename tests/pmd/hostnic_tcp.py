#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# hostnic_tcp.py — helpers of tests/pmd/hostnic_test.sh (kernel traffic on
# the interface sroce shares):
#   recv ADDR PORT OUT     accept one TCP connection, write the SHA-256 of
#                          all it receives (and the byte count) to OUT
#   send ADDR PORT MB OUT  send MB MiB of a seeded pseudo-random stream,
#                          write its SHA-256 (and the byte count) to OUT
#   macs PCAP SRC          the destination MACs of the UDP/4791 frames
#                          from MAC SRC in a pcap file (DLT_EN10MB), one
#                          line each, counted
import hashlib
import random
import socket
import struct
import sys
import time


def recv(addr, port, out):
    fam = socket.AF_INET6 if ":" in addr else socket.AF_INET
    ls = socket.socket(fam, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind((addr, port))
    ls.listen(1)
    ls.settimeout(60)
    s, _ = ls.accept()
    h = hashlib.sha256()
    n = 0
    while True:
        b = s.recv(1 << 20)
        if not b:
            break
        h.update(b)
        n += len(b)
    with open(out, "w") as f:
        f.write("%s %d\n" % (h.hexdigest(), n))


def send(addr, port, mb, out):
    fam = socket.AF_INET6 if ":" in addr else socket.AF_INET
    rnd = random.Random(17)
    chunk = bytes(rnd.getrandbits(8) for _ in range(1 << 16))
    h = hashlib.sha256()
    for i in range(100):
        try:
            s = socket.create_connection((addr, port), timeout=5)
            break
        except OSError:
            time.sleep(0.1)
    else:
        sys.exit("hostnic_tcp: no connection to %s:%d" % (addr, port))
    n = 0
    for i in range(mb * 16):
        # each 64 KiB block differs: a lost or repeated block shows
        b = struct.pack(">I", i) + chunk[4:]
        s.sendall(b)
        h.update(b)
        n += len(b)
    s.close()
    with open(out, "w") as f:
        f.write("%s %d\n" % (h.hexdigest(), n))


def macs(path, src):
    with open(path, "rb") as f:
        data = f.read()
    magic = struct.unpack("<I", data[:4])[0]
    end = "<" if magic in (0xA1B2C3D4, 0xA1B23C4D) else ">"
    off = 24
    seen = {}
    while off + 16 <= len(data):
        _, _, incl, _ = struct.unpack(end + "IIII", data[off:off + 16])
        fr = data[off + 16:off + 16 + incl]
        off += 16 + incl
        et = struct.unpack(">H", fr[12:14])[0]
        l3 = 14
        if et == 0x8100:
            et = struct.unpack(">H", fr[16:18])[0]
            l3 = 18
        if et == 0x0800 and fr[l3 + 9] == 17:
            l4 = l3 + (fr[l3] & 15) * 4
        elif et == 0x86DD and fr[l3 + 6] == 17:
            l4 = l3 + 40
        else:
            continue
        if struct.unpack(">H", fr[l4 + 2:l4 + 4])[0] != 4791:
            continue
        if ":".join("%02x" % b for b in fr[6:12]) != src.lower():
            continue
        mac = ":".join("%02x" % b for b in fr[0:6])
        seen[mac] = seen.get(mac, 0) + 1
    for mac, n in sorted(seen.items()):
        print(mac, n)


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "recv":
        recv(sys.argv[2], int(sys.argv[3]), sys.argv[4])
    elif cmd == "send":
        send(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5])
    elif cmd == "macs":
        macs(sys.argv[2], sys.argv[3])
    else:
        sys.exit("usage: hostnic_tcp.py recv|send|macs ...")
