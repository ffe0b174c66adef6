#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# records-ties.sh: long runs of records whose first 8 bytes of key are equal
# (records/ties.h): ISO timestamps that share their first 14 bytes, a few integer
# keys over many lines (sort's last resort then decides, by the whole lines: lines
# that are prefixes of others, lines with NUL bytes, equal lines, lines equal for
# more than 112 bytes), Sort Benchmark records whose 10-byte keys share their first
# 8 bytes. Runs of 70,000 records and more, so that the pool settles them (and their
# runs of equal next words) together; on one thread and on four; in memory and
# spilled. Against LC_ALL=C sort, and binary records against a stable sort in
# Python.
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"
command -v python3 >/dev/null 2>&1 || skip "python3 (the oracle) is missing"

python3 - <<'PY'
import random
rnd = random.Random(46)
letters = b'abcXYZ'
with open('ts.txt', 'wb') as f:
    for i in range(150000):
        # 14 bytes shared; 60 timestamps in all, so that runs of equal keys are long
        ts = b'2026-11-29T10:%02d:%02d' % (rnd.randrange(2), rnd.randrange(30))
        tail = bytes(rnd.choice(letters) for _ in range(rnd.randrange(0, 4)))
        if rnd.random() < 0.05:
            tail += b'\0' + tail
        f.write(ts + b',' + str(rnd.randrange(1000)).encode() + b',' + tail + b'\n')
with open('dups.txt', 'wb') as f:
    long = b'L' * 130
    for i in range(150000):
        key = b'%d' % rnd.choice((-7, 0, 42))
        r = rnd.random()
        if r < 0.1:
            rest = long + bytes(rnd.choice(letters) for _ in range(rnd.randrange(3)))
        elif r < 0.2:
            rest = b'ab' + b'\0' * rnd.randrange(3)
        else:
            rest = bytes(rnd.choice(letters) for _ in range(rnd.randrange(0, 12)))
        f.write(key + b' ' + rest + b'\n')
with open('sb.bin', 'wb') as f:
    for i in range(120000):
        pre = b'SAMEPRE\xff' if rnd.random() < 0.7 else bytes(rnd.randrange(256) for _ in range(8))
        k = pre + bytes(rnd.choice(b'\x00\x01\xfe') for _ in range(12))
        f.write(k + i.to_bytes(8, 'little') + bytes(80))
PY

# against sort with OPTS, on one thread and on four, in memory and spilled; under
# the sanitizers on four threads in memory alone (the pool's path, where the threads
# meet: the plain build runs the others)
ways="1 4 spill"
[ -z "$SAN_NAME" ] || ways=4
check_sort() {
    local in=$1 w
    shift
    LC_ALL=C sort "$@" "$in" >exp
    for w in $ways; do
        if [ "$w" = spill ]; then
            gs_ok got --parallel=4 -S 1M -T . "$@" "$in"
        else
            gs_ok got --parallel="$w" "$@" "$in"
        fi
        same exp got "gpusort ($w) $* $in"
    done
}

check_sort ts.txt -t, -k1,1
check_sort ts.txt -t, -k1,1 -r
check_sort ts.txt -t, -k1,1 -s
check_sort ts.txt -t, -k1,1 -u
check_sort ts.txt -t, -k1,1r -k2,2n
check_sort ts.txt -t, -k1.12,1
check_sort dups.txt -k1,1n
check_sort dups.txt -k1,1n -r
check_sort dups.txt -k1,1
check_sort dups.txt -b -k2

# bytes10 and bytes20 records, 7 in 10 of them sharing their first 8 bytes: stably
# by their keys (memcmp), descending with -r
for n in 10 20; do
    for rev in 0 1; do
        python3 - "$n" "$rev" <<'PY'
import sys
n, rev = int(sys.argv[1]), sys.argv[2] == '1'
data = open('sb.bin', 'rb').read()
recs = [data[i:i + 100] for i in range(0, len(data), 100)]
recs.sort(key=lambda r: r[:n], reverse=rev)   # stable either way
open('exp', 'wb').write(b''.join(recs))
PY
        r=()
        [ "$rev" = 0 ] || r=(-r)
        for p in $ways; do
            [ "$p" != spill ] || continue
            gs_ok got --parallel="$p" -B "${r[@]}" --record-size=100 --type=bytes$n sb.bin
            same exp got "bytes$n records, -r $rev, --parallel=$p"
        done
    done
done
