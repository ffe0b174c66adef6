#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# sort-letters.sh: a letter GNU sort uses means what it means in sort, or is refused
# with one line that names it and says what to use: -b, -n and -s are accepted and
# change nothing on bare integers; the orderings of other things than integers are
# usage errors, and so are the records' letters where they cannot apply (-t or -z
# without -k, -t with a key type); --sort=numeric is accepted; an ambiguous
# abbreviation lists the options it could be. -B is binary, --type the key type.
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"
not_under_tsan "its subject is the command line"

target_init
"$GSGEN" -n 5000 -t i64 -s 2301 >in.txt
oracle in.txt >exp.txt
oracle -r -- in.txt >exp-r.txt

# Accepted with no effect: the output is the plain sort's.
for opts in -b -n -s -bn -nb -ns "-n -b -s" --numeric-sort --ignore-leading-blanks \
            --stable --sort=numeric; do
    # shellcheck disable=SC2086 # "-n -b -s" is three words on purpose
    gs_ok out.txt $opts in.txt
    same exp.txt out.txt "$opts"
done
gs_ok out.txt -rn in.txt
same exp-r.txt out.txt "-rn"
# sort -b's own case: leading blanks before numbers (here they never counted).
printf ' 10\n  9\n\t-3\n' >blanks.txt
printf -- '-3\n9\n10\n' >exp-blanks.txt
gs_ok out.txt -b blanks.txt
same exp-blanks.txt out.txt "-b with leading blanks"

# Orderings gpusort does not make (it compares text bytewise, integers and
# floating-point numbers): refused, naming the option both ways.
refused() {   # LETTER LONG: both spellings refused with the same message
    expect_usage_error "^-$1 \(--$2\) .*: gpusort compares text bytewise, integers and floating-point numbers; use sort\(1\)$" \
        -- "$GPUSORT" "-$1" -o "$TARGET" in.txt
    target_check
    expect_usage_error "^-$1 \(--$2\) " -- "$GPUSORT" "--$2" in.txt
    expect_usage_error "^-$1 \(--$2\) " -- "$GPUSORT" "-r$1" in.txt
}
refused d dictionary-order
refused f ignore-case
refused h human-numeric-sort
refused i ignore-nonprinting
refused M month-sort
refused R random-sort
refused V version-sort
expect_usage_error "^--random-source shuffles: .*use sort\(1\)$" -- "$GPUSORT" --random-source=in.txt in.txt
for w in human-numeric:h month:M random:R version:V; do
    expect_usage_error "^-${w#*:} \(" -- "$GPUSORT" --sort="${w%:*}" in.txt
done
expect_usage_error "^invalid argument 'alpha' for '--sort'$" -- "$GPUSORT" --sort=alpha in.txt

# The records' letters where they cannot apply, said so; -t with a key type (gpusort
# 0.1's -t) points to --type.
expect_usage_error "^-t \(--field-separator\) needs -k \(--key\)" -- "$GPUSORT" -t, -o "$TARGET" in.txt
target_check
expect_usage_error "^-t u32: the field separator is one byte; the key type is --type=u32$" \
    -- "$GPUSORT" -t u32 -k1 in.txt
expect_usage_error "^-z \(--zero-terminated\) takes text" -- "$GPUSORT" -z -B in.txt
expect_usage_error "^-k 2,2f: the key letter f folds lower case to upper: gpusort compares text, integers and floating-point numbers; use sort\(1\)$" \
    -- "$GPUSORT" -k2,2f in.txt

# Abbreviations: a unique one works, an ambiguous one lists every candidate.
gs_ok out.txt --rev in.txt
same exp-r.txt out.txt "--rev"
expect_usage_error "^option '--p' is ambiguous; possibilities: '--parallel' '--progress'$" \
    -- "$GPUSORT" --p in.txt
expect_usage_error "^option '--st' is ambiguous; possibilities: '--stable' '--stats'$" \
    -- "$GPUSORT" --st in.txt
expect_usage_error "^option '--ign' is ambiguous; possibilities: '--ignore-leading-blanks' '--ignore-case' '--ignore-nonprinting'$" \
    -- "$GPUSORT" --ign in.txt
expect_usage_error "^option '--p' is ambiguous" -- "$GPUSORT" --p=2 in.txt
expect_usage_error "^unrecognized option '--bogus'$" -- "$GPUSORT" --bogus in.txt

# -B is binary, --type the key type.
printf '3\n-1\n2\n' >small.txt
gs_ok small.bin --output-format=binary --type=i32 small.txt
gs_ok out.txt -B --type=i32 --output-format=text small.bin
printf -- '-1\n2\n3\n' >exp-small.txt
same exp-small.txt out.txt "-B --type=i32"
