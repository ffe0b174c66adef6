#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# fault-trickle.sh: inputs that arrive one byte at a time (a slow pipe, a FIFO fed
# by a slow writer) are sorted, merged and checked exactly as when they arrive
# whole: text numbers and binary keys are cut at every byte. One byte a read comes
# from tests/tools/faultfs.so (GS_FAULT_READ_PIPES=1, GS_FAULT_READ_MAX=1: every read of
# a pipe returns at most one byte), and from a real writer, dd bs=1.
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"
# shellcheck source=tests/cli/extlib.sh
. "$srcdir/extlib.sh"
need_faultfs

# trickle GPUSORT-ARG...: gpusort with every pipe read one byte at a time; its
# stdin is this function's.
trickle() {
    env LD_PRELOAD="$FAULT_PRELOAD" GS_FAULT_READ_PIPES=1 GS_FAULT_READ_MAX=1 "$GPUSORT" "$@"
}

# pipe_ok OUT WHAT FEEDER-FILE GPUSORT-ARG...: cat FEEDER-FILE | trickle ARGS > OUT;
# gpusort must exit 0 with nothing on stderr.
pipe_ok() {
    local out=$1 what=$2 feed=$3 st
    shift 3
    set +e
    # shellcheck disable=SC2002  # a pipe is the point
    cat "$feed" | trickle "$@" >"$out" 2>"$RUN_ERR"
    st=${PIPESTATUS[1]}
    set -e
    { [ "$st" -eq 0 ] && [ ! -s "$RUN_ERR" ]; } || fail "$what: exited $st: $(head -c 2000 "$RUN_ERR")"
}

# Text, with every kind of white space, signs and leading zeros, cut at every byte;
# -S 1M makes two runs and a merge.
"$GSGEN" -t i64 -n 70000 -s 1401 >a.txt
printf ' +0007\t-0\r\n\v\f12 -9223372036854775808\n9223372036854775807' >>a.txt
oracle a.txt >exp.txt
pipe_ok out.txt "text, one byte a read" a.txt
same exp.txt out.txt "text, one byte a read"
pipe_ok out.txt "text, one byte a read, -S 1M" a.txt -S 1M
same exp.txt out.txt "text, one byte a read, -S 1M"
oracle -r -u -- a.txt >exp-ru.txt
pipe_ok out.txt "text, one byte a read, -r -u" a.txt -r -u
same exp-ru.txt out.txt "text, one byte a read, -r -u"

# Binary keys of each width and byte order, cut at every byte.
for t in i32 u64; do
    for e in little big; do
        "$GSGEN" -b -t "$t" --endian="$e" -n 30000 -s 1402 >k.bin
        decode "$t" "$e" k.bin | LC_ALL=C sort -n >exp-k.txt
        pipe_ok out.txt "binary $t $e, one byte a read" k.bin --type="$t" --endian="$e" --input-format=binary
        same exp-k.txt out.txt "binary $t $e, one byte a read"
    done
done

# A partial key at the end is still the contract's error.
printf '\001\002\003\004\005' >partial.bin
set +e
# shellcheck disable=SC2002  # a pipe is the point
cat partial.bin | trickle -B --type=u32 >"$RUN_OUT" 2>"$RUN_ERR"
st=${PIPESTATUS[1]}
set -e
[ "$st" -eq 2 ] || fail "partial key, one byte a read: exited $st (2 expected)"
check_msg "$RUN_ERR" "^-: 5 bytes: not a whole number of 4-byte keys$" no

# -c and -m from pipes, one byte a read: -c finds the same first disorder; -m
# merges two FIFOs (both read a byte at a time, turn about).
"$GSGEN" -t u32 -n 20000 -s 1403 -d sorted >s1.txt
"$GSGEN" -t u32 -n 20000 -s 1404 -d sorted >s2.txt
pipe_ok out.txt "-c of sorted input, one byte a read" s1.txt -c --type=u32
empty out.txt "stdout of -c"
sed '12345s/.*/7/' s1.txt >bad.txt
want=$(first_disorder asc bad.txt)
set +e
# shellcheck disable=SC2002  # a pipe is the point
cat bad.txt | trickle -c --type=u32 >"$RUN_OUT" 2>"$RUN_ERR"
st=${PIPESTATUS[1]}
set -e
[ "$st" -eq 1 ] || fail "-c of unsorted input, one byte a read: exited $st (1 expected)"
check_msg "$RUN_ERR" "^-:${want% *}: disorder: ${want#* }\$" no
mkfifo f1 f2
cat s1.txt >f1 &
cat s2.txt >f2 &
trickle -m --type=u32 f1 f2 >out.txt 2>"$RUN_ERR" || fail "-m of two FIFOs, one byte a read: $(cat "$RUN_ERR")"
wait
oracle s1.txt s2.txt >exp-m.txt
same exp-m.txt out.txt "-m of two FIFOs, one byte a read"

# A real slow writer: dd writes one byte a write(2); gpusort reads what is there.
head -c 30000 a.txt >b.txt
oracle b.txt >exp-b.txt
set +e
dd if=b.txt bs=1 status=none | "$GPUSORT" >out.txt 2>"$RUN_ERR"
st=${PIPESTATUS[1]}
set -e
[ "$st" -eq 0 ] || fail "dd bs=1 | gpusort: exited $st: $(cat "$RUN_ERR")"
same exp-b.txt out.txt "dd bs=1 | gpusort"
