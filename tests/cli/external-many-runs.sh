#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# external-many-runs.sh: more runs than one merge takes (under a low open-file limit):
# merge passes, the output right, and nothing left in -T.
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"
# shellcheck source=tests/cli/extlib.sh
. "$srcdir/extlib.sh"
need_gscheck
mkdir tdir

# Run counts below were counted with --progress against pipeline/chunks.c as of this test; the
# checks do not depend on them, only on there being clearly more runs than one merge
# can take: merge passes show as a spill volume (uncompressed) above the keys' bytes.
# A merge takes at most the open-file limit less 9 inputs (the standard streams and
# a reserve of 6, ctx_fan_in); descriptors the caller leaves open lower it further,
# so the margins below hold for a caller with only 0, 1 and 2 open (CI's case).

# Every gpusort here runs with --device=cpu, after any --device given before it
# (tests/gpu/suite.sh runs each test with --device=0): the CUDA runtime alone holds
# more descriptors than these limits leave.

# 1. ulimit -n 32 and -S 1M: 4M u32 keys (16 MB) make 31 runs, over the 23 inputs
# that 32 descriptors leave one merge (with -S 1M, the cursor buffers that memory
# pays for allow fewer still). The oracle is gsgen -d sorted: the same
# keys sorted by gsgen's own radix sort.
"$GSGEN" -t u32 -n 4000000 -s 501 >in.txt
"$GSGEN" -t u32 -n 4000000 -s 501 -d sorted >exp.txt
status=0
(ulimit -n 32 && exec "$GPUSORT" --device=cpu --type=u32 -S 1M -T tdir --compress-temp=none --stats \
    in.txt >out.txt 2>err.txt) || status=$?
[ "$status" -eq 0 ] || fail "ulimit -n 32, -S 1M exited $status: $(cat err.txt)"
stats_only err.txt
same exp.txt out.txt "ulimit -n 32, -S 1M"
dir_empty tdir "ulimit -n 32, -S 1M"
spilled=$(spill_bytes err.txt)
[ "$spilled" -gt 16000000 ] || fail "ulimit -n 32, -S 1M: spilled $spilled bytes: no merge pass?"

# The same to -o, with -r and -u: the passes keep the order and drop repeats.
status=0
(ulimit -n 32 && exec "$GPUSORT" --device=cpu --type=u32 -S 1M -T tdir -r -u -o sorted.txt in.txt \
    >out.txt 2>err.txt) || status=$?
[ "$status" -eq 0 ] || fail "ulimit -n 32, -S 1M -r -u -o exited $status: $(cat err.txt)"
empty err.txt "stderr of -r -u -o"
empty out.txt "stdout with -o"
uniq exp.txt | tac >exp-ru.txt
same exp-ru.txt sorted.txt "ulimit -n 32, -S 1M -r -u -o"
dir_empty tdir "ulimit -n 32, -S 1M -r -u -o"

# 2. The open-file limit, not memory, bounds the merge: with one thread (one set of
# cursor buffers) -S 10M pays for 26 cursors, ulimit -n 24 leaves at most 15 inputs.
# 30M u32 keys (120 MB) from a pipe make 23 runs. (At ulimit -n 32 a merge could
# take 23, and with nothing but 0, 1 and 2 open the runs fit one merge: that is how
# this part failed in CI, where it had passed in a shell holding two more.)
N=30000000
want=$("$GSGEN" -t u32 -n "$N" -s 502 --sum)
status=0
(
    ulimit -n 24
    bin_pipe u32 -n "$N" -s 502 -- --device=cpu -S 10M --parallel=1 -T tdir --compress-temp=none \
        --stats --
    printf '%s\n' "$GOT" >got.txt
    cp "$RUN_ERR" err.txt
) || status=$?
[ "$status" -eq 0 ] || exit "$status"
sums_equal "$want" "$(cat got.txt)" "ulimit -n 24, -S 10M --parallel=1"
dir_empty tdir "ulimit -n 24, -S 10M --parallel=1"
spilled=$(spill_bytes err.txt)
[ "$spilled" -gt $((N * 4)) ] || fail "ulimit -n 24, -S 10M: spilled $spilled bytes: no merge pass?"

# 3. Lower still: ulimit -n 16 leaves a merge at most 7 inputs; 10M keys against
# -S 4M make 20 runs: passes of passes.
N=10000000
want=$("$GSGEN" -t u32 -n "$N" -s 503 --sum)
status=0
(
    ulimit -n 16
    bin_pipe u32 -n "$N" -s 503 -- --device=cpu -S 4M --parallel=1 -T tdir --compress-temp=none \
        --stats --
    printf '%s\n' "$GOT" >got.txt
    cp "$RUN_ERR" err.txt
) || status=$?
[ "$status" -eq 0 ] || exit "$status"
sums_equal "$want" "$(cat got.txt)" "ulimit -n 16, -S 4M --parallel=1"
dir_empty tdir "ulimit -n 16, -S 4M --parallel=1"
spilled=$(spill_bytes err.txt)
[ "$spilled" -gt $((N * 4)) ] || fail "ulimit -n 16, -S 4M: spilled $spilled bytes: no merge pass?"
