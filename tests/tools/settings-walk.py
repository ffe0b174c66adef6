#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""settings-walk.py: how often the choices of a run come back to a file.

The settings are read where a run's path is chosen and where each path is set up.
This walks, from run() (src/pipeline/run.c), the static calls that lead to a
reading of the settings, depth first, callees in the order first named, each
function walked once; it counts, for each file, the calls into it from another
file that land on a function reading the settings itself. A file entered many
times is one the path's choice keeps coming back to (the same question asked
again, a configuration made again), where one step could decide once.

  a function reads the settings where its body names `set->` or calls a
  `settings_*()` function (core/settings.h);
  only calls the source names are seen: calls through function pointers (sinks,
  sorter backends) are not.

Usage: settings-walk.py SRC [--max N] [--show FILE]
Prints each file's entries; with --max, exits 1 where a file outside core/ and
cli/ (below the engine, and the settings' own) is entered more than N times.
"""
import os
import re
import sys

KEYWORDS = {'if', 'for', 'while', 'switch', 'return', 'sizeof', 'do', 'else', 'case',
            '__attribute__', 'defined'}
READS = re.compile(r'\bset->|->set->|\bsettings_\w+\s*\(')


def strip(text):
    """Comments, strings, characters and preprocessor lines blanked (lines kept)."""
    text = re.sub(r'/\*.*?\*/', lambda m: re.sub(r'[^\n]', ' ', m.group()), text, flags=re.S)
    text = re.sub(r'//[^\n]*', '', text)
    text = re.sub(r'"(\\.|[^"\\\n])*"', '""', text)
    text = re.sub(r"'(\\.|[^'\\\n])*'", "''", text)
    return re.sub(r'^\s*#[^\n]*(\\\n[^\n]*)*', '', text, flags=re.M)


def functions(root):
    """{(file, name): body} of every function defined in root's .c files."""
    out = {}
    for d, _, names in sorted(os.walk(root)):
        for n in sorted(names):
            if not n.endswith('.c'):
                continue
            path = os.path.join(d, n)
            f = os.path.relpath(path, root)
            t = strip(open(path, encoding='utf-8').read())
            depth, after, name, start = 0, 0, None, 0
            for m in re.finditer(r'[{}]', t):
                if m.group() == '{':
                    if depth == 0:
                        head = re.sub(r'__attribute__\s*\(\(.*?\)\)', '', t[after:m.start()],
                                      flags=re.S)
                        h = re.search(r'(\w+)\s*\([^;{}()]*(\([^;{}]*\)[^;{}()]*)*\)\s*$', head)
                        last = head.rstrip().split('\n')[-1]
                        name = h.group(1) if h and h.group(1) not in KEYWORDS and \
                            '=' not in last else None
                        start = m.start()
                    depth += 1
                else:
                    depth -= 1
                    if depth == 0:
                        if name:
                            out[(f, name)] = t[start:m.end()]
                        after, name = m.end(), None
    return out


def main(argv):
    root, limit, show = argv[1], None, None
    args = argv[2:]
    while args:
        if args[0] == '--max':
            limit = int(args[1])
        elif args[0] == '--show':
            show = args[1]
        else:
            sys.exit('usage: settings-walk.py SRC [--max N] [--show FILE]')
        args = args[2:]
    funcs = functions(root)
    where = {}
    for f, n in funcs:
        where.setdefault(n, []).append(f)

    def calls(key):
        """The functions key's body calls, in the order first named: a static one of
        its own file first, else the one of that name elsewhere."""
        f, out, seen = key[0], [], set()
        for m in re.finditer(r'\b(\w+)\s*\(', funcs[key]):
            n = m.group(1)
            if n in KEYWORDS or n in seen or n not in where:
                continue
            seen.add(n)
            out.append((f, n) if f in where[n] else (where[n][0], n))
        return out

    edges = {k: calls(k) for k in funcs}
    reads = {k for k, body in funcs.items() if READS.search(body)}
    leads = set(reads)   # read the settings, or call what leads to a reading
    grew = True
    while grew:
        grew = False
        for k in funcs:
            if k not in leads and any(c in leads for c in edges[k]):
                leads.add(k)
                grew = True
    entry = ('pipeline/run.c', 'run')
    if entry not in funcs:
        sys.exit('settings-walk.py: no run() in pipeline/run.c')
    walked, entries, shown = set(), {}, []

    def walk(k):
        walked.add(k)
        for c in edges[k]:
            if c not in leads:
                continue
            if c[0] != k[0] and c in reads:
                entries[c[0]] = entries.get(c[0], 0) + 1
                if c[0] == show:
                    shown.append('    %s:%s() -> %s()' % (k[0], k[1], c[1]))
            if c not in walked:
                walk(c)

    sys.setrecursionlimit(100000)
    walk(entry)
    print('settings walk from run(): %d functions, %d entries into other files'
          % (len(walked), sum(entries.values())))
    over = []
    for f, n in sorted(entries.items(), key=lambda x: (-x[1], x[0])):
        print('%4d  %s' % (n, f))
        mid = not f.startswith(('core/', 'cli/'))
        if limit is not None and mid and n > limit:
            over.append(f)
    print('\n'.join(shown))
    if over:
        print('entered more than %d times: %s' % (limit, ' '.join(over)))
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
