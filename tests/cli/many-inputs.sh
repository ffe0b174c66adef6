#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# many-inputs.sh: many inputs, and many spilled runs, under a low open-file limit (ulimit -n 32).
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"

files=()
for i in $(seq 1 100); do
    "$GSGEN" -n 200 -s "$((1000 + i))" --min=-100000 --max=100000 >"in$i.txt"
    files+=("in$i.txt")
done
oracle "${files[@]}" >exp.txt

(ulimit -n 32 && gs_ok out.txt "${files[@]}")
same exp.txt out.txt "100 inputs under ulimit -n 32"
(ulimit -n 32 && gs_ok out.txt -u -o sorted.txt "${files[@]}")
oracle -u -- "${files[@]}" >exp-u.txt
same exp-u.txt sorted.txt "-u -o of 100 inputs under ulimit -n 32"

# Many spilled runs under the same limit: the merge goes in passes.
"$GSGEN" -n 400000 -s 171 >big.txt
oracle big.txt >exp-big.txt
(ulimit -n 32 && gs_ok out.txt -S 1 big.txt)
same exp-big.txt out.txt "-S 1 under ulimit -n 32"
