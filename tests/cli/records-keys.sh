#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# records-keys.sh: several keys of every kind, as LC_ALL=C sort orders them: text (no
# letter: bytes), n (integers of --type) and g (floating-point numbers), at sort's
# positions (F.C, F2.C2, b on either end), r per key, the global -b -r -n -g
# inherited by keys without letters; against sort on seeded random inputs
# (keysdiff.py: sorts, -m, -c, -u, -s, -z, spilled runs), and by hand where sort
# cannot be the oracle (NaNs, a bad number's message). Binary keys of f32, f64 and
# bytesN in records and bare, against an independent stable sort in Python.
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"
command -v python3 >/dev/null 2>&1 || skip "python3 (the oracle) is missing"

# --------------------------------------------------------------------------------
# Against sort, seeded random cases
# --------------------------------------------------------------------------------

python3 "$srcdir/keysdiff.py" 1 "$(scaled 200 20)" || fail "gpusort and sort differ (above)"

# --------------------------------------------------------------------------------
# By hand
# --------------------------------------------------------------------------------

# g: NaNs first (all alike, then the last resort), -inf to +inf, -0 equal to 0.
printf 'inf\n1e3\nnan\n-0\n0\n-inf\n0x10\nNAN\n2.5\n' >g.txt
printf 'NAN\nnan\n-inf\n-0\n0\n2.5\n0x10\n1e3\ninf\n' >exp
gs_ok got -k1g g.txt
same exp got "-k1g with NaNs, infinities and zeros"
# r reverses the key alone: equal keys (-0 and 0, the NaNs) by the last resort,
# ascending.
printf 'inf\n1e3\n0x10\n2.5\n-0\n0\n-inf\nNAN\nnan\n' >exp
gs_ok got -k1gr g.txt
same exp got "-k1gr"

# A bad number names the file, the line, the key (of several) and its field.
printf 'a,1,2.5\nb,2,x\n' >bad.csv
expect_error 2 "^bad\.csv:2: key 2, field 3: not a number: 'x'$" -- "$GPUSORT" -t, -k1,1 -k3g bad.csv
printf 'a,1\nb,2.5\n' >bad2.csv
expect_error 2 "^bad2\.csv:2: field 2: not an integer: '2\.5'$" -- "$GPUSORT" -t, -k2n bad2.csv
expect_error 2 "^bad2\.csv:1: key 2, no field 3$" -- "$GPUSORT" -t, -k1 -k3g bad2.csv
# A text key whose field is missing is empty, as sort has it.
printf 'b,1\na\nc,0\n' >short.csv
LC_ALL=C sort -t, -k2,2 -k1,1 short.csv >exp
gs_ok got -t, -k2,2 -k1,1 short.csv
same exp got "a text key past the line's fields"

# Keys far into lines of many fields (past the 32 separators a line's keys keep):
# fields 35 and 40 of lines of 40 to 45 fields, against sort.
python3 - <<'PY'
import random
rnd = random.Random(35)
with open('wide.csv', 'w') as f:
    for i in range(3000):
        n = rnd.randrange(40, 46)
        f.write(','.join(str(rnd.randrange(-50, 50)) if j in (34, 39) else
                         rnd.choice(['', 'a', 'bb', 'x' * rnd.randrange(5)]) for j in range(n)) + '\n')
PY
for k in "-k35,35 -k40,40n" "-k40,40n -k35" "-k34.2,36"; do
    # shellcheck disable=SC2086 # the keys are words on purpose
    LC_ALL=C sort -t, $k wide.csv >exp
    # shellcheck disable=SC2086
    gs_ok got -t, $k wide.csv
    same exp got "-t, $k on lines of 40 to 45 fields"
done

# --------------------------------------------------------------------------------
# Binary keys: f32, f64, bytesN
# --------------------------------------------------------------------------------

# binsort SIZE OFF TYPE ENDIAN REVERSE IN OUT: the records of IN stably sorted by their
# key (NaNs first, -0 as 0; bytes as unsigned bytes), descending with REVERSE 1.
binsort() {
    python3 - "$@" <<'PY'
import math, struct, sys
size, off, typ, endian, rev, src, dst = sys.argv[1:8]
size, off, rev = int(size), int(off), rev == '1'
data = open(src, 'rb').read()
recs = [data[i:i + size] for i in range(0, len(data), size)]
e = '<' if endian == 'little' else '>'
def key(r):
    if typ == 'f32' or typ == 'f64':
        v = struct.unpack_from(e + ('f' if typ == 'f32' else 'd'), r, off)[0]
        return (0, 0.0) if math.isnan(v) else (1, v + 0.0)
    return r[off:off + int(typ[5:])]
open(dst, 'wb').write(b''.join(sorted(recs, key=key, reverse=rev)))
PY
}

