#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# replay.sh: each fuzz target over its seed corpus (tests/fuzz/corpus/<target>/),
# then, for GS_FUZZ_SECONDS each (default 10), over inputs made from it: random
# mutants (replay.c) in a plain build (10 s at GS_TEST_SCALE, 2 at least: under a
# sanitizer, the search is the fuzzing build's), libFuzzer's own search in a
# --enable-fuzzing build. A target aborts on a crash or a wrong result; that fails the test, and the
# input that did it is kept as fuzz-failure-<target> in the build directory.
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")/../cli}/lib.sh"

: "${FUZZ_BIN:?FUZZ_BIN must name the directory of the fuzz targets}"
: "${FUZZ_CORPUS:?FUZZ_CORPUS must name tests/fuzz/corpus}"
: "${FUZZ_KIND:=replay}"
seconds=10
[ "$FUZZ_KIND" = libfuzzer ] || seconds=$(scaled 10 2)
seconds=${GS_FUZZ_SECONDS:-$seconds}
build_dir=$(dirname "$(dirname "$FUZZ_BIN")")

for t in text binary runs fields; do
    bin=$FUZZ_BIN/fuzz_$t
    corpus=$FUZZ_CORPUS/$t
    [ -x "$bin" ] || fail "$bin is not built"
    [ -n "$(ls -A "$corpus")" ] || fail "no seed corpus in $corpus"
    STATUS=0
    if [ "$FUZZ_KIND" = libfuzzer ]; then
        # The seeds one by one, then a search from a scratch copy of them.
        "$bin" "$corpus"/* >"$t.log" 2>&1 || STATUS=$?
        if [ "$STATUS" -eq 0 ]; then
            mkdir "work-$t"
            cp "$corpus"/* "work-$t"/
            "$bin" -seed=1 -max_total_time="$seconds" -artifact_prefix="$test_dir/crash-$t-" \
                "work-$t" >>"$t.log" 2>&1 || STATUS=$?
        fi
        grep -E '^(Done|stat::number_of_executed_units)' "$t.log" | sed "s/^/fuzz_$t: /" || true
    else
        "$bin" -m 100000000 -s 1 -t "$seconds" -w "$test_dir/mutant-$t" "$corpus" \
            >"$t.log" 2>&1 || STATUS=$?
        sed "s/^/fuzz_$t: /" "$t.log" | tail -n 1
    fi
    if [ "$STATUS" -ne 0 ]; then
        cat "$t.log" >&2
        for f in "$test_dir/mutant-$t" "$test_dir"/crash-"$t"-*; do
            if [ -f "$f" ]; then
                cp "$f" "$build_dir/fuzz-failure-$t"
                echo "the failing input is $build_dir/fuzz-failure-$t: run $bin on it" >&2
                break
            fi
        done
        fail "fuzz_$t failed (exit $STATUS)"
    fi
done
