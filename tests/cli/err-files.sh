#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# err-files.sh: a missing input, a directory as input, an -o in a missing directory: exit 2.
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"
not_under_tsan "its subject is a message"

target_init
printf '3\n1\n' >a.txt
mkdir adir

expect_error 2 'missing\.txt' -- "$GPUSORT" missing.txt
expect_error 2 'missing\.txt' -- "$GPUSORT" -o "$TARGET" a.txt missing.txt a.txt
target_check
expect_error 2 'missing\.txt' -- "$GPUSORT" -m -o "$TARGET" a.txt missing.txt
target_check
expect_error 2 'missing\.txt' -- "$GPUSORT" -B --type=u32 -o "$TARGET" missing.txt
target_check

expect_error 2 'adir' -- "$GPUSORT" adir
expect_error 2 'adir' -- "$GPUSORT" -o "$TARGET" a.txt adir
target_check
expect_error 2 'adir' -- "$GPUSORT" -B -o "$TARGET" adir
target_check

# -o in a directory that does not exist.
expect_error 2 'no-such-dir/out\.txt' -- "$GPUSORT" -o no-such-dir/out.txt a.txt
[ ! -e no-such-dir ] || fail "-o created a directory"

# -o naming a directory.
expect_error 2 'adir' -- "$GPUSORT" -o adir a.txt
[ -z "$(ls -A adir)" ] || fail "stray files in adir: $(ls -A adir)"
