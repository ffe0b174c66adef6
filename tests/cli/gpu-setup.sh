#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# gpu-setup.sh: the GPU is set up in the background while reading goes on (with
# --device=auto the devices are counted there too), and the sort is right whatever
# reading meets meanwhile: text against sort -n, binary keys in several chunks with
# a --gpu-memory small enough that reading waits for the set-up at the guess it
# allows, an input error while the set-up runs, and a small input that never starts
# the GPU. With --device=auto an input of known size too small for the GPU to pay
# goes to the CPU, so auto is driven through pipes here. Skipped where gpusort sees
# no GPU.
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"
# shellcheck source=tests/cli/extlib.sh
. "$srcdir/extlib.sh"
need_gscheck
has_gpu || skip "nvidia-smi lists no GPU"
gpusort_sees_gpu || skip "this gpusort sees no GPU"

# stats_ok WHAT CMD...: CMD (a gpusort with --stats) exits 0; its stdout is in RUN_OUT.
stats_ok() {
    local what=$1
    shift
    run_cmd "$@"
    [ "$STATUS" -eq 0 ] || fail "$what: exited $STATUS; stderr: $(head -c 2000 "$RUN_ERR")"
}
# gpu_sorted WHAT: the --stats in RUN_ERR show chunks sorted on GPU 0 and the set-up.
gpu_sorted() {
    grep -Eq 'stats: gpu 0 \(.*\): [1-9][0-9]* chunks' "$RUN_ERR" \
        || fail "$1: the GPU sorted no chunk: $(cat "$RUN_ERR")"
    grep -q 'stats: gpus set up in .* s of it waited for' "$RUN_ERR" \
        || fail "$1: no set-up line: $(cat "$RUN_ERR")"
}

# 3M keys of text: past the 1 Mi keys at which the GPU is set up.
"$GSGEN" -t u32 -n 3000000 -s 61 >in.txt
LC_ALL=C sort -n in.txt >exp.txt
stats_ok "--device=0" "$GPUSORT" --device=0 --type=u32 --stats in.txt
same exp.txt "$RUN_OUT" "--device=0"
gpu_sorted "--device=0"
stats_ok "--device=auto, a pipe" sh -c "cat in.txt | \"\$0\" --device=auto --type=u32 --stats" "$GPUSORT"
same exp.txt "$RUN_OUT" "--device=auto, a pipe"
gpu_sorted "--device=auto, a pipe"
# The same keys as a file: few enough for the CPU to be the faster.
stats_ok "--device=auto, a file" "$GPUSORT" --device=auto --type=u32 --stats in.txt
same exp.txt "$RUN_OUT" "--device=auto, a file"
grep -q 'stats: device cpu .*--device=auto: the CPU is faster' "$RUN_ERR" \
    || fail "--device=auto, a file of 3M keys: not sorted on the CPU: $(cat "$RUN_ERR")"

# 20M u64 keys, --gpu-memory=80M: reading waits for the set-up at three quarters of
# what 80M holds, then fills chunks of what the device really took; several runs.
"$GSGEN" -b -t u64 -n 20000000 -s 62 >in.bin
want=$("$GSGEN" -b -t u64 -n 20000000 -s 62 --sum)
for dev in auto 0; do
    run_cmd sh -c "cat in.bin | \"\$0\" --device=$dev -B --type=u64 --gpu-memory=80M --stats -o out.bin" "$GPUSORT"
    [ "$STATUS" -eq 0 ] || fail "--device=$dev --gpu-memory=80M: exited $STATUS: $(cat "$RUN_ERR")"
    grep -Eq 'stats: gpu 0 \(.*\): ([2-9]|[1-9][0-9]+) chunks' "$RUN_ERR" \
        || fail "--device=$dev --gpu-memory=80M: fewer than two chunks on the GPU: $(cat "$RUN_ERR")"
    sums_equal "$want" "$("$GSCHECK" -t u64 out.bin)" "--device=$dev --gpu-memory=80M"
done
rm -f in.bin out.bin

# A bad line after 2.5M keys: the set-up is under way when reading stops; one
# message, exit 2, the -o target untouched.
target_init
{ head -n 2500000 in.txt; echo 12x; } >bad.txt
expect_error 2 'bad.txt:2500001: ' -- "$GPUSORT" --device=0 -o "$TARGET" bad.txt
target_check
expect_error 2 ':2500001: ' -- sh -c "cat bad.txt | \"\$0\" --device=auto -o \"\$1\"" \
    "$GPUSORT" "$TARGET"
target_check

# A small input never starts the GPU.
head -n 1000 in.txt >small.txt
LC_ALL=C sort -n small.txt >small.exp
stats_ok "small input" sh -c "cat small.txt | \"\$0\" --device=auto --stats" "$GPUSORT"
same small.exp "$RUN_OUT" "small input"
grep -q 'stats: device cpu (.*GPUs\{0,1\} found, unused: every chunk was small enough' "$RUN_ERR" \
    || fail "a small input used the GPU: $(cat "$RUN_ERR")"
