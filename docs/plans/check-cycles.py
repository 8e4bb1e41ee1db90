#!/usr/bin/env python3
"""Sibling-module import cycles in a Rust crate (prototype of the planned check test).
Usage: check-cycles.py SRC_DIR [SRC_DIR...]  (each a crate's src/). Exit 1 on a cycle."""
import re, os, sys, collections
def modpath(root, f):
    p = os.path.relpath(f, root)[:-3].split('/')
    if p[-1] in ('mod', 'lib', 'main'): p = p[:-1]
    return p
def refs(line):
    # crate::a::b, super::a, super::super::a, and use super::{a, b}
    for m in re.finditer(r'\b((?:crate|super)(?:::super)*)::(\{[^}]*\}?|[A-Za-z_][A-Za-z0-9_]*)((?:::[A-Za-z_][A-Za-z0-9_]*)*)', line):
        head, first, rest = m.group(1), m.group(2), m.group(3)
        if first.startswith('{'):
            names = [n.strip().split('::')[0] for n in first.strip('{}').split(',') if n.strip()]
            for n in names: yield head, [n]
        else:
            yield head, [first] + rest.split('::')[1:]
bad = False
for root in sys.argv[1:]:
    mods = set()
    for d, _, fs in os.walk(root):
        for fn in fs:
            if fn.endswith('.rs'): mods.add(tuple(modpath(root, os.path.join(d, fn))))
    edges = collections.defaultdict(lambda: collections.defaultdict(list))
    for d, _, fs in os.walk(root):
        for fn in fs:
            if not fn.endswith('.rs') or fn == 'tests.rs': continue
            f = os.path.join(d, fn); me = modpath(root, f)
            for i, l in enumerate(open(f), 1):
                if re.match(r'\s*#\[cfg\(test\)\]', l): break   # test modules may reach anywhere
                if l.lstrip().startswith('//'): continue
                for head, segs in refs(l):
                    base = [] if head == 'crate' else me[:len(me) - head.count('super')]
                    tgt = base + segs
                    # longest prefix of tgt that is a module
                    while tgt and tuple(tgt) not in mods: tgt = tgt[:-1]
                    k = 0
                    while k < min(len(me), len(tgt)) and me[k] == tgt[k]: k += 1
                    if k >= len(me) or k >= len(tgt): continue   # ancestor/descendant: fine
                    parent = tuple(me[:k]); a, b = me[k], tgt[k]
                    edges[parent][(a, b)].append(f"{os.path.relpath(f, root)}:{i}")
    for parent, es in sorted(edges.items()):
        g = collections.defaultdict(set)
        for (a, b) in es: g[a].add(b)
        idx, low, st, on, out, c = {}, {}, [], set(), [], [0]
        def sc(v):
            idx[v] = low[v] = c[0]; c[0] += 1; st.append(v); on.add(v)
            for w in g.get(v, ()):
                if w not in idx: sc(w); low[v] = min(low[v], low[w])
                elif w in on: low[v] = min(low[v], idx[w])
            if low[v] == idx[v]:
                comp = []
                while True:
                    w = st.pop(); on.discard(w); comp.append(w)
                    if w == v: break
                if len(comp) > 1: out.append(comp)
        for v in list(g):
            if v not in idx: sc(v)
        for comp in out:
            bad = True
            where = '::'.join(('crate',) + parent)
            print(f"{root}: cycle under {where}: {' <-> '.join(sorted(comp))}")
            for (a, b), w in sorted(es.items()):
                if a in comp and b in comp: print(f"    {a} -> {b}: {', '.join(w[:3])}{' ...' if len(w) > 3 else ''}")
sys.exit(1 if bad else 0)
