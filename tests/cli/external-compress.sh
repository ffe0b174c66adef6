#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# external-compress.sh: --compress-temp=none, lz4 and auto give the same, right
# output, and LZ4 makes the spilled runs of random keys smaller than none does.
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"
# shellcheck source=tests/cli/extlib.sh
. "$srcdir/extlib.sh"
not_under_tsan "its subject is the spilled format; the spill's threads are spill.sh's"
need_gscheck
mkdir tdir

# 3M random u32 keys (12 MB) against -S 2M. Sorted runs of random keys are
# compressible (small deltas), so lz4 must spill fewer bytes than none. The oracle
# is gsgen -d sorted: the same keys, sorted by gsgen's own radix sort.
"$GSGEN" -t u32 -n 3000000 -s 601 >in.txt
"$GSGEN" -t u32 -n 3000000 -s 601 -d sorted >exp.txt
declare -A spill
for c in none lz4 auto; do
    run_cmd "$GPUSORT" --type=u32 -S 2M -T tdir --compress-temp="$c" --stats in.txt
    [ "$STATUS" -eq 0 ] || fail "--compress-temp=$c exited $STATUS: $(cat "$RUN_ERR")"
    stats_only "$RUN_ERR"
    same exp.txt "$RUN_OUT" "-S 2M --compress-temp=$c"
    cp "$RUN_OUT" "out-$c.txt"
    dir_empty tdir "--compress-temp=$c"
    spill[$c]=$(spill_bytes "$RUN_ERR")
done
same out-none.txt out-lz4.txt "--compress-temp=lz4 against none"
same out-none.txt out-auto.txt "--compress-temp=auto against none"
none=${spill[none]} lz4=${spill[lz4]} auto=${spill[auto]}
# Without compression a spilled run is its keys: at least most of the 12 MB spill.
[ "$none" -gt 6000000 ] || fail "--compress-temp=none spilled only $none bytes of 12 MB of keys"
[ "$lz4" -gt 0 ] || fail "--compress-temp=lz4 spilled nothing"
[ "$lz4" -lt "$none" ] || fail "--compress-temp=lz4 spilled $lz4 bytes, none $none: not smaller"
# auto keeps LZ4 for runs it shrinks by a tenth or more; these shrink far more.
[ "$auto" -lt "$none" ] || fail "--compress-temp=auto spilled $auto bytes, none $none: not smaller"

# 64-bit keys from a pipe, each codec: in order, none lost.
want=$("$GSGEN" -t i64 -n 1500000 -s 602 --sum)
for c in none lz4 auto; do
    bin_pipe i64 -n 1500000 -s 602 -- -S 2M -T tdir --compress-temp="$c" --
    sums_equal "$want" "$GOT" "i64 pipe --compress-temp=$c"
    dir_empty tdir "i64 pipe --compress-temp=$c"
done
