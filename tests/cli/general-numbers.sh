#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# general-numbers.sh: -g on bare numbers: floating-point numbers of text, each
# written back as it was read, one a line, in sort -g's order (equal values by
# their bytes). Against LC_ALL=C sort -g on seeded random inputs of one number a
# line (decimal, exponents, hex, infinities, -0, subnormals; numbers binary64 holds
# exactly as sort's long double does): sorted, -r, -u, -s, several files, -m, -c,
# -z, --header, and spilled runs (-S 1M). Several numbers a line and runs of white
# space against the same sort of the numbers one a line. By hand: NaNs (sort orders
# them differently from run to run: not an oracle), a bad number's file and line
# (after a disorder, -c reports the disorder), binary formats refused.
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"
command -v python3 >/dev/null 2>&1 || skip "python3 (the generator) is missing"

# gen SEED N [SPACES]: N numbers, one a line, or with SPACES separated by random
# runs of white space (several a line, blank lines, leading blanks).
gen() {
    python3 - "$@" <<'EOF'
import random, sys
rng = random.Random(int(sys.argv[1]))
n = int(sys.argv[2])
spaces = len(sys.argv) > 3
def num():
    r = rng.random()
    if r < 0.03:
        return rng.choice(['inf', '-inf', 'INF', 'Infinity', '-0', '0', '+0', '0.0'])
    if r < 0.05:   # subnormal and near the ends of binary64: few digits
        return rng.choice(['4e-320', '-4e-320', '2.5e-310', '1e308', '-1e308', '1.5e-307'])
    m = rng.randint(-99999, 99999)
    if r < 0.35:
        return '%de%d' % (m, rng.randint(-20, 20))
    if r < 0.65:
        return '%.3f' % (m / 1000.0)
    if r < 0.75:
        h = '0x%xp%d' % (abs(m), rng.randint(-8, 8))
        return h if m >= 0 else '-' + h
    if r < 0.85:   # few values: many equal, written alike and not
        return rng.choice(['1', '1.0', '1e0', '0x1p0', '2', '2.00', '-3', '-3e0'])
    return str(m)
out = []
for i in range(n):
    out.append(num())
    if spaces:
        out.append(rng.choice([' ', '\t', '\n', '  ', '\n\n', ' \r\n', '\v', '\f', '\n \t']))
    else:
        out.append('\n')
sys.stdout.write(''.join(out))
EOF
}

# one: the numbers of a file one a line, as a reference's input.
one() {
    tr ' \t\r\v\f' '\n\n\n\n\n' <"$1" | sed '/^$/d'
}

n=$(scaled 20000 2000)
gen 1 "$n" >a.txt
gen 2 "$n" >b.txt
for opts in "" "-r" "-u" "-s" "-r -u" "-s -r"; do
    # shellcheck disable=SC2086
    LC_ALL=C sort -g $opts a.txt >exp
    # shellcheck disable=SC2086
    gs_ok got -g $opts a.txt
    same exp got "-g $opts"
done
LC_ALL=C sort -g a.txt b.txt >exp
gs_ok got -g a.txt b.txt
same exp got "-g of two files"
gs_ok got --sort=general-numeric <a.txt
LC_ALL=C sort -g a.txt >exp
same exp got "--sort=general-numeric from standard input"

# Larger than -S: spilled runs, merged.
gen 3 200000 >big.txt
LC_ALL=C sort -g big.txt >exp
gs_ok got -g -S 1M -T . big.txt
same exp got "-g -S 1M"
gs_ok got -g -u -S 1M -T . big.txt
LC_ALL=C sort -g -u big.txt >exp
same exp got "-g -u -S 1M"

