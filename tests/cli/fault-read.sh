#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# fault-read.sh: a failing read (EIO) of an input, of standard input, of a spilled
# run or of a -m pass's temporary, or an input cut short while it is read (mapped:
# SIGBUS; read: fewer bytes than its size promised), is an error: exit 2, one
# message naming the file and the cause, nothing on stdout, no temporary left, the
# -o target untouched.
# Short reads (a few bytes at a time, keys cut across reads) change nothing.
# The faults come from tests/tools/faultfs.so (LD_PRELOAD): after GS_FAULT_READ_AFTER
# bytes read from files under GS_FAULT_DIR (or from pipes, GS_FAULT_READ_PIPES=1),
# reads fail with GS_FAULT_READ_ERRNO; GS_FAULT_READ_MAX caps every read.
# GSREC (make check sets it; the records cases skip without it) made absolute before
# lib.sh moves into the test's directory.
case ${GSREC:-} in '' | /*) ;; *) GSREC=$PWD/$GSREC ;; esac
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"
# shellcheck source=tests/cli/extlib.sh
. "$srcdir/extlib.sh"
need_faultfs

mkdir in tdir
# 1M u32 keys (10.8 MB of text, 4 MB binary) against -S 1M: chunks of 128 Ki keys,
# the first run spilled once the second chunk is half full (about 2.1 MB of text
# read), then merge passes read the runs back.
"$GSGEN" -t u32 -n 1000000 -s 1301 >in/in.txt
"$GSGEN" -b -t u32 -n 1000000 -s 1301 >in/in.bin
LC_ALL=C sort -n in/in.txt >exp.txt
# 40 sorted inputs for -m under ulimit -n 16: merged in passes through temporaries.
sorted=()
for i in $(seq 1 40); do
    "$GSGEN" -t u32 -n 3000 -s "$((1310 + i))" -d sorted >"in/s$i.txt"
    sorted+=("in/s$i.txt")
done

# read_fault WHAT REGEX FAULT-VAR... -- GPUSORT-ARG...: gpusort with the shim and
# the given GS_FAULT_* settings, under ulimit -n 16, -o the target: exit 2, one line
# matching REGEX, no stdout, nothing left in tdir, the target as it was. On the
# CPU (--device=cpu overrides the --device=0 of tests/gpu/suite.sh): the CUDA
# runtime alone holds more descriptors than ulimit -n 16 leaves.
read_fault() {
    local what=$1 regex=$2 env=()
    shift 2
    while [ "$1" != "--" ]; do env+=("$1"); shift; done
    shift
    target_init
    STATUS=0
    (ulimit -n 16 && exec env LD_PRELOAD="$FAULT_PRELOAD" "${env[@]}" \
        "$GPUSORT" --device=cpu --type=u32 -T tdir -o "$TARGET" "$@" >"$RUN_OUT" 2>"$RUN_ERR") || STATUS=$?
    [ "$STATUS" -eq 2 ] || fail "$what: exited $STATUS (2 expected); stderr: $(cat "$RUN_ERR")"
    empty "$RUN_OUT" "stdout ($what)"
    check_msg "$RUN_ERR" "$regex" no
    (target_check) || fail "$what: the -o target or its directory is not as before"
    dir_empty tdir "$what"
    rm -rf "$TARGET_DIR"
}
eio='Input/output error$'

# An input file fails at its first byte, mid-block, and after runs have spilled
# (3 MB in: the temporaries must go too); text and binary; sort and -m.
for after in 0 100000 3000000; do
    read_fault "EIO after $after bytes of a text input" "^read error on 'in/in\.txt': $eio" \
        GS_FAULT_DIR=in GS_FAULT_READ_AFTER="$after" -- -S 1M in/in.txt
    read_fault "EIO after $after bytes of a binary input" "^read error on 'in/in\.bin': $eio" \
        GS_FAULT_DIR=in GS_FAULT_READ_AFTER="$after" -- -B -S 1M in/in.bin
done
read_fault "EIO in the 7th input of -m" "^read error on 'in/s7\.txt': $eio" \
    GS_FAULT_DIR=in GS_FAULT_READ_AFTER=$(( $(cat in/s{1..6}.txt | wc -c) + 100 )) \
    -- -m "${sorted[@]}"

# Standard input from a pipe.
"$GSGEN" -t u32 -n 300000 -s 1302 >pipe.txt
target_init
STATUS=0
env LD_PRELOAD="$FAULT_PRELOAD" GS_FAULT_READ_PIPES=1 GS_FAULT_READ_AFTER=2000000 \
    "$GPUSORT" --type=u32 -S 1M -T tdir -o "$TARGET" <pipe.txt >"$RUN_OUT" 2>"$RUN_ERR" || STATUS=$?
# A file redirected is not a pipe: the shim leaves it alone, and the sort succeeds.
[ "$STATUS" -eq 0 ] || fail "stdin from a file with GS_FAULT_READ_PIPES: exited $STATUS: $(cat "$RUN_ERR")"
rm -rf "$TARGET_DIR"
target_init
set +e
# shellcheck disable=SC2002  # a pipe is the point
cat pipe.txt | env LD_PRELOAD="$FAULT_PRELOAD" GS_FAULT_READ_PIPES=1 GS_FAULT_READ_AFTER=2000000 \
    "$GPUSORT" --type=u32 -S 1M -T tdir -o "$TARGET" >"$RUN_OUT" 2>"$RUN_ERR"
st=("${PIPESTATUS[@]}")
set -e
[ "${st[1]}" -eq 2 ] || fail "EIO on a stdin pipe: exited ${st[1]} (2 expected); stderr: $(cat "$RUN_ERR")"
check_msg "$RUN_ERR" "^read error on '-': $eio" no
(target_check) || fail "EIO on a stdin pipe: the -o target is not as before"
dir_empty tdir "EIO on a stdin pipe"
rm -rf "$TARGET_DIR"

# -c: a read error is exit 2 with its message, not a verdict.
oracle in/in.txt >in/sorted.txt
expect_error 2 "^read error on 'in/sorted\.txt': $eio" -- \
    env LD_PRELOAD="$FAULT_PRELOAD" GS_FAULT_DIR=in GS_FAULT_READ_AFTER=5000000 \
    "$GPUSORT" -c --type=u32 in/sorted.txt

# A large text input is read through a mapping of it: cut short while mapped (the
# shim truncates it right after the mapping is made), its pages past the end raise
# SIGBUS, which is a read error of that file, at once and after runs have spilled
# (3 MiB in: the temporaries must go too); cut in the middle of a page, the rest of
# that page reads as NUL bytes, which is the same read error, not a bad token (the
# last case: the file ended in that page, so no later page raises SIGBUS).
head -c 3149000 in/in.txt | sed '$d' >in/short.txt
for cut in 0 3145728 3146728 short:3146728; do
    case $cut in
        short:*) cp in/short.txt in/cut.txt; cut=${cut#short:} ;;
        *) cp in/in.txt in/cut.txt ;;
    esac
    read_fault "a mapped text input of $(wc -c <in/cut.txt) bytes cut to $cut" \
        "^read error on 'in/cut\.txt': the file was cut short while being read" \
        GS_FAULT_DIR=in GS_FAULT_MAP_CUT="$cut" -- -S 1M in/cut.txt
done
rm -f in/cut.txt in/short.txt

# A lone records input that fits in one chunk is mapped as the table's arena
# (records/loader.c): cut short at once, at a page's end in its middle, and inside
# its last page (no SIGBUS there: the NUL bytes it reads as are found when the file's
# size is checked, after the index and before the output is committed).
if [ -x "${GSREC:-}" ]; then
    "$GSREC" -s 1303 --bench -n 40000 >in/rec.csv
    recsize=$(wc -c <in/rec.csv)
    for cut in 0 1048576 $((recsize - 100)); do
        cp in/rec.csv in/cut.csv
        read_fault "a mapped records input of $recsize bytes cut to $cut" \
            "^read error on 'in/cut\.csv': the file was cut short while being read" \
            GS_FAULT_DIR=in GS_FAULT_MAP_CUT="$cut" -- -t, -k2,2 in/cut.csv
    done
    rm -f in/cut.csv
fi

# An input cut short after it was opened and its size read, while it is read with
# pread(2) or read(2) (the shim cuts it right before the first read under cut/, and
# refuses to map it): bytes its size promised are missing, the same read error as a
# mapping's, never a quiet end with the keys read so far: at once, mid-block, and
# after runs have spilled (3 MiB in); text, binary, -c, -m among sorted inputs, and
# records alone and after another input.
mkdir cut
cut_fault() {   # WHAT FILE CUT -- GPUSORT-ARG... (FILE copied into cut/ first)
    local what=$1 file=$2 cut=$3 name
    name=cut/$(basename "$file")
    shift 4
    cp "$file" "$name"
    read_fault "$what: $name cut to $cut" \
        "^read error on '${name//./\\.}': the file was cut short while being read" \
        GS_FAULT_DIR=cut GS_FAULT_READ_CUT="$cut" -- "$@"
    rm -f "$name"
}
for cut in 0 100000 3145728; do
    cut_fault "a text input" in/in.txt "$cut" -- -S 1M cut/in.txt
    cut_fault "a binary input" in/in.bin "$cut" -- -B -S 1M cut/in.bin
done
cp exp.txt cut/sorted.txt
expect_error 2 "^read error on 'cut/sorted\.txt': the file was cut short while being read" -- \
    env LD_PRELOAD="$FAULT_PRELOAD" GS_FAULT_DIR=cut GS_FAULT_READ_CUT=100000 \
    "$GPUSORT" -c --type=u32 cut/sorted.txt
rm cut/sorted.txt
cut_fault "-m, the second input" in/s2.txt 5000 -- -m in/s1.txt cut/s2.txt in/s3.txt
if [ -x "${GSREC:-}" ]; then
    [ -f in/rec.csv ] || "$GSREC" -s 1303 --bench -n 40000 >in/rec.csv
    cut_fault "a records input" in/rec.csv 1048576 -- -t, -k2,2 cut/rec.csv
    cut_fault "records, the second input" in/rec.csv 0 -- -t, -k2,2n in/s1.txt cut/rec.csv
    cut_fault "-g, a number a line" in/in.txt 100000 -- -g cut/in.txt
fi
rmdir cut

# The spilled runs fail when read back for the merge (first read, and later), with
# and without compression; then the temporaries of -m's passes.
for c in none lz4; do
    for after in 0 1000000; do
        read_fault "EIO after $after bytes of spilled runs (--compress-temp=$c)" \
            "^read error on temporary file 'tdir/gpusort-run-[A-Za-z0-9]+': $eio" \
            GS_FAULT_DIR=tdir GS_FAULT_READ_AFTER="$after" -- -S 1M --compress-temp="$c" in/in.txt
    done
done
# The same for spilled records (records/spill_cursor.c: each block and its header in
# one read, the runs spread over files of their own), and short reads of them
# change nothing: 100K CSV lines (4.5 MB) against -S 1M.
if [ -x "${GSREC:-}" ]; then
    "$GSREC" -s 1304 --bench -n 100000 >in/rec.csv
    LC_ALL=C sort -t, -k2,2n in/rec.csv >exp-rec.csv
    for c in none lz4; do
        for after in 0 1000000; do
            read_fault "EIO after $after bytes of spilled records (--compress-temp=$c)" \
                "^read error on temporary file 'tdir/gpusort-records-[A-Za-z0-9]+': $eio" \
                GS_FAULT_DIR=tdir GS_FAULT_READ_AFTER="$after" -- -S 1M --compress-temp="$c" \
                -t, -k2,2 in/rec.csv
        done
        run_cmd env LD_PRELOAD="$FAULT_PRELOAD" GS_FAULT_DIR=tdir GS_FAULT_READ_MAX=1000 \
            "$GPUSORT" --type=u32 -S 1M -T tdir --compress-temp="$c" -t, -k2,2n in/rec.csv
        { [ "$STATUS" -eq 0 ] && [ ! -s "$RUN_ERR" ]; } || fail "short reads of records' runs ($c): exited $STATUS: $(cat "$RUN_ERR")"
        same exp-rec.csv "$RUN_OUT" "spilled records read 1000 bytes at a time ($c)"
        dir_empty tdir "short reads of records' runs ($c)"
    done
    rm -f in/rec.csv exp-rec.csv
fi
read_fault "EIO reading a -m pass's temporary" \
    "^read error on 'tdir/gpusort-[A-Za-z0-9]+': $eio" \
    GS_FAULT_DIR=tdir GS_FAULT_READ_AFTER=1000 -- -m "${sorted[@]}"

# Short reads change nothing: inputs a few bytes a read (binary keys cut across
# reads: 3 and 5 are not multiples of 4), spilled runs read back 1000 bytes a pread.
head -c 200000 in/in.txt >in/part.txt
head -c 40000 in/in.bin >in/part.bin
oracle in/part.txt >exp-part.txt
decode u32 little in/part.bin | LC_ALL=C sort -n >exp-part-bin.txt
for max in 1 3 5; do
    run_cmd env LD_PRELOAD="$FAULT_PRELOAD" GS_FAULT_DIR=in GS_FAULT_READ_MAX="$max" \
        "$GPUSORT" --type=u32 in/part.txt
    { [ "$STATUS" -eq 0 ] && [ ! -s "$RUN_ERR" ]; } || fail "text, $max bytes a read: exited $STATUS: $(cat "$RUN_ERR")"
    same exp-part.txt "$RUN_OUT" "text, $max bytes a read"
    run_cmd env LD_PRELOAD="$FAULT_PRELOAD" GS_FAULT_DIR=in GS_FAULT_READ_MAX="$max" \
        "$GPUSORT" --type=u32 --input-format=binary in/part.bin
    { [ "$STATUS" -eq 0 ] && [ ! -s "$RUN_ERR" ]; } || fail "binary, $max bytes a read: exited $STATUS: $(cat "$RUN_ERR")"
    same exp-part-bin.txt "$RUN_OUT" "binary, $max bytes a read"
done
for c in none lz4; do
    run_cmd env LD_PRELOAD="$FAULT_PRELOAD" GS_FAULT_DIR=tdir GS_FAULT_READ_MAX=1000 \
        "$GPUSORT" --type=u32 -S 1M -T tdir --compress-temp="$c" in/in.txt
    { [ "$STATUS" -eq 0 ] && [ ! -s "$RUN_ERR" ]; } || fail "short reads of runs ($c): exited $STATUS: $(cat "$RUN_ERR")"
    same exp.txt "$RUN_OUT" "spilled runs read 1000 bytes at a time ($c)"
    dir_empty tdir "short reads of runs ($c)"
done
