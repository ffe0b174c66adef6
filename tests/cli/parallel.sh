#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# parallel.sh: --parallel=N gives identical output for any N; --device=cpu and -a are accepted.
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"

"$GSGEN" -n 200000 -s 151 >in.txt
oracle in.txt >exp.txt

gs_ok out1.txt --parallel=1 in.txt
same exp.txt out1.txt "--parallel=1"
gs_ok out3.txt --parallel=3 in.txt
same out1.txt out3.txt "--parallel=3 vs --parallel=1"
gs_ok out3.txt --parallel 3 -r -u in.txt
oracle -r -u -- in.txt >exp-ru.txt
same exp-ru.txt out3.txt "--parallel 3 -r -u"
gs_ok out1.txt --parallel=1 -r -u in.txt
same exp-ru.txt out1.txt "--parallel=1 -r -u"
gs_ok out.txt --parallel=64 in.txt
same exp.txt out.txt "--parallel=64"

"$GSGEN" -b -n 100000 -t i32 -s 152 >in.bin
gs_ok out1.bin --parallel=1 -B --type=i32 in.bin
gs_ok out3.bin --parallel=3 -B --type=i32 in.bin
same out1.bin out3.bin "binary, --parallel=3 vs --parallel=1"

# Devices and algorithms.
gs_ok out.txt --device=cpu in.txt
same exp.txt out.txt "--device=cpu"
gs_ok out.txt --device=auto in.txt      # falls back to the CPU silently
same exp.txt out.txt "--device=auto"
gs_ok out.txt --device=cpu -a bitonic in.txt
same exp.txt out.txt "--device=cpu -a bitonic"
gs_ok out.txt --device=cpu --algorithm=radix in.txt
same exp.txt out.txt "--device=cpu --algorithm=radix"
gs_ok out.txt --device=cpu --gpu-memory=1G --parallel=2 in.txt
same exp.txt out.txt "--gpu-memory with --device=cpu"
