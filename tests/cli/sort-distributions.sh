#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# sort-distributions.sh: equal, sorted, reversed and few-valued inputs, against sort -n.
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"
leaks_checked_elsewhere "the in-memory sort's paths are sort-large.sh's"

for t in i32 u64 i64; do
    for d in equal sorted reversed few; do
        "$GSGEN" -n 100000 -t "$t" -d "$d" -s 7 >in.txt
        gs_ok out.txt --type="$t" in.txt
        oracle in.txt >exp.txt
        same exp.txt out.txt "--type=$t, $d input"
    done
done
