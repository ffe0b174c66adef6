#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# check-modes.sh: -c with -r, -u and -r -u (with -u, equal neighbours are disorder).
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"

"$GSGEN" -n 50000 -s 111 --min=-20000 --max=20000 >in.txt

# -r: descending passes; ascending fails where awk says.
oracle -r -- in.txt >desc.txt
gs_ok out.txt -c -r desc.txt
empty out.txt "stdout of -c -r"
oracle in.txt >asc.txt
read -r line value < <(first_disorder desc asc.txt)
expect_error 1 "^asc\\.txt:$line: disorder: $value\$" -- "$GPUSORT" -c -r asc.txt
gs_ok out.txt -c asc.txt

# -u: strictly ascending passes; the first equal neighbour is disorder.
oracle -u -- in.txt >uniq.txt
gs_ok out.txt -c -u uniq.txt
read -r line value < <(first_disorder asc-strict asc.txt)
[ -n "$line" ] || fail "the input has no duplicates (pick another seed)"
expect_error 1 "^asc\\.txt:$line: disorder: $value\$" -- "$GPUSORT" -c -u asc.txt
run_cmd "$GPUSORT" -C -u asc.txt
[ "$STATUS" -eq 1 ] || fail "-C -u exited $STATUS (1 expected)"
empty "$RUN_ERR" "stderr of -C -u"

# -r -u: strictly descending passes; equal neighbours fail.
oracle -r -u -- in.txt >runiq.txt
gs_ok out.txt -c -r -u runiq.txt
read -r line value < <(first_disorder desc-strict desc.txt)
expect_error 1 "^desc\\.txt:$line: disorder: $value\$" -- "$GPUSORT" -c -r -u desc.txt
expect_error 1 "^desc\\.txt:$line: disorder: $value\$" -- "$GPUSORT" --check --reverse --unique desc.txt

# Hand-made: 0 and -0 are equal keys.
printf '1\n0\n-0\n-5\n' >z.txt
gs_ok out.txt -c -r z.txt
expect_error 1 '^z\.txt:3: disorder: 0$' -- "$GPUSORT" -c -r -u z.txt
printf '3 3' >dup.txt
gs_ok out.txt -c dup.txt
expect_error 1 '^dup\.txt:1: disorder: 3$' -- "$GPUSORT" -c -u dup.txt
