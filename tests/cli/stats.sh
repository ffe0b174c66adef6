#!/usr/bin/env bash
# stats.sh: --stats: a stage table on stderr (stdout still right); --progress.
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

# --progress: whatever it shows goes to stderr; the result is unchanged.
run_cmd "$GPUSORT" --progress in.txt
[ "$STATUS" -eq 0 ] || fail "--progress exited $STATUS; stderr: $(cat "$RUN_ERR")"
same exp.txt "$RUN_OUT" "stdout with --progress"
