#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# output-over-input.sh: no write ever reaches an input before it is read. Where the
# output would go straight into a file that is also an input (standard output
# opened on it with 1<>, -o FILE written in place because FILE's directory takes no
# temporary, a hard link of it, /dev/stdout, /proc/self/fd/N), the result is sort's:
# every input read whole, then written, for records (text -k and binary
# --record-size, large enough to be mapped), bare numbers and -m. And -o /dev/stdout
# works where standard output is a pipe.
case ${GSREC:-} in '' | /*) ;; *) GSREC=$PWD/$GSREC ;; esac
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"
# shellcheck source=tests/cli/extlib.sh
. "$srcdir/extlib.sh"

need_gsrec
command -v python3 >/dev/null 2>&1 || skip "python3 (the binary records' oracle) is missing"

# Text records of 2 MiB and more (mapped: the records are copied out of the input's
# pages while the output is written), bare numbers, and binary records of 24 bytes.
"$GSREC" -s 4501 -n 60000 -f 3 -k 2 -t u32 -w 24 >rows.csv
LC_ALL=C sort -t, -k2,2n rows.csv >exp-rows
LC_ALL=C sort -u -t, -k2,2n rows.csv >exp-rows-u
"$GSGEN" -n 200000 -s 4502 >nums.txt
oracle nums.txt >exp-nums
"$GSREC" -b -s 4503 -n 100000 --record-size=24 --key-offset=0 -t i64 >recs.bin
python3 "$srcdir/recsort.py" 24 0 i64 little recs.bin || fail "the oracle failed"
[ "$(wc -c <rows.csv)" -ge 2097152 ] || fail "rows.csv is smaller than 2 MiB"

# ok WHAT: the gpusort just run (its stderr in RUN_ERR) exited ST 0, silently.
ok() {
    [ "$st" -eq 0 ] && [ ! -s "$RUN_ERR" ] ||
        fail "$1: exited $st: $(head -c 500 "$RUN_ERR")"
}

# over NAME INPUT EXPECTED ARGS...: a copy of INPUT as f, then gpusort ARGS f with
# standard output opened on f itself (1<>, no truncation): f ends as EXPECTED.
over() {
    local what=$1 input=$2 exp=$3
    shift 3
    cp "$input" f
    st=0
    "$GPUSORT" "$@" f 1<>f 2>"$RUN_ERR" || st=$?
    ok "$what: gpusort $* f 1<>f"
    same "$exp" f "$what, standard output opened on the input"
}
over "text records" rows.csv exp-rows -t, -k2,2n
over "text records, -u" rows.csv exp-rows-u -u -t, -k2,2n
over "bare numbers" nums.txt exp-nums
over "binary records" recs.bin exp.bin -B --record-size=24
over "binary records, -u" recs.bin exp-u.bin -B --record-size=24 -u
over "-m" exp-rows exp-rows -m -t, -k2,2n

# The input as standard input too (0 and 1 the same file).
cp rows.csv f
st=0
"$GPUSORT" -t, -k2,2n <f 1<>f 2>"$RUN_ERR" || st=$?
ok "standard input and output both the input"
same exp-rows f "standard input and output both the input"

# -o naming the input through /dev/stdout and /proc/self/fd/1, standard output on it.
for name in /dev/stdout /proc/self/fd/1; do
    cp rows.csv f
    st=0
    "$GPUSORT" -t, -k2,2n -o "$name" f 1<>f 2>"$RUN_ERR" || st=$?
    ok "-o $name on the input"
    same exp-rows f "-o $name on the input"
done

# -o /dev/stdout where standard output is a pipe.
"$GPUSORT" -t, -k2,2n -o /dev/stdout rows.csv 2>"$RUN_ERR" | cat >got ||
    fail "-o /dev/stdout to a pipe failed: $(cat "$RUN_ERR")"
[ ! -s "$RUN_ERR" ] || fail "-o /dev/stdout to a pipe: $(cat "$RUN_ERR")"
same exp-rows got "-o /dev/stdout to a pipe"

# What needs another user than root: FILE written in place, its directory locked.
if [ "$(id -u)" -ne 0 ] || ! command -v setpriv >/dev/null 2>&1; then
    echo "output-over-input.sh: not root, or no setpriv: the in-place cases skipped" >&2
    exit 0
fi
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
chmod 0755 "$test_dir"
chmod 0644 rows.csv nums.txt recs.bin exp-rows exp-rows-u exp-nums exp.bin exp-u.bin
chmod 0777 "$TMPDIR"

# inplace WHAT INPUT EXPECTED ARGS...: locked/f (a copy of INPUT, nobody's, in a
# directory nobody may not write) sorted by nobody with -o locked/f over itself:
# the same file (inode) ends as EXPECTED, nothing beside it.
inplace() {
    local what=$1 input=$2 exp=$3 ino
    shift 3
    rm -rf locked
    mkdir -m 0755 locked
    cp "$input" locked/f
    chown 65534 locked/f
    ino=$(stat -c %i locked/f)
    run_cmd as_nobody "$GPUSORT" "$@" -o locked/f locked/f
    [ "$STATUS" -eq 0 ] && [ ! -s "$RUN_ERR" ] ||
        fail "$what in place: exited $STATUS: $(head -c 500 "$RUN_ERR")"
    same "$exp" locked/f "$what, written in place over its own input"
    [ "$(stat -c %i locked/f)" = "$ino" ] || fail "$what: the file written in place is another file"
    [ "$(ls -A locked)" = f ] || fail "$what: stray files in the locked directory: $(ls -A locked)"
}
inplace "text records" rows.csv exp-rows -t, -k2,2n
inplace "text records, -u" rows.csv exp-rows-u -u -t, -k2,2n
inplace "bare numbers" nums.txt exp-nums
inplace "binary records" recs.bin exp.bin -B --record-size=24
inplace "binary records, -u" recs.bin exp-u.bin -B --record-size=24 -u
inplace "-m" exp-rows exp-rows -m -t, -k2,2n

# A hard link of the input, written in place: the input's inode is the output's.
rm -rf locked
mkdir -m 0755 locked
cp rows.csv locked/f
ln locked/f locked/g
chown 65534 locked/f
run_cmd as_nobody "$GPUSORT" -t, -k2,2n -o locked/g locked/f
[ "$STATUS" -eq 0 ] || fail "a hard link in place: exited $STATUS: $(head -c 500 "$RUN_ERR")"
same exp-rows locked/f "a hard link of the input, written in place"
