#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# merge-pipe.sh: many runs merged into a pipe, binary keys read by gscheck (order,
# count and sum against gsgen's): unsigned keys, which a GPU's merge hands to the
# pipe as pages (output_give), and signed ones, which are encoded first; runs in
# memory and spilled; -u over few values.
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"

mkdir tdir
for t in u32 u64 i32; do
    "$GSGEN" -n 3000000 -t "$t" -s 77 -b >in.bin
    want=$("$GSGEN" -n 3000000 -t "$t" -s 77 --sum)
    for S in 8M 40M; do
        got=$("$GPUSORT" -B --type="$t" -S "$S" -T tdir in.bin | "$GSCHECK" -t "$t") ||
            fail "-B --type=$t -S $S into a pipe: out of order or failed"
        [ "$got" = "$want" ] || fail "-B --type=$t -S $S into a pipe: count and sum '$got', want '$want'"
        [ -z "$(ls -A tdir)" ] || fail "temporary files left in -T: $(ls -A tdir)"
    done
done

"$GSGEN" -n 3000000 -t u64 -s 78 -d few -b >few.bin
want=$("$GSGEN" -n 3000000 -t u64 -s 78 -d few --distinct)
got=$("$GPUSORT" -B -u --type=u64 -S 8M -T tdir few.bin | "$GSCHECK" -u -t u64) ||
    fail "-B -u --type=u64 -S 8M into a pipe: not strictly ascending or failed"
[ "$got" = "$want" ] || fail "-B -u --type=u64 into a pipe: count and sum '$got', want '$want'"
exit 0
