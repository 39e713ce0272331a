#!/usr/bin/env python3
"""Where a process's memory lies, from /proc/PID/smaps copies (scripts/bench-desktop.sh with
BENCH_SMAPS_DIR=dir keeps one per measured process).

  scripts/smaps-diff.py A        PSS in kB by mapping (file and permissions), largest first
  scripts/smaps-diff.py A B      the same for both and B - A, largest changes first

A file's pages count where they are mapped: "r-xp" is code, "r--p" read-only data, "[anon]"
the heap and everything else allocated.
"""
import collections
import re
import sys

ROWS = 30


def by_mapping(path):
    pss = collections.Counter()
    name = None
    with open(path) as f:
        for line in f:
            words = line.split()
            if not words:
                continue
            if re.match(r'^[0-9a-f]+-[0-9a-f]+$', words[0]):
                file = words[5].rsplit('/', 1)[-1] if len(words) > 5 else '[anon]'
                name = f'{file} {words[1]}'
            elif words[0] == 'Pss:' and name:
                pss[name] += int(words[1])
    return pss


def main(args):
    if len(args) not in (1, 2):
        sys.exit(__doc__)
    a = by_mapping(args[0])
    if len(args) == 1:
        print(f'total {sum(a.values())} kB')
        for name, kb in a.most_common(ROWS):
            print(f'{kb:8d}  {name}')
        return
    b = by_mapping(args[1])
    total_a, total_b = sum(a.values()), sum(b.values())
    print(f'total A {total_a} kB, B {total_b} kB, B - A {total_b - total_a:+d} kB')
    for name in sorted(set(a) | set(b), key=lambda k: -abs(b[k] - a[k]))[:ROWS]:
        print(f'{a[name]:8d} {b[name]:8d} {b[name] - a[name]:+8d}  {name}')


if __name__ == '__main__':
    main(sys.argv[1:])
