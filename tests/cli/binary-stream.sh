#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# binary-stream.sh: binary keys from regular files to binary output, large enough
# for a GPU (3M keys). Where a GPU sorts them (--stats names it), they must have
# been streamed through it (read into its pinned buffers, sorted there, written back
# slice by slice: pipeline/stream.c; --stats gives each stage's sides and its
# bound). Bound for a file, with or without a GPU, they are placed in it by two
# threads (--stats counts every byte as written mapped).
# Checked by gscheck (order, -u's strictness) against gsgen's sums (--distinct for
# -u) for every type and byte order; -r; standard input that is a regular file
# (read the plain way, never streamed); several files with a key across two;
# standard output to a pipe and to a file; -o naming its input; and an input whose
# last key is partial, or one that fails to be read mid-stream: exit 2, one line,
# -o untouched, nothing left behind.
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"
# shellcheck source=tests/cli/extlib.sh
. "$srcdir/extlib.sh"
not_under_tsan "binary keys placed by two threads are stdout-file.sh's and write-ahead.sh's there"
need_gscheck

n=3000000

# streamed WHAT: the --stats in RUN_ERR show the keys streamed wherever a GPU sorted.
streamed() {
    if grep -q 'stats: gpu [0-9]* (' "$RUN_ERR"; then
        grep -Eq "stats: $n keys streamed through gpu" "$RUN_ERR" ||
            fail "$1: a GPU sorted, but did not stream the keys: $(cat "$RUN_ERR")"
        stream_stages "$1"
    fi
}

# ok WHAT: exit 0, nothing on stdout (the output went to -o).
ok() {
    [ "$STATUS" -eq 0 ] || fail "$1: exited $STATUS: $(cat "$RUN_ERR")"
}

for t in i32 u32 i64 u64; do
    for e in little big; do
        "$GSGEN" -b -n $n -t $t --endian=$e -s 91 >in.bin
        want=$("$GSGEN" -b -n $n -t $t --endian=$e -s 91 --sum)
        run_cmd "$GPUSORT" --stats --parallel=2 -B --type=$t --endian=$e -o out.bin in.bin
        ok "$t $e"
        streamed "$t $e"
        placed out.bin "$t $e"
        sums_equal "$want" "$("$GSCHECK" -t $t --endian=$e out.bin)" "$t $e"
    done
    # -r, to standard output: a pipe, then a file.
    "$GSGEN" -b -n $n -t $t -s 92 >in.bin
    want=$("$GSGEN" -b -n $n -t $t -s 92 --sum)
    run_cmd sh -c '"$0" --stats --parallel=2 -B -r --type="$1" in.bin | cat >out.bin' \
        "$GPUSORT" $t
    ok "$t -r to a pipe"
    streamed "$t -r to a pipe"
    sums_equal "$want" "$("$GSCHECK" -t $t -r out.bin)" "$t -r to a pipe"
    run_cmd sh -c '"$0" --stats --parallel=2 -B -r --type="$1" in.bin >out.bin' "$GPUSORT" $t
    ok "$t -r to a file on standard output"
    streamed "$t -r to a file on standard output"
    placed out.bin "$t -r to a file on standard output"
    sums_equal "$want" "$("$GSCHECK" -t $t -r out.bin)" "$t -r to a file on standard output"
done

# Standard input redirected from a regular file is read from where it stands, the
# plain way (not streamed), and sorted all the same.
run_cmd sh -c '"$0" --parallel=2 -B --type=u64 - <in.bin >out.bin' "$GPUSORT"
ok "standard input, a regular file"
sums_equal "$want" "$("$GSCHECK" -t u64 out.bin)" "standard input, a regular file"

# -u: keys from a small range, so that runs of equal keys cross the slices.
"$GSGEN" -b -n $n -t u64 -s 93 --min=0 --max=200000 >dup.bin
want=$("$GSGEN" -b -n $n -t u64 -s 93 --min=0 --max=200000 --distinct)
run_cmd "$GPUSORT" --stats --parallel=2 -B -u --type=u64 -o out.bin dup.bin
ok "-u"
streamed "-u"
sums_equal "$want" "$("$GSCHECK" -t u64 -u out.bin)" "-u"

# Several files, a key across the first two (1 + 7 bytes), the last one small; -o
# naming the first input.
"$GSGEN" -b -n $n -t u64 -s 94 >all.bin
want=$("$GSGEN" -b -n $n -t u64 -s 94 --sum)
head -c 8000001 all.bin >a.bin
tail -c +8000002 all.bin | head -c 15999999 >b.bin
tail -c +24000001 all.bin >c.bin
[ $(($(wc -c <a.bin) + $(wc -c <b.bin) + $(wc -c <c.bin))) -eq $((8 * n)) ] ||
    fail "the three pieces do not add up to the whole"
run_cmd "$GPUSORT" --stats --parallel=2 -B --type=u64 -o a.bin a.bin b.bin c.bin
ok "three files, -o naming the first"
streamed "three files, -o naming the first"
placed a.bin "three files, -o naming the first"
sums_equal "$want" "$("$GSCHECK" -t u64 a.bin)" "three files, -o naming the first"

# A partial key at the end: exit 2, one line naming the input, -o untouched, no
# temporary left.
head -c $((4 * n + 3)) in.bin >odd.bin
target_init
expect_error 2 "odd.bin: $((4 * n + 3)) bytes: not a whole number of 4-byte keys\$" -- \
    "$GPUSORT" -B --type=u32 -o "$TARGET" odd.bin
target_check
# The same across two files: the first file is the one to blame.
total=$(($(wc -c <odd.bin) + $(wc -c <in.bin)))
expect_error 2 "odd.bin: $((4 * n + 3)) bytes: not a whole number of 4-byte keys \(the 2 inputs together: $total bytes\)" -- \
    "$GPUSORT" -B --type=u32 -o "$TARGET" odd.bin in.bin
target_check

# An input that fails to be read (EIO, from tests/tools/faultfs.so) half way in,
# where a GPU streams it, once some slices have crossed: exit 2, one line, -o
# untouched, no temporary left.
if [ -n "${FAULTFS:-}" ] && [ -f "$(abspath "$FAULTFS")" ]; then
    need_faultfs
    mkdir -p fin
    cp in.bin fin/in.bin
    target_init
    expect_error 2 "^read error on 'fin/in\.bin': Input/output error\$" -- \
        env LD_PRELOAD="$FAULT_PRELOAD" GS_FAULT_DIR="$PWD/fin" GS_FAULT_READ_AFTER=$((2 * n)) \
        "$GPUSORT" -B --type=u32 -o "$TARGET" fin/in.bin
    target_check
fi
