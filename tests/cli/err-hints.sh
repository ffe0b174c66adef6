#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# err-hints.sh: errors that name the way out, each still one line: a header line
# (a word on line 1) hints --header; a line of words met by bare numbers hints -k; a
# value out of range hints the types that hold it; a bad --type, --device, --endian
# (and the other options of a few words) lists the valid values; out of memory with
# the default -S says to try a smaller -S, with -S given names it.
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"
not_under_tsan "its subject is a message"

target_init

# A header line on records: the key of line 1 a word. With --header, sorted.
printf 'name,age,amount\nbob,3,10\nann,4,2\n' >h.csv
expect_error 2 "^h\\.csv:1: field 3: not an integer: 'amount'; is line 1 a header\\? \\(--header\\)\$" \
    -- "$GPUSORT" -t, -k3,3n -o "$TARGET" h.csv
target_check
gs_ok out.csv --header -t, -k3,3n h.csv
printf 'name,age,amount\nann,4,2\nbob,3,10\n' >exp.csv
same exp.csv out.csv "--header, as the hint says"
# ... not on a later line, nor for a key that is no word.
printf 'bob,3,10\nname,age,amount\n' >h2.csv
expect_error 2 "^h2\\.csv:2: field 3: not an integer: 'amount'\$" -- "$GPUSORT" -t, -k3,3n h2.csv
printf 'a,12x\n' >h3.csv
expect_error 2 "^h3\\.csv:1: field 2: not an integer: '12x'\$" -- "$GPUSORT" -t, -k2,2n h3.csv

# Bare numbers: a word alone on line 1 is a header; a word among other tokens is a
# line of fields (-k, and --header where it is line 1); a word alone further down,
# or a token that is no word, has no hint.
printf 'value\n3\n1\n' >v.txt
expect_error 2 "^v\\.txt:1: not an integer: 'value'; is line 1 a header\\? \\(--header\\)\$" \
    -- "$GPUSORT" v.txt
printf 'alice 3\nbob 4\n' >w.txt
expect_error 2 "^w\\.txt:1: not an integer: 'alice'; to sort lines by a field, use -k \\(and --header if line 1 is a header\\)\$" \
    -- "$GPUSORT" w.txt
printf '5\nbob 4\n' >w2.txt
expect_error 2 "^w2\\.txt:2: not an integer: 'bob'; to sort lines by a field, use -k\$" -- "$GPUSORT" w2.txt
printf '5\n4 carol\n' >w3.txt
expect_error 2 "^w3\\.txt:2: not an integer: 'carol'; to sort lines by a field, use -k\$" -- "$GPUSORT" w3.txt
printf '5\nx\n' >x.txt
expect_error 2 "^x\\.txt:2: not an integer: 'x'\$" -- "$GPUSORT" x.txt
printf '12abc 5\n' >n.txt
expect_error 2 "^n\\.txt:1: not an integer: '12abc'\$" -- "$GPUSORT" n.txt
gs_ok out.txt --header v.txt
printf 'value\n1\n3\n' >exp.txt
same exp.txt out.txt "--header on bare numbers, as the hint says"

# Out of range: the types at least as wide that hold the value, at most two.
while read -r t tok hint; do
    printf '1\n%s\n' "$tok" >r.txt
    re=$(printf '%s' "$tok" | sed -e 's/[+]/\\+/g')
    expect_error 2 "^r\\.txt:2: out of range for $t: '$re'$hint\$" -- "$GPUSORT" --type="$t" r.txt
    # The same in a field of records.
    printf 'a %s\n' "$tok" >rr.txt
    expect_error 2 "^rr\\.txt:1: field 2: out of range for $t: '$re'$hint\$" \
        -- "$GPUSORT" --type="$t" -k2,2n rr.txt
done <<'TOKENS'
i64 9223372036854775808 ; it fits --type=u64
i64 18446744073709551615 ; it fits --type=u64
i64 18446744073709551616
i64 -9223372036854775809
i32 3000000000 ; it fits --type=i64 or --type=u32
i32 -3000000000 ; it fits --type=i64
i32 5000000000 ; it fits --type=i64 or --type=u64
u32 -1 ; it fits --type=i32 or --type=i64
u32 4294967296 ; it fits --type=u64 or --type=i64
u32 +004294967296 ; it fits --type=u64 or --type=i64
u64 -1 ; it fits --type=i64
u64 -9223372036854775809
TOKENS
# The hint is right: the type it names sorts the input.
printf '1\n18446744073709551615\n' >u.txt
gs_ok out.txt --type=u64 u.txt
same u.txt out.txt "--type=u64, as the hint says"

# Options of a few words list them.
expect_usage_error "^invalid argument 'i16' for '--type'; valid arguments: i32, u32, i64, u64, and for binary keys f32, f64, bytes1 to bytes64\$" \
    -- "$GPUSORT" --type=i16 u.txt
expect_usage_error "^invalid argument 'gpu' for '--device'; valid arguments: auto, cpu, all, or distinct GPU numbers N\\[,N\\.\\.\\.\\]\$" \
    -- "$GPUSORT" --device=gpu u.txt
expect_usage_error "^invalid argument '0,0' for '--device'; valid arguments: auto, cpu, all" \
    -- "$GPUSORT" --device=0,0 u.txt
expect_usage_error "^invalid argument 'middle' for '--endian'; valid arguments: little, big\$" \
    -- "$GPUSORT" --endian=middle u.txt
expect_usage_error "^invalid argument 'quick' for '--algorithm'; valid arguments: radix, bitonic\$" \
    -- "$GPUSORT" --algorithm=quick u.txt
expect_usage_error "^invalid argument 'zip' for '--compress-temp'; valid arguments: auto, lz4, none\$" \
    -- "$GPUSORT" --compress-temp=zip u.txt
expect_usage_error "^invalid argument 'csv' for '--input-format'; valid arguments: text, binary\$" \
    -- "$GPUSORT" --input-format=csv u.txt

# Out of memory under an address-space limit that the default -S does not fit
# (the sanitizers' runtimes need address space of their own: not there). Where
# this machine's gpusort does fit, or fails otherwise (threads), there is nothing
# to check; where it runs out of memory, the message says what to do about -S.
if [ -z "$SAN_NAME" ]; then
    "$GSGEN" -n 3000000 -s 2291 >big.txt
    for opt in "" "-S 8M"; do
        # shellcheck disable=SC2086  # opt: words
        run_cmd bash -c 'ulimit -v 50000 && exec "$0" "$@"' "$GPUSORT" $opt -o "$TARGET" big.txt
        target_check
        if [ "$STATUS" -ne 0 ] && grep -q 'out of memory' "$RUN_ERR"; then
            [ "$STATUS" -eq 2 ] || fail "out of memory ($opt): exited $STATUS"
            empty "$RUN_OUT" "stdout out of memory ($opt)"
            if [ -z "$opt" ]; then
                check_msg "$RUN_ERR" '^out of memory with the default -S of [0-9.]+ MiB: try a smaller -S$|^out of memory, even with -S at its least' no
            else
                check_msg "$RUN_ERR" '^-S 8M: out of memory$' no
            fi
        else
            echo "ulimit -v 50000 ($opt): exited $STATUS, not out of memory: not checked" >&2
        fi
    done
fi
