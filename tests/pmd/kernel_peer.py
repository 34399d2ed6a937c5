#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# kernel_peer.py IPV4 IPV6 — the Linux side of the pmd 'kernel' test: send
# UDP/4791 datagrams to sroce over IPv4 and IPv6 (the kernel resolves sroce
# with ARP and ND first, without static entries) and wait for the echoes;
# then tell the echo to stop.
import socket
import struct
import sys
import time

BYE = struct.pack(">I", 0x21455942)


def probe(family, addr, n=20):
    s = socket.socket(family, socket.SOCK_DGRAM)
    # The echo keeps the UDP ports (its destination stays 4791): listen there.
    if family == socket.AF_INET6:
        s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
    s.bind(("", 4791))
    s.settimeout(0.2)
    got = 0
    deadline = time.time() + 15
    seq = 0
    while got < n and time.time() < deadline:
        payload = bytes(12) + struct.pack(">I", seq) + bytes(16)
        try:
            s.sendto(payload, (addr, 4791))
            data, _ = s.recvfrom(2048)
            if data == payload:
                got += 1
        except (socket.timeout, OSError):
            pass
        seq += 1
    return s, got


def main():
    v4, v6 = sys.argv[1], sys.argv[2]
    s4, got4 = probe(socket.AF_INET, v4)
    s6, got6 = probe(socket.AF_INET6, v6)
    print(f"kernel_peer: IPv4 echoes {got4}/20, IPv6 echoes {got6}/20")
    for _ in range(3):
        s4.sendto(bytes(12) + BYE + bytes(16), (v4, 4791))
        time.sleep(0.05)
    return 0 if got4 == 20 and got6 == 20 else 1


sys.exit(main())
