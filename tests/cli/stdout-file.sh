#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# stdout-file.sh: standard output that is a regular file ("> FILE") takes much text
# placed, as -o does (io/placed.c: formatted by the threads straight into the file's
# pages), from the position the shell left it at, at a page's start or inside one;
# appended to (">>") or shared with standard error ("> FILE 2>&1"), the text goes
# out in order. Each way the file holds what sort -n would have written there; --stats
# says which way was taken where the file system has fallocate.
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"

# 300000 keys on two threads: 64 Ki keys a thread and more, in memory and merged
# from runs spilled under -S 1M.
"$GSGEN" -n 300000 -s 231 >in.txt
oracle in.txt >exp.txt
mkdir tdir
can_fallocate=no
if command -v fallocate >/dev/null && fallocate -l 4096 probe.bin 2>/dev/null; then
    can_fallocate=yes
fi
bytes=$(wc -c <exp.txt)

# placed ERRFILE WHAT: --stats in ERRFILE says the output's bytes were placed.
placed() {
    [ "$can_fallocate" = yes ] || return 0
    grep -q "stats: $bytes bytes written mapped" "$1" ||
        fail "$2: not placed: $(cat "$1")"
}

# in_order ERRFILE WHAT: --stats in ERRFILE has no placed bytes.
in_order() {
    if grep -q "written mapped" "$1"; then
        fail "$2: placed, in order expected: $(cat "$1")"
    fi
}

for how in memory external; do
    args=(--stats --device=cpu --parallel=2)
    [ $how = memory ] || args+=(-S 1M -T tdir)

    # "> FILE": placed from its start.
    "$GPUSORT" "${args[@]}" in.txt >out.txt 2>err.txt || fail "$how > FILE: exited $?"
    same exp.txt out.txt "$how > FILE"
    placed err.txt "$how > FILE"

    # After a page written by the shell first: placed from there.
    { head -c 4096 /dev/zero; "$GPUSORT" "${args[@]}" in.txt 2>err.txt; } >out.txt ||
        fail "$how, a page before: exited $?"
    { head -c 4096 /dev/zero; cat exp.txt; } >want.txt
    same want.txt out.txt "$how > FILE after a page"
    placed err.txt "$how > FILE after a page"

    # A byte before (not at a page's start), and a line after: placed from there
    # too, the page's first byte left as the shell wrote it.
    { printf x; "$GPUSORT" "${args[@]}" -r in.txt 2>err.txt; printf 'after\n'; } >out.txt ||
        fail "$how, a byte before: exited $?"
    { printf x; tac exp.txt; printf 'after\n'; } >want.txt
    same want.txt out.txt "$how -r > FILE after a byte"
    placed err.txt "$how > FILE after a byte"

    # ">> FILE": appended, in order.
    printf 'header\n' >out.txt
    "$GPUSORT" "${args[@]}" in.txt >>out.txt 2>err.txt || fail "$how >> FILE: exited $?"
    { printf 'header\n'; cat exp.txt; } >want.txt
    same want.txt out.txt "$how >> FILE"
    in_order err.txt "$how >> FILE"

    # "> FILE 2>&1": in order, the --stats table after the keys.
    "$GPUSORT" "${args[@]}" in.txt >out.txt 2>&1 || fail "$how > FILE 2>&1: exited $?"
    head -n 300000 out.txt >keys.txt
    same exp.txt keys.txt "$how > FILE 2>&1"
    tail -n +300001 out.txt >err.txt
    grep -q '^gpusort: stats: ' err.txt || fail "$how > FILE 2>&1: no --stats after the keys"
    in_order err.txt "$how > FILE 2>&1"
    dir_empty_check=$(ls -A tdir)
    [ -z "$dir_empty_check" ] || fail "$how: files left in tdir: $dir_empty_check"
done
