#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# output-file.sh: -o FILE: a new file, an existing one, one of the inputs, and /dev/null.
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"
not_under_tsan "its subject is the file -o makes; its threads are write-ahead.sh's"

"$GSGEN" -n 20000 -s 91 >in.txt
oracle in.txt >exp.txt

# A new file; nothing on stdout.
gs_ok stdout.txt -o new.txt in.txt
empty stdout.txt "stdout with -o"
same exp.txt new.txt "-o new.txt"
gs_ok stdout.txt --output=new2.txt in.txt
empty stdout.txt "stdout with --output"
same exp.txt new2.txt "--output=new2.txt"

# In another directory, given by a relative path; no stray files there.
mkdir sub
gs_ok stdout.txt in.txt -o sub/sorted.txt
same exp.txt sub/sorted.txt "-o sub/sorted.txt"
[ "$(ls -A sub)" = sorted.txt ] || fail "stray files next to the -o target: $(ls -A sub)"

# An existing, longer file is replaced, not partly overwritten.
"$GSGEN" -n 100000 -s 92 >long.txt
printf '3\n1\n2\n' >short.txt
gs_ok stdout.txt -o long.txt short.txt
printf '1\n2\n3\n' >exp-short.txt
same exp-short.txt long.txt "-o over a longer file"

# -o naming one of its inputs: sorted in place.
cp in.txt inplace.txt
gs_ok stdout.txt -o inplace.txt inplace.txt
same exp.txt inplace.txt "-o naming its only input"

"$GSGEN" -n 7000 -s 93 >a.txt
"$GSGEN" -n 9000 -s 94 >b.txt
oracle a.txt b.txt >exp-ab.txt
gs_ok stdout.txt a.txt b.txt -o b.txt
same exp-ab.txt b.txt "-o naming the second input"

# Binary, in place.
"$GSGEN" -b -n 5000 -t u32 -s 95 >in.bin
decode u32 little in.bin | LC_ALL=C sort -n >exp-bin.txt
gs_ok stdout.txt -B --type=u32 -o in.bin in.bin
decode u32 little in.bin >got.txt
same exp-bin.txt got.txt "-B -o naming its input"

# /dev/null is written directly (and stays a device).
gs_ok stdout.txt -o /dev/null in.txt
empty stdout.txt "stdout with -o /dev/null"
[ -c /dev/null ] || fail "/dev/null is no longer a character device"
