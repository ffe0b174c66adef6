#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# spill-happens.sh: input far beyond -S spills runs to -T (--stats shows spill bytes),
# the output is still right, and no temporary file is left.
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"

# 4 million u32 keys: 16 MB of keys, 43 MB of text, against -S 1M.
"$GSGEN" -n 4000000 -t u32 -s 311 >in.txt
"$GSGEN" -n 4000000 -t u32 -s 311 -d sorted >exp.txt
mkdir tdir

for c in auto lz4 none; do
    run_cmd "$GPUSORT" --type=u32 -S 1M -T tdir --compress-temp="$c" --stats in.txt
    [ "$STATUS" -eq 0 ] || fail "-S 1M --compress-temp=$c exited $STATUS: $(cat "$RUN_ERR")"
    same exp.txt "$RUN_OUT" "-S 1M --compress-temp=$c"
    [ -z "$(ls -A tdir)" ] || fail "temporary files left in -T: $(ls -A tdir)"
    # The first number on the spill row of the --stats table is its bytes.
    spilled=$(awk 'tolower($0) ~ /spill/ {
        for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+$/) { print $i; exit } }' "$RUN_ERR")
    [ -n "$spilled" ] || fail "--stats shows no spill row: $(cat "$RUN_ERR")"
    [ "$spilled" -gt 0 ] || fail "-S 1M with 16 MB of keys spilled nothing (--compress-temp=$c): $(cat "$RUN_ERR")"
done

# Spilled to TMPDIR by default (lib.sh checks that it ends up empty).
gs_ok out.txt --type=u32 -S 1M in.txt
same exp.txt out.txt "-S 1M without -T"
