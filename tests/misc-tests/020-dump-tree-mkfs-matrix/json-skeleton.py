#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""
json-skeleton.py TEXT JSON: check that a "ghee dump-tree --format json"
document is valid JSON and holds the same blocks and items, in the same
order, as the text dump of the same filesystem (block bytenr; item slot,
offset and size).  Exit 0 when they agree, 1 with the first difference.

json-skeleton.py --batch LIST: the same for every line "LABEL<TAB>TEXT<TAB>JSON"
of LIST, in one process (a Python start costs more than most checks);
prints "LABEL: difference" for each pair that disagrees and last a line
"N agree, M differ".  Exit 0 when all agree.
"""
import json
import re
import sys


BLOCK_RE = re.compile(r'^(leaf|node) (\d+) (items|level) ')
ITEM_RE = re.compile(r'^\titem (\d+) key .* itemoff (\d+) itemsize (\d+)$')


def text_skeleton(path):
    out = []
    with open(path, errors='replace') as f:
        for line in f:
            # most lines are item bodies: skip them before any regex
            if line.startswith(('leaf ', 'node ')):
                m = BLOCK_RE.match(line)
                if m:
                    out.append(('block', int(m.group(2))))
                continue
            if not line.startswith('\titem '):
                continue
            m = ITEM_RE.match(line.rstrip('\n'))
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


def compare(text, jsonpath):
    """None when they agree, else the first difference"""
    t = text_skeleton(text)
    try:
        j = json_skeleton(jsonpath)
    except (ValueError, KeyError, TypeError) as e:
        return 'invalid JSON document: %s' % e
    if t == j:
        return None
    for i, (a, b) in enumerate(zip(t, j)):
        if a != b:
            return ('first difference at entry %d: text %s, json %s' %
                    (i, a, b))
    return 'text has %d entries, json %d' % (len(t), len(j))


def batch(listfile):
    good = bad = 0
    with open(listfile) as f:
        for line in f:
            label, text, jsonpath = line.rstrip('\n').split('\t')
            why = compare(text, jsonpath)
            if why is None:
                good += 1
            else:
                bad += 1
                print('%s: %s' % (label, why))
    print('%d agree, %d differ' % (good, bad))
    return 1 if bad else 0


def main():
    if len(sys.argv) == 3 and sys.argv[1] == '--batch':
        return batch(sys.argv[2])
    if len(sys.argv) != 3:
        sys.exit('usage: json-skeleton.py TEXT JSON | --batch LIST')
    why = compare(sys.argv[1], sys.argv[2])
    if why is None:
        return 0
    print(why)
    return 1


if __name__ == '__main__':
    sys.exit(main())
