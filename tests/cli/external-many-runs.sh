#!/usr/bin/env bash
# external-many-runs.sh: more runs than one merge takes (under a low open-file limit):
# merge passes, the output right, and nothing left in -T.
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"
# shellcheck source=tests/cli/extlib.sh
. "$srcdir/extlib.sh"
need_gscheck
mkdir tdir

# 1. The contract's case: ulimit -n 32 and -S 1M. 2M u32 keys are 8 MB against
# chunks of at most 128 Ki keys (-S / 2 / 4 bytes), and a run is never smaller than
# a quarter chunk: 16 to 61 runs; run.c makes about 60 (strace counts them), well
# over the 24 inputs that 32 descriptors leave one merge.
"$GSGEN" -t u32 -n 2000000 -s 501 >in.txt
LC_ALL=C sort -n in.txt >exp.txt
status=0
(ulimit -n 32 && exec "$GPUSORT" -t u32 -S 1M -T tdir --compress-temp=none --stats \
    in.txt >out.txt 2>err.txt) || status=$?
[ "$status" -eq 0 ] || fail "ulimit -n 32, -S 1M exited $status: $(cat err.txt)"
stats_only err.txt
same exp.txt out.txt "ulimit -n 32, -S 1M"
dir_empty tdir "ulimit -n 32, -S 1M"
# Merge passes wrote runs of runs: with --compress-temp=none the spill volume
# exceeds the keys' 8 MB only if a pass did.
spilled=$(spill_bytes err.txt)
[ "$spilled" -gt 8000000 ] || fail "ulimit -n 32, -S 1M: spilled $spilled bytes: no merge pass?"

# The same to -o, with -u and -r (the passes keep the order and drop repeats once).
(ulimit -n 32 && exec "$GPUSORT" -t u32 -S 1M -T tdir -r -u -o sorted.txt in.txt \
    >out.txt 2>err.txt) || fail "ulimit -n 32, -S 1M -r -u -o exited: $(cat err.txt)"
empty err.txt "stderr of -r -u -o"
empty out.txt "stdout with -o"
uniq exp.txt | tac >exp-ru.txt
same exp-ru.txt sorted.txt "ulimit -n 32, -S 1M -r -u -o"
dir_empty tdir "ulimit -n 32, -S 1M -r -u -o"

# 2. The open-file limit, not memory, bounds the fan-in: one thread (one set of
# cursor buffers) and -S 4M would let a merge take 10 runs, ulimit -n 16 leaves 8.
# 10M u32 keys from a pipe make about 30 runs.
want=$("$GSGEN" -t u32 -n 10000000 -s 502 --sum)
status=0
(
    ulimit -n 16
    bin_pipe u32 -n 10000000 -s 502 -- -S 4M --parallel=1 -T tdir --compress-temp=none --stats --
    printf '%s\n' "$GOT" >got.txt
    cp "$RUN_ERR" err.txt
) || status=$?
[ "$status" -eq 0 ] || exit "$status"
sums_equal "$want" "$(cat got.txt)" "ulimit -n 16, -S 4M --parallel=1"
dir_empty tdir "ulimit -n 16, -S 4M --parallel=1"
spilled=$(spill_bytes err.txt)
[ "$spilled" -gt 40000000 ] || fail "ulimit -n 16, -S 4M: spilled $spilled bytes: no merge pass?"
