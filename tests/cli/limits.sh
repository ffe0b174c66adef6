#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# limits.sh: the smallest and largest value of each type are accepted and sorted.
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"
not_under_tsan "its subject is the command line's sizes"

check_limits() {
    local t=$1 lo=$2 hi=$3
    printf '%s\n0\n%s\n1\n%s\n' "$hi" "$lo" "$hi" >in.txt
    printf '%s\n0\n1\n%s\n%s\n' "$lo" "$hi" "$hi" >exp.txt
    gs_ok out.txt --type="$t" in.txt
    same exp.txt out.txt "--type=$t limits"
    # And through binary, decoded by od.
    gs_ok out.bin --type="$t" --output-format=binary in.txt
    decode "$t" little out.bin >got.txt
    same exp.txt got.txt "--type=$t limits, binary output"
    gs_ok back.txt --type="$t" --input-format=binary out.bin
    same exp.txt back.txt "--type=$t limits, binary input"
}
check_limits i32 -2147483648 2147483647
check_limits u32 0 4294967295
check_limits i64 -9223372036854775808 9223372036854775807
check_limits u64 0 18446744073709551615
