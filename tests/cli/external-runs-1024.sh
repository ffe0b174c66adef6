#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# external-runs-1024.sh: more spilled runs at once than 1024 (more than any fixed
# table of temporary files should hold): the sort still works, within a time bound.
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"
# shellcheck source=tests/cli/extlib.sh
. "$srcdir/extlib.sh"
need_gscheck
not_under_sanitizers "its subject is the count of files at once, which check_cleanup.c's registry of over 1024 files covers there, and external-many-runs.sh's merge of many runs"
command -v timeout >/dev/null 2>&1 || skip "no timeout(1)"
mkdir tdir

# 36M i64 keys (288 MB) from a pipe against -S 1M: chunks of at most 64 Ki keys,
# about 32 Ki keys a spilled run: 1130 files in -T at once before the merge starts
# (counted with pipeline/chunks.c as of this test). Merged in balanced passes that is about a
# dozen passes over 288 MB: well within GS_TIMEOUT seconds on 2 cores (18 s here).
N=36000000
GS_TIMEOUT=150
want=$("$GSGEN" -t i64 -n "$N" -s 1001 --sum)
bin_pipe i64 -n "$N" -s 1001 -- -S 1M -T tdir --
sums_equal "$want" "$GOT" "-S 1M, $N keys"
dir_empty tdir "-S 1M, $N keys"
