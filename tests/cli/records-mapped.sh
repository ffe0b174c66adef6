#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# records-mapped.sh: a lone records input of 1 MiB or more that fits in one chunk is
# mapped, not read (records/loader.c), and sorts as any other: against `LC_ALL=C
# sort` for text and recsort.py for binary records; the last line without its
# terminator, where the file ends inside a page and where it ends on a page's end
# (the terminator then goes into the zeros after the file); -z, --header, a bad key
# on the last line (its line number), -c; --stats says when it was mapped, and it is
# not where there are two inputs or a pipe. A file larger than a chunk is mapped a
# window at a time, and sorts the same.
# A mapped input cut short while it is read: fault-read.sh.

# GSREC (make check sets it) names tests/tools/gsrec; made absolute before lib.sh
# moves into the test's directory.
case ${GSREC:-} in '' | /*) ;; *) GSREC=$PWD/$GSREC ;; esac
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"
# shellcheck source=tests/cli/extlib.sh
. "$srcdir/extlib.sh"

need_gsrec

# mapped_ok WHAT FILE: --stats in RUN_ERR says FILE's bytes were read mapped.
mapped_ok() {
    grep -q "stats: $(wc -c <"$2") bytes of records read mapped" "$RUN_ERR" ||
        fail "$1: not read mapped: $(cat "$RUN_ERR")"
}
not_mapped() {
    ! grep -q "read mapped" "$RUN_ERR" || fail "$1: read mapped: $(cat "$RUN_ERR")"
}

# rec_mapped WHAT FILE 'GS-OPTIONS' 'SORT-OPTIONS': gpusort -t, GS-OPTIONS --stats
# writes what `LC_ALL=C sort -t,` SORT-OPTIONS writes for FILE, and read it mapped.
rec_mapped() {
    local what=$1 f=$2 gs=$3 so=$4 st=0
    # shellcheck disable=SC2086 # the options are words on purpose
    LC_ALL=C sort -t, $so -- "$f" >exp.out || fail "the oracle failed: sort $so"
    # shellcheck disable=SC2086
    "$GPUSORT" -t, -n $gs --stats -- "$f" >got.out 2>"$RUN_ERR" || st=$?
    [ "$st" -eq 0 ] || fail "$what: exited $st: $(cat "$RUN_ERR")"
    stats_only "$RUN_ERR"
    same exp.out got.out "$what (gpusort -t, $gs; sort -t, $so)"
    mapped_ok "$what" "$f"
}

# exact FILE SIZE [TERM]: FILE cut to whole lines and completed by one last line
# without its terminator, so that it is SIZE bytes (TERM: '\0' for -z lines).
exact() {
    local f=$1 size=$2 term=${3:-\\n} have pad
    head -c "$((size - 64))" "$f" >"$f.head"
    # the whole lines of the head: up to its last terminator
    have=$(tr "$term" '\n' <"$f.head" | sed '$d' | wc -c)
    head -c "$have" "$f.head" >"$f.exact"
    pad=$((size - have - 9))
    { printf '77,12345,'; head -c "$pad" /dev/zero | tr '\0' x; } >>"$f.exact"
    [ "$(wc -c <"$f.exact")" -eq "$size" ] || fail "exact: $f.exact is not $size bytes"
    mv "$f.exact" "$f"
    rm -f "$f.head"
}

"$GSREC" -s 501 --bench -n 60000 >in.csv                       # about 2.6 MB
"$GSREC" -s 502 --bench -n 40000 --no-final-newline >nonl.csv  # about 1.8 MB
[ "$(wc -c <in.csv)" -ge 1048576 ] || fail "in.csv is under 1 MiB"
rec_mapped "a mapped CSV" in.csv '-k2,2' '-k2,2 -n'
rec_mapped "a mapped CSV, -s -r" in.csv '-k2,2 -s -r' '-k2,2 -n -s -r'
rec_mapped "a mapped CSV, -u" in.csv '-k2,2 -u' '-k2,2 -n -u'
rec_mapped "no final newline, the file ending inside a page" nonl.csv '-k2,2' '-k2,2 -n'
[ $(($(wc -c <nonl.csv) % 4096)) -ne 0 ] || fail "nonl.csv ends on a page's end"

# The file ends on a page's end (of 4 KiB pages, and so of any larger): its last
# line's terminator lies past the file, with a last line and without.
cp in.csv page.csv
exact page.csv $((1048576 + 8 * 4096))
rec_mapped "no final newline, the file ending on a page's end" page.csv '-k2,2' '-k2,2 -n'
tail -c 1 page.csv | od -An -c | grep -q x || fail "page.csv ends with a terminator"
head -c $((1048576 + 8 * 4096)) in.csv | sed '$d' >whole.csv
exact whole.csv $((1048576 + 8 * 4096 - 1))
echo >>whole.csv
rec_mapped "a final newline on a page's end" whole.csv '-k2,2' '-k2,2 -n'

# -z, its last line without its NUL and ending on a page's end.
"$GSREC" -s 503 --bench -n 40000 -z >z.csv
exact z.csv $((1048576 + 4096)) '\0'
rec_mapped "-z, no final NUL on a page's end" z.csv '-z -k2,2' '-z -k2,2 -n'

# --header: the first line written first, the others sorted.
"$GSREC" -s 504 --bench -n 40000 --header='id,key,payload' >head.csv
{ head -n 1 head.csv; tail -n +2 head.csv | LC_ALL=C sort -t, -k2,2 -n; } >exp.out
run_cmd "$GPUSORT" -t, -k2,2n --header --stats head.csv
[ "$STATUS" -eq 0 ] || fail "--header: exited $STATUS: $(cat "$RUN_ERR")"
same exp.out "$RUN_OUT" "--header, mapped"
mapped_ok "--header" head.csv

# -c on a mapped file: in order, then a disorder on its last line.
LC_ALL=C sort -t, -k2,2 -n in.csv >sorted.csv
run_cmd "$GPUSORT" -c -t, -k2,2n sorted.csv
[ "$STATUS" -eq 0 ] || fail "-c of a sorted mapped file: exited $STATUS: $(cat "$RUN_ERR")"
n=$(wc -l <sorted.csv)
{ cat sorted.csv; echo '0,0,last'; } >disorder.csv
expect_error 1 "^disorder\.csv:$((n + 1)): disorder: 0,0,last$" -- \
    "$GPUSORT" -c -t, -k2,2n disorder.csv

# A bad key on the last line, without its newline: its line number.
{ cat in.csv; printf '5,x5,bad'; } >bad.csv
expect_error 2 "^bad\.csv:$(($(wc -l <in.csv) + 1)): field 2: not an integer: 'x5'$" -- \
    "$GPUSORT" -t, -k2,2n bad.csv

# Standard input that is the file is mapped too; a pipe or two inputs are read.
LC_ALL=C sort -t, -k2,2 -n in.csv >exp.out
run_cmd "$GPUSORT" -t, -k2,2n --stats <in.csv
same exp.out "$RUN_OUT" "standard input, a regular file"
mapped_ok "standard input, a regular file" in.csv
# shellcheck disable=SC2002  # a pipe is the point
cat in.csv | "$GPUSORT" -t, -k2,2n --stats >got.out 2>"$RUN_ERR"
same exp.out got.out "standard input, a pipe"
not_mapped "a pipe"
LC_ALL=C sort -t, -k2,2 -n in.csv nonl.csv >exp2.out
run_cmd "$GPUSORT" -t, -k2,2n --stats in.csv nonl.csv
same exp2.out "$RUN_OUT" "two inputs"
not_mapped "two inputs"
mkdir tdir

# Larger than a chunk (-S 1M: chunks of 512 KiB): mapped a window at a time, each
# cut after its last whole line, and spilled: the last line without its terminator
# (inside a page, on a page's end), -z, --header, a line longer than a chunk (its
# window widened), -s, -u, -r; a bad key's and a disorder's line numbers counted
# across the windows.
rec_mapped "windows" in.csv '-k2,2 -S 1M -T tdir' '-k2,2 -n'
dir_empty tdir "windows"
rec_mapped "windows, -s -r" in.csv '-k2,2 -s -r -S 1M -T tdir' '-k2,2 -n -s -r'
rec_mapped "windows, -u" in.csv '-k2,2 -u -S 1M -T tdir' '-k2,2 -n -u'
rec_mapped "windows, no final newline" nonl.csv '-k2,2 -S 1M -T tdir' '-k2,2 -n'
rec_mapped "windows, no final newline on a page's end" page.csv '-k2,2 -S 1M -T tdir' \
    '-k2,2 -n'
rec_mapped "windows, -z" z.csv '-z -k2,2 -S 1M -T tdir' '-z -k2,2 -n'
{ head -n 20000 in.csv; printf '4,77,'; head -c 1500000 /dev/zero | tr '\0' y; echo
  tail -n +20001 in.csv; } >long.csv
rec_mapped "windows, a line of 1.5 MB" long.csv '-k2,2 -S 1M -T tdir' '-k2,2 -n'
run_cmd "$GPUSORT" -t, -k2,2n --header -S 1M -T tdir --stats head.csv
{ head -n 1 head.csv; tail -n +2 head.csv | LC_ALL=C sort -t, -k2,2 -n; } >exp.out
same exp.out "$RUN_OUT" "--header, windows"
mapped_ok "--header, windows" head.csv
expect_error 2 "^bad\.csv:$(($(wc -l <in.csv) + 1)): field 2: not an integer: 'x5'$" -- \
    "$GPUSORT" -t, -k2,2n -S 1M -T tdir bad.csv
{ head -n 50000 sorted.csv; echo '0,0,late'; tail -n +50001 sorted.csv; } >late.csv
expect_error 1 "^late\.csv:50001: disorder: 0,0,late$" -- \
    "$GPUSORT" -c -t, -k2,2n -S 1M late.csv
dir_empty tdir "windows"
LC_ALL=C sort -t, -k2,2 -n in.csv >exp.out

# -o naming the input: the sorted bytes replace it; the mapping held the old ones.
cp in.csv self.csv
gs_ok /dev/null -t, -k2,2n -o self.csv self.csv
same exp.out self.csv "-o naming its mapped input"

# Binary records on the CPU (a GPU would stream them: stream.c), against recsort.py.
if command -v python3 >/dev/null 2>&1; then
    "$GSREC" -b -s 505 -n 70000 --record-size=24 --key-offset=8 -t i64 -d dups --range=3000 >in.bin
    python3 "$srcdir/recsort.py" 24 8 i64 little in.bin || fail "the oracle failed"
    for o in '' -r -u; do
        exp=exp.bin
        case $o in -r) exp=exp-r.bin ;; -u) exp=exp-u.bin ;; esac
        run_cmd "$GPUSORT" --device=cpu -B --record-size=24 --key-offset=8 --type=i64 $o --stats in.bin
        [ "$STATUS" -eq 0 ] || fail "binary records $o: exited $STATUS: $(cat "$RUN_ERR")"
        same "$exp" "$RUN_OUT" "binary records, mapped, $o"
        mapped_ok "binary records $o" in.bin
        run_cmd "$GPUSORT" --device=cpu -B --record-size=24 --key-offset=8 --type=i64 $o \
            -S 1M -T tdir --stats in.bin
        [ "$STATUS" -eq 0 ] || fail "binary records $o, windows: exited $STATUS: $(cat "$RUN_ERR")"
        same "$exp" "$RUN_OUT" "binary records, windows, $o"
        mapped_ok "binary records $o, windows" in.bin
    done
    dir_empty tdir "binary records, windows"
    head -c 1048580 in.bin >part.bin
    expect_error 2 "^part\.bin: 1048580 bytes: not a whole number of 24-byte records$" -- \
        "$GPUSORT" --device=cpu -B --record-size=24 --key-offset=8 --type=i64 part.bin
fi
exit 0
