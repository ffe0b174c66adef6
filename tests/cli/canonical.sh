#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# canonical.sh: leading zeros, + and -0 in the input; canonical decimal in the output.
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"
not_under_tsan "its subject is the text's form"

printf '+5\n007\n-0\n+0\n-007\n0000\n+000123\n-0000000000000000000000000000001\n' >s.txt
printf -- '-7\n-1\n0\n0\n0\n5\n7\n123\n' >exp.txt
for t in i32 i64; do
    gs_ok out.txt --type="$t" s.txt
    same exp.txt out.txt "--type=$t"
done
oracle s.txt >exp2.txt
same exp.txt exp2.txt "the oracle itself"

# -0 is 0 for the unsigned types too.
printf '+5 007 -0 -000 +0 0000 +000123 00000000000000000000004294967295\n' >u.txt
printf '0\n0\n0\n0\n5\n7\n123\n4294967295\n' >exp.txt
for t in u32 u64; do
    gs_ok out.txt --type="$t" u.txt
    same exp.txt out.txt "--type=$t"
done

# Leading zeros before the extreme values of each type.
printf '000000000000000000000018446744073709551615\n+0\n' >big.txt
gs_ok out.txt --type=u64 big.txt
printf '0\n18446744073709551615\n' >exp.txt
same exp.txt out.txt "--type=u64 with long leading zeros"
printf -- '-0000000000009223372036854775808\n+00009223372036854775807\n' >big.txt
gs_ok out.txt big.txt
printf -- '-9223372036854775808\n9223372036854775807\n' >exp.txt
same exp.txt out.txt "--type=i64 extremes with leading zeros"

# Generated keys dressed up with leading zeros and plus signs.
"$GSGEN" -n 20000 -s 61 --min=-1000000 --max=1000000 >in.txt
sed -E -e '1~3s/^(-?)/\100/' -e '2~3s/^([0-9])/+\1/' in.txt >dressed.txt
gs_ok out.txt dressed.txt
oracle in.txt >exp.txt
same exp.txt out.txt "keys with leading zeros and +"
