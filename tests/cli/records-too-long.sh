#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# records-too-long.sh: a line longer than a spilled block takes (store/codec.h's
# CODEC_BLOCK_MAX, about 2 GiB), in an input larger than a chunk: one clear error
# (exit 2), nothing written, no temporary left; with -S large enough, sorted in
# memory. Its input is 2 GiB and its runs take 5 GiB of memory: it runs where
# GS_TEST_HUGE=1 asks for it, and skips otherwise (CI's hosts are not asked).
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"

[ "${GS_TEST_HUGE:-}" = 1 ] || skip "GS_TEST_HUGE=1 runs it (a 2 GiB line, 5 GiB of memory)"

# b,1 / a,xxx... (2^31 + 2^20 bytes) / c,2
{ printf 'b,1\na,'; head -c $(((1 << 31) + (1 << 20))) /dev/zero | tr '\0' x; printf '\nc,2\n'; } >long.csv
mkdir tdir
echo kept >out
expect_error 2 "^a line of $(((1 << 31) + (1 << 20) + 3)) bytes is too long to be spilled to a temporary file \([0-9]+ bytes at most\): a -S large enough for the whole input sorts it in memory$" -- \
    "$GPUSORT" --device=cpu -S 3G -T tdir -t, -k1,1 -o out long.csv
echo kept | same - out "-o after the error"
[ -z "$(ls -A tdir)" ] || fail "temporary files left in -T: $(ls -A tdir)"
gs_ok got --device=cpu -S 8G -t, -k1,1 long.csv
LC_ALL=C sort -t, -k1,1 long.csv | cmp -s - got || fail "the line sorted in memory differs from sort's"
