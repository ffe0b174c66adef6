#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# records-errors.sh: bad records and bad record options: one line on stderr that starts
# `gpusort: `, exit 2, nothing on stdout, an existing -o target untouched, nothing
# left under -T. A bad key names FILE:LINE exactly; the rest of a message is checked
# loosely (a word or the token), not its wording.

# GSREC (make check sets it) names tests/tools/gsrec; made absolute before lib.sh
# moves into the test's directory.
case ${GSREC:-} in '' | /*) ;; *) GSREC=$PWD/$GSREC ;; esac
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"
not_under_tsan "its subject is a message; a bad key found by the index's threads is stress.sh's and records-merge-check.sh's"

: "${GSREC:=}"
[ -n "$GSREC" ] || skip "GSREC is not set"
[ -x "$GSREC" ] || skip "$GSREC is not built"

target_init
mkdir tdir

# rec_error REGEX GPUSORT-ARGUMENT...: gpusort with -o TARGET -T tdir exits 2 with
# nothing on stdout and exactly one line on stderr, "gpusort: " and a message matching
# the extended REGEX (ERR_MSG); TARGET is as it was and tdir empty.
# opt_error REGEX GPUSORT-ARGUMENT...: the same for a bad option, where the --help
# hint may follow as a second line.
rec_error() {
    fails_with no "$@"
}
opt_error() {
    fails_with maybe "$@"
}
fails_with() {
    local hint=$1 regex=$2
    shift 2
    run_cmd "$GPUSORT" -o "$TARGET" -T tdir "$@"
    [ "$STATUS" -eq 2 ] || fail "gpusort $* exited $STATUS (2 expected); stderr: $(head -c 2000 "$RUN_ERR")"
    empty "$RUN_OUT" "stdout of gpusort $*"
    check_msg "$RUN_ERR" "$regex" "$hint"
    target_check
    [ -z "$(ls -A tdir)" ] || fail "gpusort $*: temporary files left in -T: $(ls -A tdir)"
}

# mentions WORD-REGEX WHAT: the last message (ERR_MSG) matches the extended regex.
mentions() {
    printf '%s\n' "$ERR_MSG" | grep -Eqi -- "$1" || fail "the message for $2 does not mention /$1/: $ERR_MSG"
}

# --------------------------------------------------------------------------------
# A bad key field: FILE:LINE and the field
# --------------------------------------------------------------------------------

# Line 3 of each file is bad; lines 1, 2 and 4 are good.
printf 'a,1,x\nb,2,y\nc\nd,4,z\n' >missing.csv
rec_error '^missing\.csv:3: ' -t, -k2,2n missing.csv
mentions 'field|key' "a missing field"
printf 'a,1,x\nb,2,y\nc,,z\nd,4,z\n' >emptyf.csv
rec_error '^emptyf\.csv:3: ' -t, -k2,2n emptyf.csv
mentions 'field|key|empty' "an empty field"
printf 'a,1,x\nb,2,y\nc, ,z\nd,4,z\n' >blankf.csv
rec_error '^blankf\.csv:3: ' -t, -k2,2n blankf.csv
mentions 'field|key|empty|integer' "a field of blanks only"
printf 'a,1,x\nb,2,y\nc,12abc,z\nd,4,z\n' >abc.csv
rec_error '^abc\.csv:3: ' -t, -k2,2n abc.csv
mentions '12abc|integer' "'12abc'"
printf 'a,1,x\nb,2,y\nc,1.5,z\nd,4,z\n' >frac.csv
rec_error '^frac\.csv:3: ' -t, -k2,2n frac.csv
mentions '1\.5|integer' "'1.5'"
# Blanks inside the number: allowed around it, never inside.
printf 'a,1,x\nb,2,y\nc,1 2,z\nd,4,z\n' >inside.csv
rec_error '^inside\.csv:3: ' -t, -k2,2n inside.csv
# The key last, and missing on a CRLF line.
printf 'a,1\r\nb,2\r\nc\r\nd,4\r\n' >crlf.csv
rec_error '^crlf\.csv:3: ' -t, -k2,2n crlf.csv
printf 'a,1\r\nb,2\r\nc,7x\r\nd,4\r\n' >crlfx.csv
rec_error '^crlfx\.csv:3: ' -t, -k2,2n crlfx.csv
mentions '7x|integer' "'7x' before a CR"
# Blank-separated fields: line 3 has one field only.
printf '  a 1 x\n\tb\t2 y\n c  \nd 4 z\n' >fewer.txt
rec_error '^fewer\.txt:3: ' -k2,2n fewer.txt
mentions 'field|key' "a missing blank-separated field"
# An empty line has no key field either.
printf 'a,1\nb,2\n\nd,4\n' >emptyl.csv
rec_error '^emptyl\.csv:3: ' -t, -k2,2n emptyl.csv

# Out of range for --type.
while read -r t tok; do
    printf 'a,1\nb,2\nc,%s\nd,4\n' "$tok" >range.csv
    rec_error '^range\.csv:3: ' --type="$t" -t, -k2,2n range.csv
    mentions "range|$tok" "$tok as $t"
done <<'TOKENS'
i32 3000000000
i32 -2147483649
u32 4294967296
u32 -1
i64 9223372036854775808
u64 18446744073709551616
u64 -5
TOKENS

# In the second of two files: that file, its line.
"$GSREC" -s 1 -n 50 -d dups >good.csv
printf 'a,1\nb,2\nc,zz\n' >second.csv
rec_error '^second\.csv:3: ' -t, -k2,2n good.csv second.csv
mentions 'zz|integer' "'zz' in the second file"
# ... when the first has no final newline (no joining across files).
printf 'a,1\nb,2' >nonl.csv
printf 'c,x3\n' >after.csv
rec_error '^after\.csv:1: ' -t, -k2,2n nonl.csv after.csv
# From standard input: the file is '-'.
run_cmd "$GPUSORT" -t, -k2,2n <abc.csv
[ "$STATUS" -eq 2 ] || fail "a bad key from stdin: exit $STATUS (2 expected)"
empty "$RUN_OUT" "stdout of a failed sort of stdin"
check_msg "$RUN_ERR" '^-:3: ' no
# -z counts lines by NUL.
printf 'a,1\0b,2\0c,q\0d,4\0' >z.csv
rec_error '^z\.csv:3: ' -z -t, -k2,2n z.csv
# With --header, the header is not a record, but lines are still counted from it.
printf 'id,key\na,1\nb,oops\n' >h.csv
rec_error '^h\.csv:3: ' --header -t, -k2,2n h.csv
# The second file's header is dropped, not parsed; its lines count from its header.
printf 'id,key\nc,3\nd,bad\n' >h2.csv
printf 'id,key\na,1\n' >hgood.csv
rec_error '^h2\.csv:3: ' --header -t, -k2,2n hgood.csv h2.csv

# Deep in a bigger file (parsed in parallel blocks), and after runs have spilled:
# the line must still be exact, and the spilled runs removed.
"$GSREC" -s 2 -n 200000 -t u32 -w 4 >big.csv
{ head -n 151233 big.csv; echo 'bad,12abc,line'; tail -n +151234 big.csv; } >bigbad.csv
[ "$(grep -n 12abc bigbad.csv | cut -d: -f1)" = 151234 ] || fail "grep oracle"
rec_error '^bigbad\.csv:151234: ' --type=u32 -t, -k2,2n --parallel=3 bigbad.csv
rec_error '^bigbad\.csv:151234: ' --type=u32 -t, -k2,2n -S 1M bigbad.csv

# --------------------------------------------------------------------------------
# Bad -k and -t
# --------------------------------------------------------------------------------

printf 'a,1\nb,2\n' >ok.csv
for k in -k0 -k0,0 -k2.0 -k2. -k2,2. -kx -k2,2f -k2,2h -k2,2ng -k2g,2n \
         -k2,2M -k2,2d -k2,2V -k2,2R -k2,2i -k2,2nx '-k,' '-k2,' -k,2 -k-1 -k99999999999999999999; do
    opt_error '.' -t, "$k" ok.csv
    mentions '-k|key|field' "$k"
done
# More keys than gpusort takes.
ks=()
for i in $(seq 1 33); do ks+=(-k1); done
opt_error '.' -t, "${ks[@]}" ok.csv
mentions '-k|key' "33 -k options"
# -t: one byte.
for t in '' ',,' ab; do
    opt_error '.' -t "$t" -k2,2 ok.csv
    mentions '-t|separator' "-t '$t'"
done
opt_error '.' --field-separator= -k2,2 ok.csv
mentions '-t|separator' "--field-separator="
# -t without -k: fields mean nothing without a key. The contract gives -t with -k
# only; a sort user's `-t, FILE` would sort whole lines, which gpusort cannot do, so
# it must be an error rather than numbers read some other way.
opt_error '.' -t, ok.csv
mentions '-k|key' "-t without -k"

# --------------------------------------------------------------------------------
# Bad binary records
# --------------------------------------------------------------------------------

"$GSREC" -b -s 3 -n 10 -t u64 --record-size=16 >r16.bin
opt_error '.' -B --type=u64 --record-size=0 r16.bin
mentions 'record|size' "--record-size=0"
# The key past the record's end.
opt_error '.' -B --type=u64 --record-size=16 --key-offset=9 r16.bin
mentions 'offset|record' "--key-offset=9 of a u64 in 16 bytes"
opt_error '.' -B --type=u32 --record-size=16 --key-offset=16 r16.bin
mentions 'offset|record' "--key-offset=16 in 16 bytes"
# A record narrower than its key.
opt_error '.' -B --type=u64 --record-size=4 r16.bin
mentions 'record|size|width' "--record-size=4 for u64"
# Bare keys take no offset.
opt_error '.' -B --type=u64 --key-offset=8 r16.bin
mentions 'offset|record' "--key-offset without --record-size"
# Not a whole number of records: the file, its bytes and the record size are named.
head -c 150 r16.bin >p150.bin
rec_error 'p150\.bin' -B --type=u64 --record-size=16 p150.bin
printf '%s\n' "$ERR_MSG" | grep -qw 150 || fail "the message does not give the byte count 150: $ERR_MSG"
printf '%s\n' "$ERR_MSG" | grep -qw 16 || fail "the message does not give the record size 16: $ERR_MSG"
# Records need binary input and output alike; --record-size of text is an error.
printf '1\n2\n' >nums.txt
opt_error '.' --record-size=16 nums.txt
mentions 'record|binary|-B' "--record-size without -B"
opt_error '.' --key-offset=4 nums.txt
mentions 'offset|binary|-B' "--key-offset without -B"
opt_error '.' --input-format=binary --type=u64 --record-size=16 r16.bin
mentions 'record|binary|format|text' "--record-size with text output"
# -k is for text lines: with binary input it is an error, not ignored.
opt_error '.' -B --type=u64 -k1,1 r16.bin
mentions '-k|key|binary|text' "-k with -B"
