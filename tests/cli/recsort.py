# SPDX-License-Identifier: MIT
# recsort.py: the binary records' oracle, an independent stable sort in Python.
# python3 recsort.py SIZE OFFSET TYPE ENDIAN FILE... writes the FILEs' records
# (concatenated) sorted by key, stably (Python's sort is stable, and stays so with
# reverse=True), four ways at once: exp.bin ascending, exp-r.bin descending,
# exp-u.bin and exp-ru.bin the same with only the first record of each run of equal
# keys.
import struct
import sys

size, off, typ, endian = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
fmt = ('<' if endian == 'little' else '>') + {'i32': 'i', 'u32': 'I', 'i64': 'q', 'u64': 'Q'}[typ]
data = b''.join(open(f, 'rb').read() for f in sys.argv[5:])
assert len(data) % size == 0, 'not whole records'
recs = [(struct.unpack_from(fmt, data, i)[0], data[i - off:i - off + size])
        for i in range(off, len(data), size)]
for rev, all_name, first_name in ((False, 'exp.bin', 'exp-u.bin'), (True, 'exp-r.bin', 'exp-ru.bin')):
    ordered = sorted(recs, key=lambda kr: kr[0], reverse=rev)
    firsts = [kr for n, kr in enumerate(ordered) if n == 0 or kr[0] != ordered[n - 1][0]]
    for name, out in ((all_name, ordered), (first_name, firsts)):
        with open(name, 'wb') as f:
            f.write(b''.join(r for _, r in out))
