#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# records-whole.sh: binary records are counted from where each input starts, and
# standard input from where its descriptor stands (a file already read in part):
# its bytes from there must be a whole number of records, else one message naming
# the bytes; a valid input positioned so is sorted whole. An input of known size
# that is not whole records is refused before any chunk is sorted or spilled.
case ${GSREC:-} in '' | /*) ;; *) GSREC=$PWD/$GSREC ;; esac
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"
# shellcheck source=tests/cli/extlib.sh
. "$srcdir/extlib.sh"

need_gsrec
command -v python3 >/dev/null 2>&1 || skip "python3 (the oracle) is missing"

"$GSREC" -b -s 4601 -n 5000 --record-size=12 --key-offset=0 -t i64 >r.bin

# Standard input 12 bytes in (one record read by another program first): the rest
# sorted, every record of it.
tail -c +13 r.bin >rest.bin
python3 "$srcdir/recsort.py" 12 0 i64 little rest.bin || fail "the oracle failed"
st=0
{ dd bs=1 skip=12 count=0 2>/dev/null; "$GPUSORT" -B --record-size=12 >got.bin 2>"$RUN_ERR"; } <r.bin || st=$?
[ "$st" -eq 0 ] && [ ! -s "$RUN_ERR" ] || fail "standard input 12 bytes in: exited $st: $(cat "$RUN_ERR")"
same exp.bin got.bin "standard input 12 bytes in"

# 7 bytes in: 59993 bytes are not whole 12-byte records, whatever the file's size.
for skip in 7 5; do
    st=0
    { dd bs=1 skip="$skip" count=0 2>/dev/null; "$GPUSORT" -B --record-size=12 >got.bin 2>"$RUN_ERR"; } <r.bin || st=$?
    [ "$st" -eq 2 ] || fail "standard input $skip bytes in: exited $st (2 expected)"
    empty got.bin "the output of an input not whole"
    check_msg "$RUN_ERR" "^-: $((60000 - skip)) bytes: not a whole number of 12-byte records$" no
done

# An input larger than -S, not whole records: refused before a run is spilled, so a
# -T that cannot take one does not matter.
"$GSREC" -b -s 4602 -n 300000 --record-size=12 --key-offset=0 -t i64 >big.bin
printf 'tail' >>big.bin
expect_error 2 "^big\.bin: 3600004 bytes: not a whole number of 12-byte records$" -- \
    "$GPUSORT" -B --record-size=12 -S 1M -T "$test_dir/no-such-dir" big.bin
