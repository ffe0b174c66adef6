#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# unique.sh: -u, and -r -u: one key per run of equal keys.
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"

# Hand-made: -0, 0 and +000 are one key.
printf '5\n3\n5\n-0\n0\n+000\n3\n-2\n' >small.txt
gs_ok out.txt -u small.txt
printf -- '-2\n0\n3\n5\n' >exp.txt
same exp.txt out.txt "-u of a hand-made file"
gs_ok out.txt -r -u small.txt
printf -- '5\n3\n0\n-2\n' >exp.txt
same exp.txt out.txt "-r -u of a hand-made file"

for t in i32 u32 i64 u64; do
    for d in few equal random; do
        case $t in
            u*) range=(--max=3000) ;;
            i*) range=(--min=-1500 --max=1500) ;;
        esac
        "$GSGEN" -n 60000 -t "$t" -d "$d" -s 31 "${range[@]}" >in.txt
        gs_ok out.txt -u --type="$t" in.txt
        oracle -u -- in.txt >exp.txt
        same exp.txt out.txt "-u --type=$t ($d)"
        gs_ok out.txt --unique --reverse --type="$t" in.txt
        oracle -r -u -- in.txt >exp.txt
        same exp.txt out.txt "-r -u --type=$t ($d)"
    done
done

# Full-range keys: almost no duplicates, and -u must keep them all.
"$GSGEN" -n 100000 -t u32 -s 32 >in.txt
gs_ok out.txt -u --type=u32 in.txt
oracle -u -- in.txt >exp.txt
same exp.txt out.txt "-u of full-range u32"
