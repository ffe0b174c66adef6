#!/usr/bin/env bash
# help-version.sh: --help names every long option; --version; both exit 0.
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"

run_cmd "$GPUSORT" --help
[ "$STATUS" -eq 0 ] || fail "--help exited $STATUS"
empty "$RUN_ERR" "stderr of --help"
grep -q '^Usage: .*gpusort' "$RUN_OUT" || grep -qi 'usage' "$RUN_OUT" || fail "--help shows no usage line"
for opt in binary input-format output-format type endian output reverse unique check \
           merge algorithm device gpu-memory buffer-size temporary-directory \
           compress-temp parallel progress stats help version; do
    grep -q -- "--$opt" "$RUN_OUT" || fail "--help does not mention --$opt"
done
for opt in -b -t -o -r -u -c -C -m -a -S -T; do
    grep -q -- "$opt" "$RUN_OUT" || fail "--help does not mention $opt"
done

run_cmd "$GPUSORT" --version
[ "$STATUS" -eq 0 ] || fail "--version exited $STATUS"
empty "$RUN_ERR" "stderr of --version"
head -n 1 "$RUN_OUT" | grep -Eq 'gpusort.*[0-9]+\.[0-9]+' \
    || fail "--version's first line names no program and version: $(head -n 1 "$RUN_OUT")"

# --help wins over the operands and reads no input.
run_cmd "$GPUSORT" --help no-such-file </dev/null
[ "$STATUS" -eq 0 ] || fail "--help with an operand exited $STATUS"