# Random records with special values among them, some keys equal.
python3 - <<'PY'
import random, struct
rnd = random.Random(4711)
special = [float('nan'), float('inf'), -float('inf'), 0.0, -0.0, 1.5, -1.5, 1e-30, -1e30]
def val():
    return rnd.choice(special) if rnd.random() < 0.3 else rnd.uniform(-1e6, 1e6)
with open('f64.bin', 'wb') as f:
    for i in range(3000):
        f.write(struct.pack('<Q', i) + struct.pack('<d', val()) + bytes(8))
with open('f32be.bin', 'wb') as f:
    for i in range(3000):
        f.write(struct.pack('>I', i) + struct.pack('>f', val()))
with open('sb.bin', 'wb') as f:   # the Sort Benchmark's records: a 10-byte key
    for i in range(3000):
        # skewed: two in five share their first 8 bytes (one word), told apart by
        # the last two alone
        pre = b'SAMEPREF' if rnd.random() < 0.4 else bytes(rnd.choice(b'AB\x00\xff') for _ in range(8))
        k = pre + bytes(rnd.choice(b'\x00\x01\x02\xff') for _ in range(2))
        f.write(k + struct.pack('<Q', i) + bytes(82))
with open('bare.bin', 'wb') as f:
    for i in range(2000):
        f.write(struct.pack('<d', val()))
PY
for rev in 0 1; do
    r=()
    [ "$rev" = 0 ] || r=(-r)
    binsort 24 8 f64 little "$rev" f64.bin exp
    gs_ok got -B "${r[@]}" --record-size=24 --key-offset=8 --type=f64 f64.bin
    same exp got "f64 records, -r $rev"
    binsort 8 4 f32 big "$rev" f32be.bin exp
    gs_ok got -B "${r[@]}" --record-size=8 --key-offset=4 --type=f32 --endian=big f32be.bin
    same exp got "big-endian f32 records, -r $rev"
    binsort 100 0 bytes10 little "$rev" sb.bin exp
    gs_ok got -B "${r[@]}" --record-size=100 --type=bytes10 sb.bin
    same exp got "100-byte records by a 10-byte key, -r $rev"
    # spilled and merged
    gs_ok got -B "${r[@]}" --record-size=100 --type=bytes10 -S 1M sb.bin sb.bin sb.bin sb.bin
    binsort 100 0 bytes10 little "$rev" <(cat sb.bin sb.bin sb.bin sb.bin) exp
    same exp got "100-byte records by a 10-byte key, four inputs, -S 1M, -r $rev"
    binsort 8 0 f64 little "$rev" bare.bin exp
    gs_ok got -B "${r[@]}" --type=f64 bare.bin
    same exp got "bare f64 keys, -r $rev"
done
binsort 100 0 bytes4 little 0 sb.bin exp
gs_ok got -B --record-size=100 --type=bytes4 sb.bin
same exp got "100-byte records by a 4-byte key"
# -u: the first record of each key; -c: the first disorder's key, as hex.
python3 - <<'PY'
import struct
data = open('sb.bin', 'rb').read()
recs = [data[i:i + 100] for i in range(0, len(data), 100)]
out, last = [], None
for r in sorted(recs, key=lambda r: r[:10]):
    if r[:10] != last:
        out.append(r)
        last = r[:10]
open('exp', 'wb').write(b''.join(out))
PY
gs_ok got -B -u --record-size=100 --type=bytes10 sb.bin
same exp got "-u on 100-byte records by a 10-byte key"
printf 'AAAAAAAAAAxx' >c.bin
printf 'AAAAAAAAABxx' >>c.bin
printf 'AAAAAAAAAAyy' >>c.bin
expect_error 1 "^c\.bin:3: disorder: 41414141414141414141$" -- \
    "$GPUSORT" -c -B --record-size=12 --type=bytes10 c.bin
expect_usage_error "^--type=f64 takes binary keys and records" -- "$GPUSORT" --type=f64 g.txt
