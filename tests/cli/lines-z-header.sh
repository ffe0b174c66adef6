#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# lines-z-header.sh: bare numbers with -z (lines ended by NUL, LF a blank) and with
# --header (each input's first line a header, the first one met written first): in
# memory, spilled, -m, -c, from a pipe, to -o; their errors.
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"
# shellcheck source=tests/cli/extlib.sh
. "$srcdir/extlib.sh"
not_under_tsan "its subject is lines' ends and headers; the threads that read them are sort-large.sh's and records-mapped.sh's"
mkdir tdir
target_init

# ---- -z ---------------------------------------------------------------------------
# Two numbers a line, the first ended by an LF (a blank under -z), the second by
# NUL. The oracle: the same numbers one a line, sorted by sort -n, LFs made NULs.
"$GSGEN" -n 3000 -s 71 --min=-5000 --max=5000 >b.txt
paste -d'|' - - <b.txt | tr '|\n' '\n\0' >z.in
oracle b.txt | tr '\n' '\0' >exp.z
gs_ok out.z -z z.in
same exp.z out.z "-z, a file"
"$GPUSORT" -z <z.in >out.z 2>"$RUN_ERR" || fail "-z from a pipe: $(cat "$RUN_ERR")"
same exp.z out.z "-z, standard input"
oracle -r -u -- b.txt | tr '\n' '\0' >exp-ru.z
gs_ok out.z -z -r -u z.in
same exp-ru.z out.z "-z -r -u"
gs_ok /dev/null -z -o out.z z.in
same exp.z out.z "-z -o"

# Several inputs; the last one's last line without its NUL.
"$GSGEN" -n 500 -s 72 >b2.txt
tr '\n' '\0' <b2.txt | head -c -1 >z2.in
oracle b.txt b2.txt | tr '\n' '\0' >exp2.z
gs_ok out.z -z z.in z2.in
same exp2.z out.z "-z, two inputs, the last line unended"

# Spilled runs merged (-S 1M), the runs removed.
"$GSGEN" -n 300000 -s 73 >big.txt
tr '\n' '\0' <big.txt >big.z
"$GSGEN" -n 300000 -s 73 -d sorted | tr '\n' '\0' >expbig.z
"$GPUSORT" --device=cpu -z -S 1M --parallel=2 -T tdir --stats big.z >out.z 2>err.txt ||
    fail "-z -S 1M: $(cat err.txt)"
stats_only err.txt
same expbig.z out.z "-z, spilled"
spilled_clean err.txt tdir "-z, spilled"

# -m and -c count lines by NUL.
gs_ok s1.z -z z.in
gs_ok s2.z -z z2.in
gs_ok out.z -z -m s1.z s2.z
same exp2.z out.z "-z -m"
gs_ok out.txt -z -c s1.z
empty out.txt "-c's output"
printf '1\n2\0003\0002\0' >d.z
expect_error 1 "^d\.z:3: disorder: 2$" -- "$GPUSORT" -z -c d.z
expect_error 2 "^d\.z:3: disorder: 2$" -- "$GPUSORT" -z -m s1.z d.z

# A bad token names its line, counted by NUL (a word among other tokens there: the
# -k hint); -o's target untouched.
printf '1\n2\0003\0x\n4\0' >bad.z
expect_error 2 "^bad\.z:3: not an integer: 'x'; to sort lines by a field, use -k$" -- \
    "$GPUSORT" -z -o "$TARGET" bad.z
target_check

# ---- --header ------------------------------------------------------------------------
# hexp FILE...: the first line of the first non-empty FILE, then every other line's
# numbers sorted.
hexp() {
    local f first=
    for f in "$@"; do
        if [ -s "$f" ]; then first=$f; break; fi
    done
    [ -n "$first" ] && head -n 1 "$first"
    for f in "$@"; do tail -n +2 "$f"; printf '\n'; done | oracle "${SORT_OPTS[@]}" --
}
SORT_OPTS=()
: >empty.txt
{ echo '10 20 30 a header, with numbers in it'; "$GSGEN" -n 2000 -s 74; } >h1.txt
{ echo 'dropped'; "$GSGEN" -n 700 -s 75; } >h2.txt
hexp empty.txt h1.txt h2.txt >exp.txt
gs_ok out.txt --header empty.txt h1.txt h2.txt
same exp.txt out.txt "--header, the first input empty"
SORT_OPTS=(-r -u)
hexp h1.txt h2.txt >exp.txt
gs_ok out.txt --header -r -u h1.txt h2.txt
same exp.txt out.txt "--header -r -u"
SORT_OPTS=()
printf 'only a header' >h3.txt
printf 'only a header\n' >exp.txt
gs_ok out.txt --header h3.txt
same exp.txt out.txt "--header, an input that is all header, unended"

# A header longer than a read from a pipe (several reads make it).
{ head -c 3000000 /dev/zero | tr '\0' 'h'; echo; "$GSGEN" -n 1000 -s 76; } >hlong.txt
hexp hlong.txt >exp.txt
"$GPUSORT" --header -o out.txt - <hlong.txt 2>"$RUN_ERR" || fail "a long header: $(cat "$RUN_ERR")"
same exp.txt out.txt "--header, 3 MB of header from a pipe"

# Spilled runs merged, the header first; to -o and to standard output.
{ echo 'key'; cat big.txt; } >hbig.txt
{ echo 'key'; "$GSGEN" -n 300000 -s 73 -d sorted; } >exp.txt
for dest in o stdout; do
    if [ "$dest" = o ]; then
        "$GPUSORT" --device=cpu --header -S 1M --parallel=2 -T tdir --stats -o out.txt \
            hbig.txt 2>err.txt || fail "--header -S 1M -o: $(cat err.txt)"
    else
        "$GPUSORT" --device=cpu --header -S 1M --parallel=2 -T tdir --stats \
            hbig.txt >out.txt 2>err.txt || fail "--header -S 1M: $(cat err.txt)"
    fi
    stats_only err.txt
    same exp.txt out.txt "--header, spilled, to $dest"
    spilled_clean err.txt tdir "--header, spilled, to $dest"
done

# -m: the first header, then the merge; -c leaves the header out of the order.
{ echo 'first'; "$GSGEN" -n 900 -s 77 -d sorted; } >m1.txt
{ echo 'second'; "$GSGEN" -n 400 -s 78 -d sorted; } >m2.txt
hexp m1.txt m2.txt >exp.txt
gs_ok out.txt --header -m m1.txt m2.txt
same exp.txt out.txt "--header -m"
gs_ok out.txt --header -c m1.txt
empty out.txt "-c's output"
printf 'h\n5\n1\n' >d.txt
expect_error 1 "^d\.txt:3: disorder: 1$" -- "$GPUSORT" --header -c d.txt

# With -z: the header ends at its NUL, LFs in it kept.
printf 'a header\nof two LF lines\0003\n1\0002\0' >hz.in
printf 'a header\nof two LF lines\0001\0002\0003\0' >exp.z
gs_ok out.z --header -z hz.in
same exp.z out.z "--header -z"

# A bad number after the header: the header is line 1.
printf 'h\n1\nx\n' >bad.txt
expect_error 2 "^bad\.txt:3: not an integer: 'x'$" -- "$GPUSORT" --header -o "$TARGET" bad.txt
target_check

# Binary keys have no lines.
expect_usage_error "^--header takes text input and output" -- "$GPUSORT" --header -B h1.txt
expect_usage_error "^--header takes text input and output" -- "$GPUSORT" --header --output-format=binary h1.txt
expect_usage_error "^-z \(--zero-terminated\) takes text" -- "$GPUSORT" -z -B z.in
exit 0
