#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# help-version.sh: --help names every long option and fits 80 columns; --version in
# GNU's form (version, copyright, license, what is built in) without probing the
# GPUs; both exit 0. The version is configure.ac's (AC_INIT's, which make check passes
# in as PACKAGE_VERSION) wherever a user reads it: --version, both manual pages'
# .TH lines, and NEWS's newest release.
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"
not_under_tsan "no sort runs"

run_cmd "$GPUSORT" --help
[ "$STATUS" -eq 0 ] || fail "--help exited $STATUS"
empty "$RUN_ERR" "stderr of --help"
grep -q '^Usage: .*gpusort' "$RUN_OUT" || grep -qi 'usage' "$RUN_OUT" || fail "--help shows no usage line"
for opt in binary input-format output-format type endian output reverse unique check \
           merge algorithm device gpu-memory buffer-size temporary-directory \
           compress-temp parallel progress stats help version; do
    grep -q -- "--$opt" "$RUN_OUT" || fail "--help does not mention --$opt"
done
for opt in -B -o -r -u -c -C -m -a -S -T; do
    grep -q -- "$opt" "$RUN_OUT" || fail "--help does not mention $opt"
done

long=$(awk 'length > 80' "$RUN_OUT")
[ -z "$long" ] || fail "--help has lines over 80 columns: $long"

run_cmd "$GPUSORT" --version
[ "$STATUS" -eq 0 ] || fail "--version exited $STATUS"
empty "$RUN_ERR" "stderr of --version"
head -n 1 "$RUN_OUT" | grep -Eq '^gpusort [0-9]+\.[0-9]+\.[0-9]+$' \
    || fail "--version's first line is not 'gpusort VERSION': $(head -n 1 "$RUN_OUT")"
version=${PACKAGE_VERSION:?PACKAGE_VERSION must be the version in configure.ac (make check sets it)}
first=$(head -n 1 "$RUN_OUT")
[ "$first" = "gpusort $version" ] ||
    fail "--version says '$first' where configure.ac says $version"
for page in gpusort.1 gpusort-mpi.1; do
    th=$(grep -m 1 '^\.TH ' "$srcdir/../../man/$page") || fail "man/$page has no .TH line"
    case $th in
        *" \"gpusort $version\" "*) ;;
        *) fail "man/$page's .TH does not say gpusort $version: $th" ;;
    esac
done
news=$(grep -m 1 '^\* Noteworthy changes in release ' "$srcdir/../../NEWS") ||
    fail "NEWS names no release"
case $news in
    "* Noteworthy changes in release $version "*) ;;
    *) fail "NEWS's newest release is not $version: $news" ;;
esac
grep -q '^Copyright (C) [0-9]\{4\} ' "$RUN_OUT" || fail "--version has no copyright line"
grep -q '^License MIT' "$RUN_OUT" || fail "--version names no license"
grep -q '^Built with:' "$RUN_OUT" || fail "--version does not say what is built in"
long=$(awk 'length > 80' "$RUN_OUT")
[ -z "$long" ] || fail "--version has lines over 80 columns: $long"
# No GPU is probed: the CUDA driver library is never looked for (the dynamic
# loader's own trace of what it loads).
LD_DEBUG=libs "$GPUSORT" --version 2>ld.txt >/dev/null || fail "--version under LD_DEBUG failed"
! grep -q 'libcuda' ld.txt || fail "--version looked for the CUDA driver: $(grep -m1 libcuda ld.txt)"

# --help wins over the operands and reads no input.
run_cmd "$GPUSORT" --help no-such-file </dev/null
[ "$STATUS" -eq 0 ] || fail "--help with an operand exited $STATUS"
