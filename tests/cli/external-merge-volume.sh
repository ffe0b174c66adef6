#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# external-merge-volume.sh: merge passes rewrite each key a few times (about the log
# of the run count), not once per pass: the spill volume of many runs stays within a
# small multiple of the keys.
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"
# shellcheck source=tests/cli/extlib.sh
. "$srcdir/extlib.sh"
need_gscheck
mkdir tdir

# 4M u32 keys (16 MB) from a pipe against -S 1M, uncompressed: chunks take at most
# 128 Ki keys and a run is at least a quarter chunk (pipeline/chunks.c), so there are at most
# 123 runs. Merging them in passes of 2 or more runs at a time, each pass taking
# runs of about the same size, rewrites each key at most ceil(log2(123)) = 7 times:
# with the first spill, at most 8 x 16 MB. BOUND allows 9. (Merging each pass's
# result again in the next pass writes about runs/2 x 16 MB: 30 times and more.)
N=4000000
KEY_BYTES=$((N * 4))
BOUND=$((9 * KEY_BYTES))
want=$("$GSGEN" -t u32 -n "$N" -s 901 --sum)
bin_pipe u32 -n "$N" -s 901 -- -S 1M -T tdir --compress-temp=none --stats --
sums_equal "$want" "$GOT" "-S 1M"
dir_empty tdir "-S 1M"
spilled=$(spill_bytes "$RUN_ERR")
[ "$spilled" -gt "$KEY_BYTES" ] || fail "-S 1M spilled $spilled bytes: no merge pass, nothing to measure"
[ "$spilled" -le "$BOUND" ] \
    || fail "-S 1M: merge passes spilled $spilled bytes for $KEY_BYTES bytes of keys ($((spilled / KEY_BYTES))x; at most 9x expected)"
