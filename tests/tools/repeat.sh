#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# repeat.sh N TEST...: run the tests N times in a row through make check (from a
# built tree, as `make check TESTS=...` would), each round all of them at once
# (make -jJOBS, default 2), and say how many rounds each failed; the logs of a
# failed round are kept as TEST.log.fail-ROUND. For a test that waits for a state:
# run it so, under load (stress -c 2, say), before trusting it. Exit 1 if any
# round failed. Never part of make check.
set -u
[ $# -ge 2 ] || { echo "usage: repeat.sh N TEST..." >&2; exit 2; }
n=$1
shift
jobs=${JOBS:-2}
declare -A failed
for t in "$@"; do failed[$t]=0; done
for ((i = 1; i <= n; i++)); do
    make -j"$jobs" check TESTS="$*" >/dev/null 2>&1
    for t in "$@"; do
        trs=${t%.sh}.trs
        if ! grep -q '^:test-result: \(PASS\|SKIP\)' "$trs" 2>/dev/null; then
            failed[$t]=$((failed[$t] + 1))
            cp "${t%.sh}.log" "${t%.sh}.log.fail-$i" 2>/dev/null || true
        fi
    done
    printf 'round %d/%d done\n' "$i" "$n" >&2
done
status=0
for t in "$@"; do
    printf '%s: %d of %d rounds failed\n' "$t" "${failed[$t]}" "$n"
    [ "${failed[$t]}" -eq 0 ] || status=1
done
exit "$status"
