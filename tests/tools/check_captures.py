#!/usr/bin/env python3
"""Run sroce-pcap --summary on every capture listed in INDEX.txt and check
that it exits 0 (every RoCEv2 frame well-formed, ICRC ok) and that its
per-opcode counts equal the ones INDEX.txt records for that capture."""
import re
import subprocess
import sys


def index_counts(index_path):
    counts, current = {}, None
    with open(index_path) as f:
        for line in f:
            m = re.match(r'^### (\S+\.pcap)', line)
            if m:
                current = m.group(1)
                counts[current] = {}
                continue
            m = re.match(r'^\s+(\d+)\s+((?:RC|UC|UD|XRC|CNP)\b.*?)\s*$', line)
            if m and current:
                counts[current][m.group(2)] = int(m.group(1))
    return counts


def tool_counts(tool, path):
    p = subprocess.run([tool, '--summary', path], capture_output=True, text=True)
    counts = {}
    for line in p.stdout.splitlines():
        m = re.match(r'^\s+(\d+)\s+((?:RC|UC|UD|XRC|CNP)\b.*?)\s*$', line)
        if m:
            counts[m.group(2)] = int(m.group(1))
    return p.returncode, counts, p.stdout + p.stderr


def main():
    tool, captures = sys.argv[1], sys.argv[2]
    expected = index_counts(captures + '/INDEX.txt')
    failed = 0
    for name, want in sorted(expected.items()):
        rc, got, out = tool_counts(tool, captures + '/' + name)
        ok = rc == 0 and got == want
        print(('ok  ' if ok else 'FAIL') + '  ' + name + '  ' +
              ', '.join(f'{v} {k}' for k, v in sorted(got.items())))
        if not ok:
            failed += 1
            print(f'      exit {rc}; expected {want}\n{out}')
    print(f'{len(expected) - failed} passed, {failed} failed')
    return 1 if failed or not expected else 0


if __name__ == '__main__':
    sys.exit(main())
