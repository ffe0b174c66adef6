#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# gpu-aside.sh: with a GPU, a chunk is sorted aside (its own thread and staging
# threads) while the next one is read, into two buffers pinned for DMA once the input
# takes more than one chunk; a GPU merge's pieces are pinned, each sorted aside
# while the next is gathered.
# Chunks small against -S (--gpu-memory=64M, -S 2G) make both happen. Checked for
# u32 and u64, binary and text, from a file and a pipe, with -r and -u, against an
# oracle computed apart (gsgen's sums, of the distinct keys for -u, and gscheck's
# order; sort -n); an input error while a chunk is aside. Skipped where
# gpusort sees no GPU.
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"
# shellcheck source=tests/cli/extlib.sh
. "$srcdir/extlib.sh"
need_gscheck
has_gpu || skip "nvidia-smi lists no GPU"
gpusort_sees_gpu || skip "this gpusort sees no GPU"

# aside_used WHAT: the --stats in RUN_ERR show chunks sorted aside, chunks read into
# pinned buffers (and copied out of them), and merge pieces sorted aside in pinned
# buffers.
aside_used() {
    grep -Eq 'stats: [1-9][0-9]* chunks sorted aside' "$RUN_ERR" \
        || fail "$1: no chunk was sorted aside: $(cat "$RUN_ERR")"
    grep -Eq 'stats: [1-9][0-9]* bytes of sorted chunks copied out of pinned' "$RUN_ERR" \
        || fail "$1: no chunk was read into a pinned buffer: $(cat "$RUN_ERR")"
    grep -Eq 'stats: [1-9][0-9]* merge pieces sorted aside' "$RUN_ERR" \
        || fail "$1: no merge piece was sorted aside: $(cat "$RUN_ERR")"
    grep -Eq 'stats: pinned [1-9][0-9]* bytes' "$RUN_ERR" \
        || fail "$1: nothing was pinned: $(cat "$RUN_ERR")"
}
opts="--device=0 --gpu-memory=64M -S 2G --stats"

for t in u32 u64; do
    "$GSGEN" -b -t $t -n 30000000 -s 71 >in.bin
    want=$("$GSGEN" -b -t $t -n 30000000 -s 71 --sum)
    # shellcheck disable=SC2086
    run_cmd "$GPUSORT" $opts -B --type=$t -o out.bin in.bin
    [ "$STATUS" -eq 0 ] || fail "$t, a file: exited $STATUS: $(cat "$RUN_ERR")"
    aside_used "$t, a file"
    sums_equal "$want" "$("$GSCHECK" -t $t out.bin)" "$t, a file"
    # shellcheck disable=SC2086
    run_cmd sh -c "cat in.bin | \"\$0\" $opts -B --type=$t -r -o out.bin" "$GPUSORT"
    [ "$STATUS" -eq 0 ] || fail "$t -r, a pipe: exited $STATUS: $(cat "$RUN_ERR")"
    aside_used "$t -r, a pipe"
    sums_equal "$want" "$("$GSCHECK" -t $t -r out.bin)" "$t -r, a pipe"
    # -u: keys drawn from a small range, so most repeat; gsgen --distinct's sums.
    "$GSGEN" -b -t $t -n 30000000 -s 72 --min=0 --max=5000000 >dup.bin
    want=$("$GSGEN" -b -t $t -n 30000000 -s 72 --min=0 --max=5000000 --distinct)
    # shellcheck disable=SC2086
    run_cmd "$GPUSORT" $opts -B --type=$t -u -o out.bin dup.bin
    [ "$STATUS" -eq 0 ] || fail "$t -u: exited $STATUS: $(cat "$RUN_ERR")"
    aside_used "$t -u"
    sums_equal "$want" "$("$GSCHECK" -t $t -u out.bin)" "$t -u"
    rm -f in.bin out.bin dup.bin
done

# Text: 12M lines against sort -n.
"$GSGEN" -t i64 -n 12000000 -s 73 >in.txt
LC_ALL=C sort -n in.txt >exp.txt
# shellcheck disable=SC2086
run_cmd "$GPUSORT" $opts --type=i64 in.txt
[ "$STATUS" -eq 0 ] || fail "text: exited $STATUS: $(cat "$RUN_ERR")"
same exp.txt "$RUN_OUT" "text i64"
aside_used "text i64"

# A bad line after 10M keys: chunks are aside when reading stops; one message, exit
# 2, the -o target untouched.
target_init
{ head -n 10000000 in.txt; echo 12x; } >bad.txt
# shellcheck disable=SC2086
expect_error 2 'bad.txt:10000001: ' -- "$GPUSORT" --device=0 --gpu-memory=64M -S 2G --type=i64 \
    -o "$TARGET" bad.txt
target_check
