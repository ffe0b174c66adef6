#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# run.sh: `make fuzz`: each fuzz target for FUZZ_SECONDS (default 300), one after
# the other on one core, starting from its seed corpus. Everything goes under
# fuzz-out/<target>/ in the current (build) directory: corpus/ (the seeds and what
# libFuzzer added), crash-* (inputs that failed), and log. Prints each target's
# figures; exits 1 if any target failed.
#
# The environment (make fuzz sets it): FUZZ_KIND (libfuzzer or replay), FUZZ_BIN
# (the targets' directory), FUZZ_CORPUS (tests/fuzz/corpus), FUZZ_SECONDS.
set -u
: "${FUZZ_BIN:?}" "${FUZZ_CORPUS:?}"
kind=${FUZZ_KIND:-replay}
seconds=${FUZZ_SECONDS:-300}
failed=0
for t in text binary runs fields; do
    out=fuzz-out/$t
    mkdir -p "$out/corpus"
    cp -n "$FUZZ_CORPUS/$t"/* "$out/corpus/"
    echo "fuzz_$t: $kind, $seconds s" >&2
    st=0
    if [ "$kind" = libfuzzer ]; then
        # -rss_limit_mb: the runs target allocates a little over 1 MB an input.
        "$FUZZ_BIN/fuzz_$t" -max_total_time="$seconds" -print_final_stats=1 \
            -artifact_prefix="$out/crash-" -rss_limit_mb=4096 "$out/corpus" >"$out/log" 2>&1 || st=$?
        grep -E '^stat::(number_of_executed_units|average_exec_per_sec|new_units_added|peak_rss_mb)|^Done|^#[0-9]+[[:space:]]+DONE' \
            "$out/log" | sed "s/^/fuzz_$t: /"
        echo "fuzz_$t: corpus now $(find "$out/corpus" -type f | wc -l) inputs"
    else
        "$FUZZ_BIN/fuzz_$t" -m 1000000000 -s "$(date +%s)" -t "$seconds" \
            -w "$out/crash-last" "$out/corpus" >"$out/log" 2>&1 || st=$?
        sed "s/^/fuzz_$t: /" "$out/log" | tail -n 1
        [ "$st" -ne 0 ] || rm -f "$out/crash-last"
    fi
    if [ "$st" -ne 0 ]; then
        echo "fuzz_$t: FAILED (exit $st): see $out/log and $out/crash-*" >&2
        failed=1
    fi
done
exit "$failed"
