#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# records-spill-pieces.sh: records spilled and merged in pieces finer than the
# threads' shares, as --stats says: written in order (a pipe; -u) each piece on its
# turn while the other thread merges the next, laid out (a file) a thread's stretch
# of pieces merged as one range; the output is sort's byte for byte either way.
case ${GSREC:-} in '' | /*) ;; *) GSREC=$PWD/$GSREC ;; esac
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"
# shellcheck source=tests/cli/extlib.sh
. "$srcdir/extlib.sh"

need_gsrec
not_under_tsan "its merge's windows and turns run there in records-merge.sh and check_pieces"
# Not scaled: 2 threads at -S 64M (a thread's buffer of 8 MiB, chunks of 32 MiB,
# runs of 256 KiB blocks) cut 62 MB of lines into more pieces than 2 threads'
# MERGE_PIECES (4) each; a smaller input would not.
"$GSREC" -s 4321 -n 1000000 -w 40 >in
opts=(--parallel=2 -S 64M -t, -k2,2n)

# pieces FILE WHAT HOW: --stats in FILE says the runs were merged HOW ("in order",
# "laid out") in more than 8 pieces; prints the pieces a laid-out thread merges at
# a time.
pieces() {
    local row n
    row=$(grep "^gpusort: stats: records' runs merged in [0-9]* pieces of their keys by 2 threads, $3" "$1") ||
        fail "$2: no merge $3 in --stats: $(grep -E 'merged|spilled' "$1")"
    n=$(echo "$row" | sed 's/.* merged in \([0-9]*\) pieces.*/\1/')
    [ "$n" -gt 8 ] || fail "$2: $n pieces, not finer than 2 threads' shares: $row"
    echo "$row" | sed -n 's/.* a thread merges \([0-9]*\) at a time.*/\1/p'
}

LC_ALL=C sort -t, -k2,2n in >exp
"$GPUSORT" --stats "${opts[@]}" in 2>err | cat >got
rc=${PIPESTATUS[0]}
[ "$rc" = 0 ] || fail "to a pipe: exit $rc"
stats_only err
pieces err "to a pipe" "in order" >/dev/null
same exp got "to a pipe"

"$GPUSORT" --stats "${opts[@]}" in -o got 2>err || fail "to a file: exit $?"
at=$(pieces err "to a file" "laid out")
[ "$at" -gt 1 ] || fail "to a file: a thread merges $at piece at a time, not a stretch"
same exp got "to a file"

LC_ALL=C sort -u -t, -k2,2n in >exp
"$GPUSORT" --stats -u "${opts[@]}" in -o got 2>err || fail "-u: exit $?"
pieces err "-u" "in order" >/dev/null
same exp got "-u"
