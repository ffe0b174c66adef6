#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# external-extremes.sh: external sorts whose keys crowd the ends of each type's
# range (the largest u64 is also the merge's end-of-run marker, so ties with it
# must not end a merge early), over many runs, against sort -n, -r and -u.
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"
# shellcheck source=tests/cli/extlib.sh
. "$srcdir/extlib.sh"
not_under_tsan "its subject is the keys' extreme values; the external sort's threads are external-many-runs.sh's and spill.sh's"
mkdir tdir
seed=700
while read -r t lo hi; do
    for range in "$lo $((lo + 3))" "$((hi - 3)) $hi"; do
        [ "$t" = u64 ] && [ "$range" = "$((hi - 3)) $hi" ] && range="18446744073709551612 18446744073709551615"
        # shellcheck disable=SC2086 # two numbers, split on purpose
        set -- $range
        seed=$((seed + 1))
        "$GSGEN" -t "$t" -n 1000000 -s "$seed" --min="$1" --max="$2" >in.txt
        LC_ALL=C sort -n in.txt >exp.txt
        gs_ok out.txt --type="$t" -S 1M -T tdir in.txt
        same exp.txt out.txt "$t [$1, $2]"
        gs_ok out.txt --type="$t" -S 1M -T tdir -r in.txt
        tac exp.txt >exp-r.txt
        same exp-r.txt out.txt "$t [$1, $2] -r"
        gs_ok out.txt --type="$t" -S 1M -T tdir -u in.txt
        uniq exp.txt >exp-u.txt
        same exp-u.txt out.txt "$t [$1, $2] -u"
        dir_empty tdir "$t [$1, $2]"
    done
done <<'TYPES'
i32 -2147483648 2147483647
u32 0 4294967295
i64 -9223372036854775808 9223372036854775807
u64 0 18446744073709551615
TYPES
