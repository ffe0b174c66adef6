#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# license.sh: every source file carries its license (an SPDX line in its first two
# lines), LICENSE is there, and --version names the same license.
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"
not_under_tsan "no program runs"

top=$(cd "$srcdir/../.." && pwd)
[ -f "$top/LICENSE" ] || fail "no LICENSE at the top of the tree"
head -n 1 "$top/LICENSE" | grep -q '^MIT License$' || fail "LICENSE is not the MIT License"
missing=$(cd "$top" && find src kernels tests man configure.ac Makefile.am .ci \
        -path tests/fuzz/corpus -prune -o -type f \
        \( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' -o -name '*.cc' \
           -o -name '*.sh' -o -name '*.am' -o -name '*.ac' -o -name '*.1' -o -name run \) \
        -print | while read -r f; do
            head -n 2 "$f" | grep -q 'SPDX-License-Identifier: MIT' || echo "$f"
        done)
[ -z "$missing" ] || fail "no SPDX line in: $missing"
run_cmd "$GPUSORT" --version
grep -q '^License MIT' "$RUN_OUT" || fail "--version names another license: $(cat "$RUN_OUT")"
