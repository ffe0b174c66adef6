#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# gpu-suite.sh: the GPU machine's test run. The GPU test programs (the chunk sorter,
# our bitonic sort, the text parse), then the whole command-line suite with
# --device=0 added to every gpusort command (DEVICE=N picks another;
# ALGORITHM=bitonic adds --algorithm=bitonic).
# TESTS="a b" runs only those command-line tests (names without .sh), and not the
# GPU programs. PART=K/N runs the K-th of N parts of the command-line tests (every
# N-th in name order, from the K-th), the GPU programs with part 1 only: the whole
# suite takes longer than one call of the lent machine (600 s).
# Run from a built tree (the build dir is BUILD, default .): prints each result and
# "N passed, N failed, N skipped".
set -u
here=$(cd "$(dirname "$0")" && pwd)
BUILD=${BUILD:-.}
BUILD=$(cd "$BUILD" && pwd)
wrap=$(mktemp -d)
trap 'rm -rf "$wrap"' EXIT
chmod 0755 "$wrap"   # some tests run gpusort as another user (output-like-sort.sh)
extra="--device=${DEVICE:-0}${ALGORITHM:+ --algorithm=$ALGORITHM}"
printf '#!/bin/sh\nexec "%s" %s "$@"\n' "$BUILD/src/gpusort" "$extra" >"$wrap/gpusort"
chmod +x "$wrap/gpusort"

pass=0 fail=0 skip=0
record() {   # name status
    case $2 in
    0) pass=$((pass + 1)); echo "PASS: $1" ;;
    77) skip=$((skip + 1)); echo "SKIP: $1" ;;
    *) fail=$((fail + 1)); echo "FAIL: $1 (exit $2)" ;;
    esac
}
part=${PART:-1/1}
pk=${part%/*} pn=${part#*/}
case $pk$pn in *[!0-9]*) echo "suite.sh: PART must be K/N, e.g. 1/2" >&2; exit 2 ;; esac
[ "$pk" -ge 1 ] && [ "$pk" -le "$pn" ] || { echo "suite.sh: PART $part: K must be 1 to N" >&2; exit 2; }
for p in sorter bitonic text; do
    if [ -z "${TESTS:-}" ] && [ "$pk" -eq 1 ] && [ -x "$BUILD/tests/gpu/$p" ]; then
        "$BUILD/tests/gpu/$p"
        record "$p" $?
    fi
done
i=0
for t in "$here"/../cli/*.sh; do
    case $(basename "$t") in lib.sh | extlib.sh) continue ;; esac
    i=$((i + 1))
    [ $(((i - 1) % pn + 1)) -eq "$pk" ] || continue
    if [ -n "${TESTS:-}" ]; then
        case " $TESTS " in *" $(basename "$t" .sh) "*) ;; *) continue ;; esac
    fi
    GPUSORT=$wrap/gpusort GSGEN=$BUILD/tests/tools/gsgen GSCHECK=$BUILD/tests/tools/gscheck \
        FAULTFS=$BUILD/tests/tools/faultfs.so TGKILL=$BUILD/tests/tools/tgkill \
        SIGDFL=$BUILD/tests/tools/sigdfl GSREC=$BUILD/tests/tools/gsrec srcdir=$here/../cli \
        bash "$t" >"$wrap/log" 2>&1 </dev/null
    st=$?
    record "cli/$(basename "$t")" $st
    [ $st -eq 0 ] || [ $st -eq 77 ] || tail -n 5 "$wrap/log"
done
echo "${extra}: $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