# -m of sorted inputs, -c and -C.
LC_ALL=C sort -g a.txt >as.txt
LC_ALL=C sort -g b.txt >bs.txt
LC_ALL=C sort -g -m as.txt bs.txt >exp
gs_ok got -g -m as.txt bs.txt
same exp got "-g -m"
gs_ok got -g -c as.txt
[ ! -s got ] || fail "-g -c wrote to standard output"
printf '1\n2.5\n2\n3\n' >dis.txt
expect_error 1 "^dis\.txt:3: disorder: 2$" -- "$GPUSORT" -g -c dis.txt
# The disorder's line, where lines hold several numbers and blank lines, in memory
# and across chunks (-S 1M).
python3 - <<'EOF'
import random
r = random.Random(3)
vals = sorted(r.uniform(-1e6, 1e6) for _ in range(200000))
lines, i, dis = [], 0, None
while i < len(vals):
    k = r.randint(1, 4)
    chunk = ['%.3f' % x for x in vals[i:i + k]]
    i += k
    if dis is None and i > 150000:
        chunk[-1] = '-2e6'
        dis = len(lines) + 1
    lines.append(' '.join(chunk))
    if r.random() < 0.1:
        lines.append('')
open('dis-deep.txt', 'w').write('\n'.join(lines) + '\n')
open('dis-line', 'w').write('%d\n' % dis)
EOF
line=$(cat dis-line)
expect_error 1 "^dis-deep\.txt:$line: disorder: -2e6$" -- "$GPUSORT" -g -c dis-deep.txt
expect_error 1 "^dis-deep\.txt:$line: disorder: -2e6$" -- "$GPUSORT" -g -c -S 1M -T . dis-deep.txt
printf 'a header\n1 2\n\n3 2.5\n' >dis-h.txt
expect_error 1 "^dis-h\.txt:4: disorder: 2\.5$" -- "$GPUSORT" -g -c --header dis-h.txt
run_cmd "$GPUSORT" -g -C dis.txt
[ "$STATUS" -eq 1 ] && [ ! -s "$RUN_ERR" ] || fail "-g -C: status $STATUS"

# Several numbers a line, runs of white space, blank lines: one a line out.
gen 4 "$n" spaces >ws.txt
one ws.txt | LC_ALL=C sort -g >exp
gs_ok got -g ws.txt
same exp got "-g of numbers separated by runs of white space"
one ws.txt | LC_ALL=C sort -g -r -u >exp
gs_ok got -g -r -u -S 1M -T . ws.txt
same exp got "-g -r -u of numbers separated by white space, -S 1M"

# -z: numbers end at NUL or white space, and are written NUL-ended.
one a.txt | tr '\n' '\0' >a.z
one a.txt | LC_ALL=C sort -g | tr '\n' '\0' >exp
gs_ok got -g -z a.z
same exp got "-g -z"

# --header: each input's first line kept whole, the first one written first.
{ echo "price  (USD)"; cat a.txt; } >ha.txt
{ echo "other header"; cat b.txt; } >hb.txt
{ echo "price  (USD)"; LC_ALL=C sort -g a.txt b.txt; } >exp
gs_ok got -g --header ha.txt hb.txt
same exp got "-g --header"

# NaNs first, all of them, in their bytes' order; -0 equal to 0.
printf 'inf\n1e3\nnan\n-0\n0\n-inf\n0x10\nNAN\n2.5\n' >nan.txt
printf 'NAN\nnan\n-inf\n-0\n0\n2.5\n0x10\n1e3\ninf\n' >exp
gs_ok got -g nan.txt
same exp got "-g with NaNs"

# A bad number: its file and its line, on a line of several numbers too; a disorder
# before it is what -c reports.
printf '1.5 2\n3\n4 x5 6\n' >bad.txt
expect_error 2 "^bad\.txt:3: not a number: 'x5'$" -- "$GPUSORT" -g bad.txt
expect_error 2 "^-:3: not a number: 'x5'$" -- sh -c '"$0" -g <bad.txt' "$GPUSORT"
printf '2\n1\n3 4 x5\n' >bad2.txt
expect_error 1 "^bad2\.txt:2: disorder: 1$" -- "$GPUSORT" -g -c bad2.txt
expect_error 2 "^bad\.txt:3: not a number: 'x5'$" -- "$GPUSORT" -g -c bad.txt

# Binary numbers have a type instead.
expect_usage_error "^-g reads and writes numbers as text; binary floating-point keys are --type=f32 or --type=f64$" -- "$GPUSORT" -g -B a.txt
