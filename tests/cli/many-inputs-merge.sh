#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# many-inputs-merge.sh: -m of many inputs under a low open-file limit (ulimit -n 32).
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"

sorted=()
for i in $(seq 1 100); do
    "$GSGEN" -n 200 -s "$((1000 + i))" --min=-100000 --max=100000 | LC_ALL=C sort -n >"s$i.txt"
    sorted+=("s$i.txt")
done
oracle "${sorted[@]}" >exp.txt
oracle -u -- "${sorted[@]}" >exp-u.txt

# Without the limit first, so a failure below is about the limit.
gs_ok out.txt -m "${sorted[@]}"
same exp.txt out.txt "-m of 100 inputs"

(ulimit -n 32 && gs_ok out.txt -m "${sorted[@]}")
same exp.txt out.txt "-m of 100 inputs under ulimit -n 32"
(ulimit -n 32 && gs_ok out.txt -m -u "${sorted[@]}")
same exp-u.txt out.txt "-m -u of 100 inputs under ulimit -n 32"
(ulimit -n 32 && gs_ok out.txt -m -o merged.txt "${sorted[@]}")
same exp.txt merged.txt "-m -o of 100 inputs under ulimit -n 32"
