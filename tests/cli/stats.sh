#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# stats.sh: --stats: a stage table on stderr (stdout still right), the lines of text
# read and written mapped; no row that looks broken (a rate of 0 for bytes moved, a
# row of zeros without a word on why); the device line true where no GPU can be
# used (a CUDA build on a machine without one, or a build without CUDA), past
# --device=auto's thresholds too; --progress.
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"

"$GSGEN" -n 100000 -s 181 >in.txt
oracle in.txt >exp.txt

run_cmd "$GPUSORT" --stats --device=cpu in.txt
[ "$STATUS" -eq 0 ] || fail "--stats exited $STATUS; stderr: $(cat "$RUN_ERR")"
same exp.txt "$RUN_OUT" "stdout with --stats"
for stage in read parse sort format write; do
    grep -qiw "$stage" "$RUN_ERR" || fail "--stats does not mention '$stage': $(cat "$RUN_ERR")"
done
grep -qi 'device' "$RUN_ERR" || fail "--stats does not name the device: $(cat "$RUN_ERR")"
grep -qi 'cpu' "$RUN_ERR" || fail "--stats with --device=cpu does not say cpu: $(cat "$RUN_ERR")"

# With -o the table still goes to stderr, and nothing to stdout.
run_cmd "$GPUSORT" --stats --device=cpu -o out.txt in.txt
[ "$STATUS" -eq 0 ] || fail "--stats -o exited $STATUS"
empty "$RUN_OUT" "stdout of --stats -o"
[ -s "$RUN_ERR" ] || fail "--stats -o printed nothing on stderr"
same exp.txt out.txt "-o with --stats"

# Text of 64 Ki keys a thread or more to -o goes out mapped (io/placed.c), and --stats
# counts those bytes: all of the output here (2 threads, 200000 keys), where the
# file system gives space by fallocate.
"$GSGEN" -n 200000 -s 182 >big.txt
oracle big.txt >bigexp.txt
run_cmd "$GPUSORT" --stats --device=cpu --parallel=2 -o bigout.txt big.txt
[ "$STATUS" -eq 0 ] || fail "--stats -o of 200000 keys exited $STATUS; stderr: $(cat "$RUN_ERR")"
same bigexp.txt bigout.txt "-o written mapped"
if command -v fallocate >/dev/null && fallocate -l 4096 probe.bin 2>/dev/null; then
    bytes=$(wc -c <bigout.txt)
    grep -q "stats: $bytes bytes written mapped, placed by 2 threads" "$RUN_ERR" ||
        fail "--stats does not count the $bytes bytes written mapped: $(cat "$RUN_ERR")"
fi

# A text file of 1 MiB or more is read mapped, and --stats counts its bytes; from a
# pipe it is read the plain way, and no such line is printed.
inbytes=$(wc -c <big.txt)
[ "$inbytes" -ge 1048576 ] || fail "big.txt is too small to be read mapped ($inbytes bytes)"
grep -q "stats: $inbytes bytes of text read mapped, scanned in place" "$RUN_ERR" ||
    fail "--stats does not count the $inbytes bytes read mapped: $(cat "$RUN_ERR")"
# shellcheck disable=SC2016  # $1 is the inner shell's: gpusort's path
run_cmd sh -c 'cat big.txt | "$1" --stats --device=cpu --parallel=2 -o pipeout.txt' sh "$GPUSORT"
[ "$STATUS" -eq 0 ] || fail "--stats from a pipe exited $STATUS; stderr: $(cat "$RUN_ERR")"
same bigexp.txt pipeout.txt "big.txt from a pipe"
if grep -q "read mapped" "$RUN_ERR"; then
    fail "--stats says a pipe was read mapped: $(cat "$RUN_ERR")"
fi

# table_sane WHAT: every stage row of the --stats in RUN_ERR is whole: bytes a
# number; a row that moved bytes shows seconds and a rate above 0 (over 1 ms or
# more), or says why it has none; a row of no bytes and no time says so ("-" and a
# word) instead of zeros.
table_sane() {
    awk -v what="$1" '
        BEGIN { split("read parse transfer sort spill merge format write", st, " ")
                for (k in st) stage[st[k]] = 1 }
        $1 == "gpusort:" && $2 == "stats:" && ($3 in stage) {
            rows++
            if ($4 !~ /^[0-9]+$/) { print what ": bytes not a number: " $0; bad = 1 }
            if ($4 > 0 && NF == 6 && !($6 > 0)) { print what ": no rate, no reason: " $0; bad = 1 }
            if ($4 == 0 && $5 == 0 + $5 && $5 == 0) { print what ": a row of zeros: " $0; bad = 1 }
            if ($6 == "0") { print what ": a rate of 0: " $0; bad = 1 }
            if ($6 ~ /^[0-9]+$/ && $5 < 0.001) { print what ": a rate over no time: " $0; bad = 1 }
        }
        END { if (rows != 8) { print what ": " rows + 0 " stage rows, not 8"; bad = 1 }
              exit bad }' "$RUN_ERR" >sane.txt || fail "$(cat sane.txt); stderr: $(cat "$RUN_ERR")"
}
# stage_bytes STAGE: the bytes on STAGE's row of the --stats in RUN_ERR.
stage_bytes() {
    awk -v s="$1" '$1 == "gpusort:" && $2 == "stats:" && $3 == s { print $4; exit }' "$RUN_ERR"
}

