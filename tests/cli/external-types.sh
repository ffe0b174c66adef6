#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# external-types.sh: external sorts (many runs, spilled to -T) of every key type are
# right: text from a file against sort -n (and -r, -u; to standard output and, laid
# out and placed, to -o), binary from a pipe against gscheck's order check and
# gsgen's COUNT SUM.
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"
# shellcheck source=tests/cli/extlib.sh
. "$srcdir/extlib.sh"
need_gscheck
not_under_tsan "the external sort's threads are external-many-runs.sh's, spill.sh's and external-merge-volume.sh's"
leaks_checked_elsewhere "the external sort's paths are external-many-runs.sh's and spill.sh's"

# Sizes: 2M text keys against -S 2M is 8 MB (u32) to 16 MB (i64) of keys, 6 to 16
# full chunks, so dozens of runs; sort -n of them takes a second or two. The binary
# pipes take 3M keys against -S 1M.
NTEXT=$(scaled 2000000 600000)
NBIN=$(scaled 3000000 1000000)
mkdir tdir
seed=400
can_fallocate=no
if command -v fallocate >/dev/null && fallocate -l 4096 probe.bin 2>/dev/null; then
    can_fallocate=yes
fi

for t in i32 u32 i64 u64; do
    seed=$((seed + 1))
    case $t in
        i32 | i64) lo=-20000 hi=20000 ;;
        *) lo=0 hi=40000 ;;
    esac

    # Text from a file, the type's whole range. gsgen writes canonical text, so
    # sort -n of it is the oracle; sort -rn and sort -nu are its reverse and its
    # uniq (equal keys are equal lines).
    "$GSGEN" -t "$t" -n "$NTEXT" -s "$seed" >in.txt
    LC_ALL=C sort -n in.txt >exp.txt
    run_cmd "$GPUSORT" --type="$t" -S 2M -T tdir --stats in.txt
    [ "$STATUS" -eq 0 ] || fail "$t: -S 2M exited $STATUS: $(cat "$RUN_ERR")"
    stats_only "$RUN_ERR"
    [ "$(spill_bytes "$RUN_ERR")" -gt 0 ] || fail "$t: -S 2M spilled nothing: $(cat "$RUN_ERR")"
    same exp.txt "$RUN_OUT" "$t -S 2M"
    dir_empty tdir "$t -S 2M"

    gs_ok out.txt --type="$t" -S 2M -T tdir -r in.txt
    tac exp.txt >exp-r.txt
    same exp-r.txt out.txt "$t -S 2M -r"
    gs_ok out.txt --type="$t" -S 2M -T tdir -u in.txt
    uniq exp.txt >exp-u.txt
    same exp-u.txt out.txt "$t -S 2M -u"
    dir_empty tdir "$t -S 2M -r, -u"

    # Text to -o on two threads: the last merge lays its output out from ranks in
    # the runs and formats its pieces in place (pmerge.h), where the file system
    # gives space by fallocate; --stats counts those bytes. Forward and -r.
    run_cmd "$GPUSORT" --type="$t" -S 2M -T tdir --parallel=2 --stats -o out-o.txt in.txt
    [ "$STATUS" -eq 0 ] || fail "$t: -S 2M -o exited $STATUS: $(cat "$RUN_ERR")"
    same exp.txt out-o.txt "$t -S 2M -o, two threads"
    if [ "$can_fallocate" = yes ]; then
        grep -q "stats: $(wc -c <out-o.txt) bytes written mapped" "$RUN_ERR" ||
            fail "$t: -S 2M -o was not placed: $(cat "$RUN_ERR")"
    fi
    gs_ok out.txt --type="$t" -S 2M -T tdir --parallel=2 -r -o out-o.txt in.txt
    same exp-r.txt out-o.txt "$t -S 2M -r -o, two threads"
    dir_empty tdir "$t -S 2M -o"

    # -u and -r -u where most keys repeat (a small range), against sort -nu/-rnu.
    "$GSGEN" -t "$t" -n 1000000 -s "$seed" --min="$lo" --max="$hi" >small.txt
    gs_ok out.txt --type="$t" -S 1M -T tdir -u small.txt
    LC_ALL=C sort -n -u small.txt >exp-u.txt
    same exp-u.txt out.txt "$t -S 1M -u, many repeats"
    gs_ok out.txt --type="$t" -S 1M -T tdir -r -u small.txt
    LC_ALL=C sort -r -n -u small.txt >exp-ru.txt
    same exp-ru.txt out.txt "$t -S 1M -r -u, many repeats"
    dir_empty tdir "$t -S 1M -u"

    # Binary from a pipe: gpusort cannot know the size in advance.
    want=$("$GSGEN" -t "$t" -n "$NBIN" -s "$seed" --sum)
    bin_pipe "$t" -n "$NBIN" -s "$seed" -- -S 1M -T tdir --
    sums_equal "$want" "$GOT" "$t binary pipe -S 1M"
    bin_pipe "$t" -n "$NBIN" -s "$seed" --endian=big -- -S 1M -T tdir -r --endian=big -- -r --endian=big
    sums_equal "$want" "$GOT" "$t binary pipe -S 1M -r --endian=big"
    want=$("$GSGEN" -t "$t" -n "$NBIN" -s "$seed" --min="$lo" --max="$hi" --distinct)
    bin_pipe "$t" -n "$NBIN" -s "$seed" --min="$lo" --max="$hi" -- -S 1M -T tdir -u -- -u
    sums_equal "$want" "$GOT" "$t binary pipe -S 1M -u"
    dir_empty tdir "$t binary pipes"
done
