#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# rss.sh: the peak resident memory of an external sort stays within -S plus a fixed
# overhead (measured with /usr/bin/time -f %M; skipped where that is missing).
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"
# shellcheck source=tests/cli/extlib.sh
. "$srcdir/extlib.sh"
need_gscheck
# A sanitizer's shadow memory and quarantine say nothing about gpusort's own use.
[ -z "$SAN_NAME" ] || skip "peak RSS is not gpusort's own under $SAN_NAME"
[ -x /usr/bin/time ] || skip "no /usr/bin/time"
/usr/bin/time -f %M true 2>/dev/null >/dev/null || skip "/usr/bin/time has no -f %M (not GNU time)"

# OVERHEAD: what a sort may use beyond -S, in KiB, on the CPU (--device=cpu: a GPU
# adds the CUDA runtime and its pinned staging buffers, a fixed amount stated in the
# README). Measured on 30M random u32 keys
# with 2 threads (--parallel=2, as below), gpusort as of this test; peak RSS minus
# S, KiB, for binary from a file, binary from a pipe, and text from a file:
#     -S 1M:     6288,   6284,   7568
#     -S 4M:     7932,   7764,   8088
#     -S 16M:   21596,  21656,  17848
#     -S 64M:   38860,  39072,  41968
#     -S 256M: -23468, -22324, -22244  (all 30M keys fit in memory: no spill)
# The largest is 41968 KiB (41 MiB); OVERHEAD adds a quarter: 52 MiB. (The
# overhead grows with -S up to 64M: the read blocks, S/8 each up to 16 MiB, and
# their read-ahead are outside the -S budget.)
OVERHEAD=$((52 * 1024))
N=30000000
mkdir tdir

want=$("$GSGEN" -t u32 -n "$N" -s 1101 --sum)
for s in 16 64; do
    set +e
    "$GSGEN" -b -t u32 -n "$N" -s 1101 \
        | /usr/bin/time -f %M -o rss.txt "$GPUSORT" -B --type=u32 --device=cpu --parallel=2 -S "${s}M" -T tdir 2>err.txt \
        | "$GSCHECK" -t u32 >got.txt 2>chk.txt
    st=("${PIPESTATUS[@]}")
    set -e
    [ "${st[1]}" -eq 0 ] || fail "-S ${s}M exited ${st[1]}: $(cat err.txt)"
    empty err.txt "stderr of -S ${s}M"
    [ "${st[2]}" -eq 0 ] || fail "-S ${s}M: output not in order: $(cat chk.txt)"
    sums_equal "$want" "$(cat got.txt)" "-S ${s}M"
    dir_empty tdir "-S ${s}M"
    kb=$(tail -n 1 rss.txt)
    case $kb in '' | *[!0-9]*) fail "-S ${s}M: no peak RSS from /usr/bin/time: $(cat rss.txt)" ;; esac
    bound=$((s * 1024 + OVERHEAD))
    echo "-S ${s}M: peak RSS $kb KiB, bound $bound KiB (S + $OVERHEAD)"
    [ "$kb" -le "$bound" ] || fail "-S ${s}M: peak RSS $kb KiB is over S + OVERHEAD = $bound KiB"
done
