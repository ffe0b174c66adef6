#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# chunks-sized.sh: a chunk is made no larger than its inputs can fill
# (pipeline/chunks.c): from regular files, room for as many keys as their bytes
# can hold; from a pipe, room for a million keys at first, the keys moved into a
# buffer of the chunk's limit once those are full. Keys past the first million of
# a pipe, inputs whose every byte is a key, and stdin redirected from a file: the
# output equals the generator's sorted output, and a pipe's keys that fit -S are
# sorted as one chunk (--stats: nothing merged), not cut at the first million.
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"
not_under_tsan "its subject is how large a chunk is made; the chunks' threads are sort-large.sh's"
leaks_checked_elsewhere "the chunks' paths are sort-large.sh's and spill.sh's"

# merged_bytes: the first number on the merge row of the --stats table in $RUN_ERR.
merged_bytes() {
    awk '$3 == "merge" { print $4; exit }' "$RUN_ERR"
}

for t in u32 i64; do
    "$GSGEN" -t "$t" -n 1500000 -s 561 -d sorted >exp.txt
    for opt in "" -u; do
        if [ -n "$opt" ]; then uniq exp.txt >want.txt; else cp exp.txt want.txt; fi
        run_cmd bash -c '"$GSGEN" -t "$1" -n 1500000 -s 561 | "$GPUSORT" --type="$1" --stats $2' \
            _ "$t" "$opt"
        [ "$STATUS" -eq 0 ] || fail "$t $opt from a pipe exited $STATUS: $(cat "$RUN_ERR")"
        same want.txt "$RUN_OUT" "$t $opt, 1.5M keys from a pipe"
        merged=$(merged_bytes)
        [ -n "$merged" ] || fail "--stats shows no merge row: $(cat "$RUN_ERR")"
        [ "$merged" -eq 0 ] || fail "$t $opt: 1.5M keys from a pipe were merged ($merged bytes): cut into chunks"
    done
    # Redirected from a regular file: sized by its bytes.
    "$GSGEN" -t "$t" -n 1500000 -s 561 >in.txt
    gs_ok out.txt --type="$t" <in.txt
    same exp.txt out.txt "$t, stdin redirected from a file"
done

# A pipe smaller than a million keys, and one of none.
"$GSGEN" -t u32 -n 1000 -s 562 -d sorted >exp.txt
run_cmd bash -c '"$GSGEN" -t u32 -n 1000 -s 562 | "$GPUSORT" --type=u32'
same exp.txt "$RUN_OUT" "1000 keys from a pipe"
run_cmd bash -c '"$GPUSORT" </dev/null'
[ "$STATUS" -eq 0 ] && [ ! -s "$RUN_OUT" ] || fail "an empty pipe: exit $STATUS, $(wc -c <"$RUN_OUT") bytes"

# Files whose every other byte is a one-digit key: as many keys as the bound
# allows (the last without a newline: 2n - 1 bytes for n keys), past the first
# million, alone and as two inputs.
awk 'BEGIN { for (i = 0; i < 1200000; i++) printf "%d\n", (i * 7) % 10 }' >digits.txt
head -c -1 digits.txt >tight.txt
sort -n digits.txt >exp.txt
gs_ok out.txt tight.txt
same exp.txt out.txt "1.2M one-digit keys, no last newline"
head -n 600000 digits.txt >a.txt
tail -n +600001 digits.txt | head -c -1 >b.txt
gs_ok out.txt a.txt b.txt
same exp.txt out.txt "1.2M one-digit keys in two files"
# ... and with -z (NUL-ended).
tr '\n' '\0' <tight.txt >tight0.txt
tr '\n' '\0' <exp.txt >exp0.txt
gs_ok out0.txt -z tight0.txt
same exp0.txt out0.txt "1.2M one-digit keys, NUL-ended"
