#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# teardown.sh: CUDA's start and the context's teardown, at the process's exit or
# early on a thread of its own beside the work that follows (tests/bench/teardown.c;
# a benchmark, never a test). The modes run alternating, R rounds; the table gives
# each one's medians, in seconds:
#   init   from main's start to the device set up (context, buffers, a sort)
#   reset  gk_device_reset's own time (reset and bg)
#   work   THREADS threads writing WORK_MIB of fresh pages
#   exit   from the return from main to the process's end, as its parent sees it
#   total  the process, from before its start to after its end
# Environment: TEARDOWN (default ./tests/bench/teardown), R (5), DEV_MIB (16384),
# PIN_MIB (2048), WORK_MIB (4096), THREADS (nproc), MODES ("cpu exit reset bg").
if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi
set -eu
export LC_ALL=C
# shellcheck disable=SC2034 # lib.sh uses name
name=teardown.sh
# shellcheck source=tests/bench/lib.sh
. "$(dirname "$0")/lib.sh"

TEARDOWN=${TEARDOWN:-./tests/bench/teardown}
R=${R:-5}
DEV_MIB=${DEV_MIB:-16384}
PIN_MIB=${PIN_MIB:-2048}
WORK_MIB=${WORK_MIB:-4096}
THREADS=${THREADS:-$(nproc)}
MODES=${MODES:-cpu exit reset bg}
[ -x "$TEARDOWN" ] || die "no program at $TEARDOWN (make tests/bench/teardown)"
log=$(mktemp)
trap 'rm -f "$log"' EXIT

declare -A col
for ((r = 0; r <= R; r++)); do   # round 0: untimed, the machine warmed
    for m in $MODES; do
        before=$(date +%s.%N)
        st=0
        "$TEARDOWN" "$m" "$DEV_MIB" "$PIN_MIB" "$WORK_MIB" "$THREADS" >"$log" || st=$?
        after=$(date +%s.%N)
        [ "$st" -eq 77 ] && { echo "$name: no GPU: skipped"; exit 77; }
        [ "$st" -eq 0 ] || die "teardown $m failed (exit $st)"
        [ "$r" -gt 0 ] || continue
        line=$(awk -v b="$before" -v a="$after" '
            { t[$2] = $3 }
            END {
                init = ("ready" in t) ? t["ready"] - t["main"] : 0
                rs = ("reset-done" in t) ? t["reset-done"] - t["reset-begun"] : 0
                wb = ("work-begun" in t) ? t["work-begun"] : t["main"]
                printf "%.3f %.3f %.3f %.3f %.3f", init, rs, t["work-done"] ? t["work-done"] - wb : t["end"] - wb, a - t["end"], a - b
            }' "$log")
        read -r i rs w e t <<<"$line"
        col[$m.init]+=" $i" col[$m.reset]+=" $rs" col[$m.work]+=" $w"
        col[$m.exit]+=" $e" col[$m.total]+=" $t"
    done
done

echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ); $(nproc) CPUs; $(gpu_lines | head -n 1)"
echo "device memory $DEV_MIB MiB, pinned $PIN_MIB MiB, work $WORK_MIB MiB on $THREADS threads; medians of $R rounds, s"
printf '%-6s %7s %7s %7s %7s %7s\n' mode init reset work exit total
for m in $MODES; do
    printf '%-6s' "$m"
    for k in init reset work exit total; do
        # shellcheck disable=SC2086 # the times are words on purpose
        printf ' %7s' "$(printf '%s\n' ${col[$m.$k]} | median)"
    done
    printf '   (totals:%s)\n' "${col[$m.total]}"
done
