#!/usr/bin/env bash
# gpu-setup.sh: the GPU is set up in the background while reading goes on (with
# --device=auto the devices are counted there too), and the sort is right whatever
# reading meets meanwhile: text against sort -n with --device=auto and --device=0,
# binary keys in several chunks with a --gpu-memory small enough that reading waits
# for the set-up at the guess it allows, an input error while the set-up runs, and a
# small input that never starts the GPU. Skipped where gpusort sees no GPU.
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"
# shellcheck source=tests/cli/extlib.sh
. "$srcdir/extlib.sh"
need_gscheck
has_gpu || skip "nvidia-smi lists no GPU"
"$GPUSORT" --version | grep -q '^GPU 0:' || skip "this gpusort sees no GPU"

# stats_ok WHAT CMD...: CMD (a gpusort with --stats) exits 0; its stdout is in RUN_OUT.
stats_ok() {
    local what=$1
    shift
    run_cmd "$@"
    [ "$STATUS" -eq 0 ] || fail "$what: exited $STATUS; stderr: $(head -c 2000 "$RUN_ERR")"
}

# 3M keys of text: past the 1 Mi keys at which the GPU is set up.
"$GSGEN" -t u32 -n 3000000 -s 61 >in.txt
LC_ALL=C sort -n in.txt >exp.txt
for dev in auto 0; do
    stats_ok "--device=$dev" "$GPUSORT" --device=$dev -t u32 --stats in.txt
    same exp.txt "$RUN_OUT" "--device=$dev"
    grep -Eq 'stats: gpu 0 \(.*\): [1-9][0-9]* chunks' "$RUN_ERR" \
        || fail "--device=$dev: the GPU sorted no chunk: $(cat "$RUN_ERR")"
    grep -q 'stats: gpus set up in .* s of it waited for' "$RUN_ERR" \
        || fail "--device=$dev: no set-up line: $(cat "$RUN_ERR")"
done

# 20M u64 keys, --gpu-memory=80M: reading waits for the set-up at three quarters of
# what 80M holds, then fills chunks of what the device really took; several runs.
"$GSGEN" -b -t u64 -n 20000000 -s 62 >in.bin
want=$("$GSGEN" -b -t u64 -n 20000000 -s 62 --sum)
run_cmd "$GPUSORT" --device=auto -b -t u64 --gpu-memory=80M --stats -o out.bin in.bin
[ "$STATUS" -eq 0 ] || fail "--gpu-memory=80M: exited $STATUS: $(cat "$RUN_ERR")"
grep -Eq 'stats: gpu 0 \(.*\): ([2-9]|[1-9][0-9]+) chunks' "$RUN_ERR" \
    || fail "--gpu-memory=80M: fewer than two chunks on the GPU: $(cat "$RUN_ERR")"
sums_equal "$want" "$("$GSCHECK" -t u64 out.bin)" "--gpu-memory=80M"
rm -f in.bin out.bin

# A bad line after 2.5M keys: the set-up is under way when reading stops; one
# message, exit 2, the -o target untouched.
target_init
{ head -n 2500000 in.txt; echo 12x; } >bad.txt
for dev in auto 0; do
    expect_error 2 'bad.txt:2500001: ' -- "$GPUSORT" --device=$dev -o "$TARGET" bad.txt
    target_check
done

# A small input never starts the GPU.
head -n 1000 in.txt >small.txt
stats_ok "small input" "$GPUSORT" --device=auto --stats small.txt
LC_ALL=C sort -n small.txt >small.exp
same small.exp "$RUN_OUT" "small input"
grep -q 'gpus unused: every chunk was small enough' "$RUN_ERR" \
    || fail "a small input used the GPU: $(cat "$RUN_ERR")"
