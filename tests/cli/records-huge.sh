#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# records-huge.sh: binary records of a mebibyte and more (larger than the part of a
# chunk one thread indexes), and text lines of several mebibytes, sorted whole:
# against an independent stable sort in Python, and sort.
case ${GSREC:-} in '' | /*) ;; *) GSREC=$PWD/$GSREC ;; esac
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"
command -v python3 >/dev/null 2>&1 || skip "python3 (the oracle) is missing"

# Records of 1 MiB, 2 MiB + 8, 4 MiB + 8 and 9 MiB + 8 bytes (8, 4, 2 and 2 of
# them), their u64 key at byte 8, some keys equal: the stable order, and -u.
for size in 1048576 2097160 4194312 9437192; do
    python3 - "$size" >r.bin <<'PY'
import os, random, struct, sys
size = int(sys.argv[1])
n = max(2, (8 << 20) // size)
rnd = random.Random(size)
for i in range(n):
    body = (bytearray(rnd.getrandbits(8) for _ in range(64)) * (size // 64 + 1))[:size]
    struct.pack_into('<Q', body, 8, rnd.randrange(3))
    struct.pack_into('<Q', body, 0, i)
    sys.stdout.buffer.write(bytes(body))
PY
    python3 "$srcdir/recsort.py" "$size" 8 u64 little r.bin || fail "the oracle failed"
    gs_ok got.bin -B --record-size="$size" --key-offset=8 --type=u64 r.bin
    same exp.bin got.bin "records of $size bytes"
    gs_ok got.bin -u -B --record-size="$size" --key-offset=8 --type=u64 r.bin
    same exp-u.bin got.bin "records of $size bytes, -u"
done

# Lines of 3 MiB and 5 MiB among short ones, by a number in field 2.
python3 - >long.csv <<'PY'
import random, sys
rnd = random.Random(7)
for i in range(40):
    width = (3 << 20, 5 << 20)[i % 2] if i % 10 == 3 else rnd.randrange(1, 30)
    sys.stdout.write('%d,%d,%s\n' % (i, rnd.randrange(5), 'x' * width))
PY
LC_ALL=C sort -t, -k2,2n long.csv >exp.csv
gs_ok got.csv -t, -k2,2n long.csv
same exp.csv got.csv "lines of several MiB"
