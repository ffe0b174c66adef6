#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# check.sh: -c and -C: sorted input passes quietly; the first disorder is reported with its line.
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"

# Sorted input: exit 0, nothing on stdout or stderr.
"$GSGEN" -n 200000 -t u32 -s 101 >in.txt
oracle in.txt >sorted.txt
gs_ok out.txt -c --type=u32 sorted.txt
empty out.txt "stdout of -c"
gs_ok out.txt --check --type=u32 sorted.txt
gs_ok out.txt -C --type=u32 sorted.txt
gs_ok out.txt --check=quiet --type=u32 sorted.txt
gs_ok out.txt -c --type=u32 <sorted.txt
empty out.txt "stdout of -c"

# Trivially sorted: empty, one key, equal keys (without -u equal neighbours are fine).
: >empty.txt
gs_ok out.txt -c empty.txt
printf '5' >one.txt
gs_ok out.txt -c one.txt
printf '1\n1\n+1\n01\n2\n2\n' >equal.txt
gs_ok out.txt -c equal.txt

# A hand-made file: blank lines, several keys a line, a non-canonical value.
printf '1 2\n3\n\n3 4\t5\r\n+006 7 +002 9\n1\n' >hand.txt
[ "$(first_disorder asc hand.txt)" = "5 2" ] || fail "awk oracle: $(first_disorder asc hand.txt)"
expect_error 1 '^hand\.txt:5: disorder: 2$' -- "$GPUSORT" -c hand.txt
expect_error 1 '^-:5: disorder: 2$' -- "$GPUSORT" -c - <hand.txt
expect_error 1 '^-:5: disorder: 2$' -- "$GPUSORT" -c <hand.txt

# -C: the same status, and nothing at all on stderr or stdout.
run_cmd "$GPUSORT" -C hand.txt
[ "$STATUS" -eq 1 ] || fail "-C on unsorted input exited $STATUS (1 expected)"
empty "$RUN_OUT" "stdout of -C"
empty "$RUN_ERR" "stderr of -C"
run_cmd "$GPUSORT" --check=quiet hand.txt
[ "$STATUS" -eq 1 ] || fail "--check=quiet on unsorted input exited $STATUS (1 expected)"
empty "$RUN_OUT" "stdout of --check=quiet"
empty "$RUN_ERR" "stderr of --check=quiet"

# A big sorted file with one key made smaller deep inside.
awk 'NR == 150001 { $0 = "0" } { print }' sorted.txt >bad.txt
read -r line value < <(first_disorder asc bad.txt)
[ -n "$line" ] || fail "awk found no disorder"
expect_error 1 "^bad\\.txt:$line: disorder: $value\$" -- "$GPUSORT" -c --type=u32 bad.txt

# A disorder that only appears at the very last key, after no newline.
printf '1\n2\n3\n4\n0' >last.txt
expect_error 1 '^last\.txt:5: disorder: 0$' -- "$GPUSORT" -c last.txt

# The disorder value is canonical: -0 is 0, leading zeros go.
printf '1\n-0\n' >negzero.txt
expect_error 1 '^negzero\.txt:2: disorder: 0$' -- "$GPUSORT" -c negzero.txt
printf -- '-3\n-0004\n' >lz.txt
expect_error 1 '^lz\.txt:2: disorder: -4$' -- "$GPUSORT" -c lz.txt

# Large values of each type.
printf '18446744073709551615\n18446744073709551614\n' >u64.txt
expect_error 1 '^u64\.txt:2: disorder: 18446744073709551614$' -- "$GPUSORT" -c --type=u64 u64.txt
printf -- '-1\n-9223372036854775808\n' >i64.txt
expect_error 1 '^i64\.txt:2: disorder: -9223372036854775808$' -- "$GPUSORT" -c i64.txt
# ... and the type matters: as u32, 4294967295 then 0 is out of order.
printf '4294967295\n0\n' >u32.txt
expect_error 1 '^u32\.txt:2: disorder: 0$' -- "$GPUSORT" -c --type=u32 u32.txt
