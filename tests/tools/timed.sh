#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# timed.sh CMD...: run one test (the harness's LOG_COMPILER and SH_LOG_COMPILER),
# its status passed on, and end its log with "# time: SECONDS s", the wall time it
# took: .ci/run lists the slowest tests of each build from these lines.
start=$(date +%s%N)
"$@"
status=$?
end=$(date +%s%N)
printf '# time: %d.%03d s\n' $(( (end - start) / 1000000000 )) $(( (end - start) / 1000000 % 1000 ))
exit "$status"
