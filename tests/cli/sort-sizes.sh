#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# sort-sizes.sh: empty input, one key, and sizes around powers of two, against sort -n.
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"
leaks_checked_elsewhere "the in-memory sort's paths are sort-large.sh's"

# No keys: an empty file, empty stdin, white space only.
: >empty.txt
gs_ok out.txt empty.txt
empty out.txt "output of an empty file"
gs_ok out.txt </dev/null
empty out.txt "output of empty stdin"
printf ' \n\n\t\r\n  ' >blank.txt
gs_ok out.txt blank.txt
empty out.txt "output of white space only"
gs_ok out.txt -B --type=u32 empty.txt
empty out.txt "binary output of an empty file"

# One key.
printf '42' >one.txt
gs_ok out.txt one.txt
printf '42\n' >exp.txt
same exp.txt out.txt "one key"

for n in 2 3 255 256 257 1000 4095 4096 4097 65535 65536 65537 200000; do
    "$GSGEN" -n "$n" -s "$n" >in.txt
    gs_ok out.txt in.txt
    oracle in.txt >exp.txt
    same exp.txt out.txt "$n keys"
done

# 200000 keys through stdin.
gs_ok out.txt <in.txt
same exp.txt out.txt "200000 keys from stdin"
