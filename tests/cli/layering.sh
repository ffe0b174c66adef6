#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# layering.sh: the layout shows the architecture, and stays so (doc/DESIGN.md,
# "Module map"). The folders of src/ are layers: the includes between files of two
# folders go one way only (no circle of folders, so core/ needs nothing above it
# and io/ needs only core/), no header includes itself through others, and no
# source file is over 600 lines (one idea a file). And the choices of a run come
# back to no file more than WALK_MAX times (tests/tools/settings-walk.py says how
# that is counted).
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"
not_under_tsan "no program runs"
command -v python3 >/dev/null || skip "no python3"

top=$(cd "$srcdir/../.." && pwd)
python3 - "$top/src" >report.txt 2>&1 <<'PY' || fail "$(cat report.txt)"
import os, re, sys

root = sys.argv[1]
files = {}
for d, _, names in os.walk(root):
    for n in names:
        if n.endswith(('.c', '.h', '.cu', '.cuh')):
            path = os.path.join(d, n)
            files[os.path.relpath(path, root)] = open(path, encoding='utf-8').read()
inc = {f: [i for i in re.findall(r'^#include\s+"([^"]+)"', t, re.M) if i in files]
       for f, t in files.items()}
folder = lambda f: os.path.dirname(f) or '.'

def circles(graph):
    """Strongly connected sets of more than one node (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    def visit(n):
        index[n] = low[n] = len(index)
        stack.append(n)
        on.add(n)
        for m in graph.get(n, ()):
            if m not in index:
                visit(m)
                low[n] = min(low[n], low[m])
            elif m in on:
                low[n] = min(low[n], index[m])
        if low[n] == index[n]:
            part = []
            while True:
                m = stack.pop()
                on.discard(m)
                part.append(m)
                if m == n:
                    break
            if len(part) > 1:
                out.append(sorted(part))
    for n in list(graph):
        if n not in index:
            visit(n)
    return out

bad = []
layers = {}
why = {}
for f, targets in inc.items():
    for t in targets:
        if folder(t) != folder(f):
            layers.setdefault(folder(f), set()).add(folder(t))
            why.setdefault((folder(f), folder(t)), f + ' includes ' + t)
for c in circles(layers):
    links = [why[(a, b)] for a in c for b in c if (a, b) in why]
    bad.append('folders include one another: %s (%s)' % (', '.join(c), '; '.join(links)))
for c in circles({f: t for f, t in inc.items() if f.endswith(('.h', '.cuh'))}):
    bad.append('headers include one another: ' + ', '.join(c))
for f, t in sorted(files.items()):
    lines = t.count('\n')
    if lines > 600:
        bad.append('%s: %d lines (600 at most)' % (f, lines))
print('\n'.join(bad) if bad else 'layers: ' + '; '.join(
    '%s -> %s' % (a, ' '.join(sorted(b))) for a, b in sorted(layers.items())))
sys.exit(1 if bad else 0)
PY

# The inputs are measured, and the reader's and the output's configurations made,
# once (pipeline/ctx.c's ctx_init); the device and the path are chosen once
# (pipeline/plan.c's plan_make); the records table takes what it needs of the
# settings when it opens. A path that asks again, or a helper every path calls for
# what could be decided once, shows here: issue 48 asks for no file entered more
# than twice.
WALK_MAX=2
python3 "$top/tests/tools/settings-walk.py" "$top/src" --max "$WALK_MAX" >walk.txt 2>&1 ||
    fail "$(cat walk.txt)"
exit 0
