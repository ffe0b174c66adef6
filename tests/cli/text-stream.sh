#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# text-stream.sh: text large enough for a GPU (200K keys and more, over 1 MB), in
# the shapes a GPU's parse must take as the host's parse does (pipeline/
# stream_text.c): several keys a line, runs of every kind of white space, CRLF,
# '+' signs and leading zeros, every type with its extremes; several files, the
# first ending in a token that the next file's first must not join, an empty one
# between; -r and -u; -o naming its input. Each against the oracle (sort -n of the
# canonical keys). Where a GPU sorted (tests/gpu/suite.sh adds --device=0), --stats
# must say that the text crossed to it and was parsed there. A bad token and an
# out-of-range one deep in the text, in the second file: the message the host's
# parse gives (--device=cpu), exit 2, -o untouched, nothing left behind.
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"

n=200000

# streamed WHAT: where a GPU sorted (--stats in RUN_ERR), the text was parsed there.
streamed() {
    if grep -q 'stats: gpu [0-9]* (' "$RUN_ERR"; then
        grep -Eq "stats: [0-9]+ bytes of text streamed through gpu [0-9]+: .* parsed there" \
            "$RUN_ERR" ||
            fail "$1: a GPU sorted, but did not parse the text: $(cat "$RUN_ERR")"
    fi
}

# sorted_like WHAT EXPECTED ARGS...: gpusort --stats ARGS -o out.txt exits 0 with
# EXPECTED in out.txt, through the GPU's parse where a GPU sorted.
sorted_like() {
    local what=$1 exp=$2
    shift 2
    run_cmd "$GPUSORT" --stats "$@"
    [ "$STATUS" -eq 0 ] || fail "$what: exited $STATUS: $(cat "$RUN_ERR")"
    streamed "$what"
    same "$exp" out.txt "$what"
}

# decorate: canonical keys, one a line, turned into the same keys with white space
# of every kind between them, '+' on some positive ones and leading zeros on others.
decorate() {
    awk 'BEGIN { split(" |\t|\r\n|\n\n|  \t |\f|\v|\r|\n", sep, "|") }
         { v = $0; s = ""
           if (v ~ /^-/) { s = "-"; v = substr(v, 2) } else if (NR % 5 == 0) s = "+"
           if (NR % 13 == 0) v = "000" v
           printf "%s%s%s%s", (NR % 7 == 0 ? "  " : NR % 11 == 0 ? "\t" : ""), s, v,
                  sep[NR % 9 + 1] }' "$@"
}

for t in i32 u32 i64 u64; do
    "$GSGEN" -n $n -t $t -s 61 >k.txt
    case $t in
        i32) printf '%s\n' -2147483648 2147483647 -0 ;;
        u32) printf '%s\n' 0 4294967295 -0 ;;
        i64) printf '%s\n' -9223372036854775808 9223372036854775807 -0 ;;
        u64) printf '%s\n' 0 18446744073709551615 -0 ;;
    esac >>k.txt
    decorate k.txt >d.txt
    oracle k.txt >exp.txt
    sorted_like "$t" exp.txt --type=$t -o out.txt d.txt
    oracle -r -- k.txt >exp.txt
    sorted_like "$t -r" exp.txt -r --type=$t -o out.txt d.txt
done

# Few distinct keys: -u keeps one of each.
"$GSGEN" -n $n -t i64 -s 62 -d few >k.txt
decorate k.txt >d.txt
oracle -u -- k.txt >exp.txt
sorted_like "-u" exp.txt -u -o out.txt d.txt

# Three files: the first ends in a token (no LF), the second is empty; -o naming
# the first.
"$GSGEN" -n $n -t u64 -s 63 >k.txt
head -n $((n / 2)) k.txt | head -c -1 >a.txt
: >e.txt
tail -n +$((n / 2 + 1)) k.txt | decorate >b.txt
oracle k.txt >exp.txt
sorted_like "three files" exp.txt --type=u64 -o out.txt a.txt e.txt b.txt
cp a.txt a2.txt
run_cmd "$GPUSORT" --type=u64 -o a2.txt a2.txt e.txt b.txt
[ "$STATUS" -eq 0 ] || fail "-o naming its input: exited $STATUS: $(cat "$RUN_ERR")"
same exp.txt a2.txt "-o naming its input"

# A bad token, then an out-of-range one, in the second file, far into it: the host's
# message (as --device=cpu gives it), exit 2, -o untouched, no temporary left.
"$GSGEN" -n $n -t u32 -s 64 >b.txt
"$GSGEN" -n 1000 -t u32 -s 65 | head -c -1 >a.txt
for bad in 'x' '00004294967296'; do
    sed "$((n - 10))s/\$/$bad/" b.txt >bad.txt
    target_init
    run_cmd "$GPUSORT" --device=cpu --type=u32 -o "$TARGET" a.txt bad.txt
    [ "$STATUS" -eq 2 ] || fail "'$bad' on the CPU: exited $STATUS: $(cat "$RUN_ERR")"
    want=$(cat "$RUN_ERR")
    case $want in "gpusort: bad.txt:$((n - 10)): "*) ;; *) fail "'$bad' on the CPU: $want" ;; esac
    expect_error 2 "^${want#gpusort: }\$" -- "$GPUSORT" --type=u32 -o "$TARGET" a.txt bad.txt
    target_check
done