run_cmd "$GPUSORT" --stats big.txt
[ "$STATUS" -eq 0 ] || fail "--stats big.txt exited $STATUS; stderr: $(cat "$RUN_ERR")"
table_sane "text read mapped"

# Records: the sort row counts the keys sorted; the table is whole.
awk 'BEGIN { for (i = 0; i < 50000; i++) printf "r%d,%d\n", i, (i * 7919) % 50021 }' >rec.csv
run_cmd "$GPUSORT" --stats -t, -k2,2n rec.csv
[ "$STATUS" -eq 0 ] || fail "--stats on records exited $STATUS; stderr: $(cat "$RUN_ERR")"
table_sane "records"
[ "$(stage_bytes sort)" -gt 0 ] || fail "records: the sort row counts no bytes: $(cat "$RUN_ERR")"
[ "$(stage_bytes parse)" -gt 0 ] || fail "records: the parse row counts no bytes: $(cat "$RUN_ERR")"

# -m: the merge row counts the keys merged.
run_cmd "$GPUSORT" --stats -m exp.txt exp.txt
[ "$STATUS" -eq 0 ] || fail "--stats -m exited $STATUS; stderr: $(cat "$RUN_ERR")"
table_sane "-m"
[ "$(stage_bytes merge)" -gt 0 ] || fail "-m: the merge row counts no bytes: $(cat "$RUN_ERR")"

# The device line where no GPU can be used (this gpusort refuses --device=0): cpu,
# and never a GPU backend's name or a claim about GPUs found. Small and large inputs
# from a pipe (the GPU backend is made for an input of unknown size; 1.5M keys pass
# the 1 Mi keys at which it looks for GPUs), and records past --device=auto's
# threshold for one thread.
if "$GPUSORT" --device=0 in.txt >/dev/null 2>&1; then
    echo "a GPU is there: the no-GPU device lines are not checked" >&2
else
    "$GSGEN" -n 1500000 -s 183 >pipe.txt
    awk 'BEGIN { for (i = 0; i < 1100000; i++) printf "r%d,%d\n", i, (i * 7919) % 1000003 }' >recs.csv
    for cmd in "cat in.txt | \"\$0\" --stats" "cat pipe.txt | \"\$0\" --stats" \
        "\"\$0\" --stats --parallel=1 -t, -k2,2n recs.csv"; do
        run_cmd sh -c "$cmd >/dev/null" "$GPUSORT"
        [ "$STATUS" -eq 0 ] || fail "$cmd: exited $STATUS; stderr: $(cat "$RUN_ERR")"
        grep -q '^gpusort: stats: device cpu (' "$RUN_ERR" ||
            fail "$cmd: no GPU, and the device line does not say cpu: $(cat "$RUN_ERR")"
        gpu_words='cuda|[0-9]+ GPUs? found|every GPU|gpus unused|gpu [0-9]'
        if grep -Eq "$gpu_words" "$RUN_ERR"; then
            fail "$cmd: no GPU, and --stats speaks of one: $(grep -E "$gpu_words" "$RUN_ERR")"
        fi
        table_sane "$cmd"
    done
fi

# The plan line: the path each run took (pipeline/plan.c) and why, first; on the CPU
# a sort that a GPU could have streamed says why it did not.
# plan_is WHAT PATH [WORDS]: the --stats in RUN_ERR names PATH as its plan (and
# WORDS in its reason).
plan_is() {
    local line
    line=$(grep '^gpusort: stats: plan ' "$RUN_ERR" | head -n 1)
    case $line in
    "gpusort: stats: plan $2 ("*"${3:-}"*")") ;;
    *) fail "$1: the plan is not '$2${3:+ ... $3}': '$line'; stderr: $(cat "$RUN_ERR")" ;;
    esac
}
"$GSGEN" -n 1000 -t u32 -s 184 -b >keys.bin
sort -t, -k2,2n rec.csv >rec-sorted.csv
for c in "chunks|--device=cpu|--stats --device=cpu in.txt" \
    "chunks|--device=cpu|--stats --device=cpu -B --type=u32 keys.bin -o keys-out.bin" \
    "chunks|--device=cpu|--stats --device=cpu - <in.txt" \
    "records|chunks sorted|--stats -t, -k2,2n rec.csv" \
    "records|checked|--stats -c -t, -k2,2n rec-sorted.csv" \
    "records|merged|--stats -m -t, -k2,2n rec-sorted.csv rec-sorted.csv" \
    "merge||--stats -m exp.txt exp.txt" \
    "check||--stats -c exp.txt"; do
    path=${c%%|*} rest=${c#*|}
    words=${rest%%|*} args=${rest#*|}
    # shellcheck disable=SC2086  # the arguments, one a word (and a redirection)
    run_cmd sh -c "\"\$0\" $args >/dev/null" "$GPUSORT"
    [ "$STATUS" -eq 0 ] || fail "$args: exited $STATUS; stderr: $(cat "$RUN_ERR")"
    plan_is "$args" "$path" "$words"
done

# --progress: whatever it shows goes to stderr; the result is unchanged.
run_cmd "$GPUSORT" --progress in.txt
[ "$STATUS" -eq 0 ] || fail "--progress exited $STATUS; stderr: $(cat "$RUN_ERR")"
same exp.txt "$RUN_OUT" "stdout with --progress"
