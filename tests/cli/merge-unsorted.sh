#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# merge-unsorted.sh: -m with an input out of order: exit 2, and an -o target is untouched.
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"
not_under_tsan "its subject is a message; -m's threads are merge.sh's"

"$GSGEN" -n 5000 -d sorted -s 141 >a.txt
"$GSGEN" -n 5000 -s 142 >b.txt     # random: out of order

target_init
expect_error 2 'b\.txt' -- "$GPUSORT" -m -o "$TARGET" a.txt b.txt
target_check

# To stdout: exit 2 and one message (what was merged before may have been written).
run_cmd "$GPUSORT" -m a.txt b.txt
[ "$STATUS" -eq 2 ] || fail "-m with an unsorted input exited $STATUS (2 expected)"
check_msg "$RUN_ERR" 'b\.txt' no

# Hand-made: the disorder is on line 3 of the second file.
printf '1\n5\n9\n' >x.txt
printf '2\n4\n3\n8\n' >y.txt
expect_error 2 'y\.txt' -- "$GPUSORT" -m -o "$TARGET" x.txt y.txt
target_check

# -m -r with ascending input is out of order.
expect_error 2 'a\.txt' -- "$GPUSORT" -m -r -o "$TARGET" a.txt
target_check

# -m -u: equal neighbours within one input are fine (they are merged into one).
printf '1\n1\n2\n' >dup.txt
gs_ok out.txt -m -u dup.txt x.txt
printf '1\n2\n5\n9\n' >exp.txt
same exp.txt out.txt "-m -u with duplicates in an input"

# A bad token in a merge input.
printf '1\n2x\n' >tok.txt
expect_error 2 "^tok\\.txt:2: not an integer: '2x'\$" -- "$GPUSORT" -m -o "$TARGET" x.txt tok.txt
target_check

# A disorder late in a big input, after much has been merged: the target is still
# untouched and no temporary is left next to it.
"$GSGEN" -n 300000 -d sorted -s 143 --min=10 --max=1000000000 >big.txt
{ cat big.txt; echo 5; } >late.txt
expect_error 2 'late\.txt' -- "$GPUSORT" -m -o "$TARGET" a.txt late.txt
target_check
