#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# memory.sh: -S bounds the memory whatever --parallel says (threads are capped where
# their own buffers would not fit) and however many runs records spill in (merged
# in passes where their blocks would not fit), and the default -S respects the address space
# that `ulimit -v` leaves: a 200 MB input sorts under a limit of 400 MB, as sort
# sorts it. Skipped under the sanitizers, whose runtimes take address space and
# memory of their own.
case ${GSREC:-} in '' | /*) ;; *) GSREC=$PWD/$GSREC ;; esac
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"

[ -z "$SAN_NAME" ] || skip "memory bounds are not measured under $SAN_NAME"
mkdir tdir

# peak_kib STDERR-FILE: the peak RSS --stats reported, in KiB.
peak_kib() {
    sed -n 's/^gpusort: stats: peak RSS \([0-9]*\) KiB$/\1/p' "$1"
}

"$GSGEN" -n 2000000 -t u32 -s 2241 >in.txt
oracle in.txt >exp.txt
oracle -u -- in.txt >expu.txt
run_cmd "$GPUSORT" --device=cpu --stats -S 8M --parallel=128 --type=u32 -T tdir -o out.txt in.txt
[ "$STATUS" -eq 0 ] || fail "-S 8M --parallel=128: exited $STATUS: $(cat "$RUN_ERR")"
same exp.txt out.txt "-S 8M --parallel=128"
kib=$(peak_kib "$RUN_ERR")
[ -n "$kib" ] || fail "no peak RSS in --stats: $(cat "$RUN_ERR")"
# 8 MiB of -S and a few threads' buffers; 128 threads' took about 190 MB.
[ "$kib" -lt 65536 ] || fail "-S 8M --parallel=128: peak RSS $kib KiB"
run_cmd "$GPUSORT" --device=cpu --stats -u -S 8M --parallel=1000 --type=u32 -T tdir -o out.txt in.txt
[ "$STATUS" -eq 0 ] || fail "-u -S 8M --parallel=1000: exited $STATUS: $(cat "$RUN_ERR")"
same expu.txt out.txt "-u -S 8M --parallel=1000"
kib=$(peak_kib "$RUN_ERR")
[ "$kib" -lt 65536 ] || fail "-u -S 8M --parallel=1000: peak RSS $kib KiB"

# Records spilled in about a hundred runs at -S 2M: merged in passes, a few runs
# at a time, where the one merge of them all held a block of each, past -S. (Where
# the records' generator is built.)
if [ -x "${GSREC:-}" ]; then
    "$GSREC" --bench -n 2500000 -s 2243 >rec.csv
    LC_ALL=C sort -t, -k2,2n rec.csv >exp.csv
    run_cmd "$GPUSORT" --device=cpu --stats -S 2M -T tdir -t, -k2,2n -o out.csv rec.csv
    [ "$STATUS" -eq 0 ] || fail "records, -S 2M: exited $STATUS: $(cat "$RUN_ERR")"
    same exp.csv out.csv "records, -S 2M"
    kib=$(peak_kib "$RUN_ERR")
    [ "$kib" -lt 24576 ] || fail "records spilled in many runs, -S 2M: peak RSS $kib KiB"
    rm -f rec.csv exp.csv out.csv
fi

# 200 MB of text under a 400 MB address space, with the default -S.
"$GSGEN" -n 20000000 -t u32 -s 2242 >big.txt
run_cmd bash -c 'ulimit -v 400000 && exec "$0" "$@"' "$GPUSORT" --device=cpu --type=u32 -T tdir \
    -o out.txt big.txt
[ "$STATUS" -eq 0 ] || fail "ulimit -v 400000: exited $STATUS: $(cat "$RUN_ERR")"
oracle big.txt >exp.txt
same exp.txt out.txt "200 MB under ulimit -v 400000"
