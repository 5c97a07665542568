#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""
json-skeleton.py TEXT JSON: check that a "ghee dump-tree --format json"
document is valid JSON and holds the same blocks and items, in the same
order, as the text dump of the same filesystem (block bytenr; item slot,
offset and size).  Exit 0 when they agree, 1 with the first difference.
"""
import json
import re
import sys


def text_skeleton(path):
    out = []
    with open(path, errors='replace') as f:
        for line in f:
            m = re.match(r'^(leaf|node) (\d+) (items|level) ', line)
            if m:
                out.append(('block', int(m.group(2))))
                continue
            m = re.match(r'^\titem (\d+) key .* itemoff (\d+) itemsize (\d+)$',
                         line)
            if m:
                out.append(('item', int(m.group(1)), int(m.group(2)),
                            int(m.group(3))))
    return out


def json_skeleton(path):
    with open(path) as f:
        doc = json.load(f)
    out = []

    def blocks(lst):
        for b in lst:
            out.append(('block', b['bytenr']))
            for it in b.get('items', []):
                out.append(('item', it['slot'], it['offset'], it['size']))
    for tree in doc.get('trees', []):
        blocks(tree.get('blocks', []))
    blocks(doc.get('blocks', []))
    return out


def main():
    if len(sys.argv) != 3:
        sys.exit('usage: json-skeleton.py TEXT JSON')
    t = text_skeleton(sys.argv[1])
    try:
        j = json_skeleton(sys.argv[2])
    except (ValueError, KeyError) as e:
        print('invalid JSON document: %s' % e)
        return 1
    if t == j:
        return 0
    for i, (a, b) in enumerate(zip(t, j)):
        if a != b:
            print('first difference at entry %d: text %s, json %s' % (i, a, b))
            break
    print('text has %d entries, json %d' % (len(t), len(j)))
    return 1


if __name__ == '__main__':
    sys.exit(main())
