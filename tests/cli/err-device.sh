#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# err-device.sh: --device naming GPUs on a machine without one is an error (skipped if a GPU exists).
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"
not_under_tsan "its subject is the command line"

has_gpu && skip "nvidia-smi lists a GPU"
target_init
printf '2\n1\n' >in.txt

for d in 0 1 0,1 all; do
    expect_error 2 '.' -- "$GPUSORT" --device="$d" -o "$TARGET" in.txt
    target_check
done

# auto and cpu still work.
gs_ok out.txt --device=auto in.txt
printf '1\n2\n' >exp.txt
same exp.txt out.txt "--device=auto without a GPU"
