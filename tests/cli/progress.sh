#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# progress.sh: --progress. On a terminal (a pseudo-terminal made by script(1), 60, 80
# and 40 columns wide) it is one line, redrawn in place, never reaching the last
# column, cleared at the end so that the prompt, or gpusort's message after a failure
# or a disorder, stands alone; a total known (a regular file) shows a percentage, a
# pipe none. On a log (stderr a file) it is whole lines, no carriage return, within
# 80 columns, the last one "done". The sorted output is the same as without it.
#
# gpusort is kept alive by a slow input (a pipe fed in parts, 0.3 s apart) or a slow
# reader of its output, so that the line is drawn several times; nothing here depends
# on how fast anything runs: at least one line is asserted, not how many.
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"

command -v script >/dev/null || skip "script (util-linux) is not installed"
script -qec "stty cols 60 rows 20" /dev/null >/dev/null 2>&1 ||
    skip "script cannot make a pseudo-terminal here"

"$GSGEN" -n 200000 -s 3101 >in.txt
oracle in.txt >exp.txt
split -n l/4 in.txt part.
"$GSGEN" -n 100000 -s 3102 -d sorted >sorted.txt
split -n l/4 sorted.txt spart.
# slow.sh FILE...: the FILEs on standard output, 0.3 s apart: a slow pipe.
printf '%s\n' 'for f in "$@"; do cat "$f"; sleep 0.3; done' >slow.sh
GS=$(printf '%q' "$GPUSORT")

# on_tty COLS CAPTURE COMMAND: the shell COMMAND run with a pseudo-terminal of COLS
# columns as its standard output and error; all it wrote there in CAPTURE. gpusort's
# status is left in the file st by COMMAND (script's own is the shell's).
on_tty() {
    script -qfec "stty cols $1 rows 20 && $3" /dev/null >"$2" ||
        fail "script for '$3' exited $?: $(od -c "$2" | head -n 20)"
}

# gs_status WHAT WANT: the status gpusort left in st is WANT.
gs_status() {
    local st
    st=$(cat st)
    [ "$st" = "$2" ] || fail "$1: gpusort exited $st ($2 expected)"
}

# segments CAPTURE: the capture split at every CR and LF, one segment a line.
segments() {
    tr '\r' '\n' <"$1"
}

# drawn_ok WHAT CAPTURE COLS: at least one line was drawn (a segment naming a
# phase), and every segment fits in COLS - 1 columns.
drawn_ok() {
    local what=$1 cap=$2 cols=$3 long
    segments "$cap" | grep -Eq 'reading|sorting|writing|merging|checking' ||
        fail "$what: no line drawn: $(od -c "$cap" | head)"
    long=$(segments "$cap" | awk -v w=$((cols - 1)) 'length($0) > w' | head -n 3)
    [ -z "$long" ] || fail "$what: a segment wider than $((cols - 1)) columns: '$long'"
}

# cleared_before WHAT CAPTURE TAIL: the capture ends with CR, spaces, CR (the line
# cleared: at least as many spaces as the last line drawn has characters), then
# exactly the bytes TAIL ("" on a success).
cleared_before() {
    local what=$1 cap=$2 tail=$3 n
    printf '%s' "$tail" >tail.bin
    n=$(wc -c <tail.bin)
    head -c "-$n" "$cap" >body.bin
    tail -c "$n" "$cap" | cmp -s - tail.bin ||
        fail "$what: the capture does not end with the expected bytes: $(tail -c 200 "$cap" | od -c)"
    [ "$(tail -c 1 body.bin | od -An -c | tr -d ' ')" = '\r' ] ||
        fail "$what: the line is not cleared at the end: $(tail -c 200 "$cap" | od -c)"
    # Records split at CR: the last holds the spaces, the one before the last line
    # drawn (its padding may end in spaces).
    awk 'BEGIN { RS = "\r" }
         { prev = last; last = $0 }
         END {
             sub(/ +$/, "", prev)
             if (last !~ /^ +$/ || length(last) < length(prev)) exit 1
         }' body.bin ||
        fail "$what: the last line is not overwritten with spaces: $(tail -c 200 "$cap" | od -c)"
}

# A pipe (no total), 60 columns, redrawn every 100 ms: no percentage, and no newline
# ever (one line, redrawn in place).
on_tty 60 cap60 "sh slow.sh part.* | GS_PROGRESS_INTERVAL_MS=100 $GS --progress -o out.txt; echo \$? >st"
gs_status "a pipe, 60 columns" 0
same exp.txt out.txt "sorted with --progress, a pipe"
drawn_ok "a pipe, 60 columns" cap60 60
cleared_before "a pipe, 60 columns" cap60 ""
! grep -q '%' cap60 || fail "a pipe (no total) shows a percentage: $(segments cap60 | grep '%' | head -n 1)"
[ "$(tr -cd '\n' <cap60 | wc -c)" -eq 0 ] || fail "a pipe, 60 columns: a newline on the terminal"

# A regular file (a total), 80 columns, the default redraw: a percentage. Its output
# goes to a pipe read only after 1.2 s, so gpusort waits there, writing.
on_tty 80 cap80 "{ $GS --progress in.txt; echo \$? >st; } | { sleep 1.2; cat >out.txt; }"
gs_status "a regular file, 80 columns" 0
same exp.txt out.txt "sorted with --progress, a regular file"
drawn_ok "a regular file, 80 columns" cap80 80
cleared_before "a regular file, 80 columns" cap80 ""
segments cap80 | grep -Eq '[0-9]+%' ||
    fail "a regular file (a total) shows no percentage: $(segments cap80 | grep '[^ ]' | head -n 3)"

# 40 columns, runs merged (-S 1M) into a slow reader: fields dropped, never wrapped.
on_tty 40 cap40 "{ $GS --progress -S 1M in.txt; echo \$? >st; } | { sleep 1.2; cat >out.txt; }"
gs_status "runs merged, 40 columns" 0
same exp.txt out.txt "sorted with --progress, runs merged"
drawn_ok "runs merged, 40 columns" cap40 40
cleared_before "runs merged, 40 columns" cap40 ""

# A failure: the line is cleared, then the message alone on its line (the terminal
# turns its LF into CR LF); no output.
rm out.txt
on_tty 60 capfail "{ sh slow.sh part.*; echo 12abc; } | GS_PROGRESS_INTERVAL_MS=100 $GS --progress -o out.txt; echo \$? >st"
gs_status "a bad token" 2
[ ! -e out.txt ] || fail "a bad token: out.txt written"
drawn_ok "a bad token" capfail 60
msg=$(segments capfail | grep -a '^gpusort: .*not an integer' | head -n 1)
[ -n "$msg" ] || fail "a bad token: no message: $(tail -c 300 capfail | od -c)"
cleared_before "a bad token" capfail "$msg"$'\r\n'

# -c: the first disorder, found at the end, is alone on its line, and the last thing
# on the terminal: redrawn every millisecond, the line must not come back after it.
for try in 1 2 3; do
    on_tty 60 capc "{ sh slow.sh spart.*; echo 0; } | GS_PROGRESS_INTERVAL_MS=1 $GS --progress -c; echo \$? >st"
    gs_status "-c, a disorder (try $try)" 1
    drawn_ok "-c, a disorder (try $try)" capc 60
    cleared_before "-c, a disorder (try $try)" capc "gpusort: -:100001: disorder: 0"$'\r\n'
done

# A log: stderr a file, a line every 100 ms: whole lines, no CR, within 80 columns,
# each "gpusort: ", the last one "done".
st=0
sh slow.sh part.* | GS_PROGRESS_INTERVAL_MS=100 "$GPUSORT" --progress -o out.txt 2>log.txt || st=$?
[ "$st" -eq 0 ] || fail "a log: gpusort exited $st: $(cat log.txt)"
same exp.txt out.txt "sorted with --progress to a log"
[ "$(tr -cd '\r' <log.txt | wc -c)" -eq 0 ] || fail "a log holds a carriage return: $(od -c log.txt | head)"
[ "$(tail -c 1 log.txt | od -An -c | tr -d ' ')" = '\n' ] || fail "a log does not end with a newline"
[ "$(wc -l <log.txt)" -ge 2 ] || fail "a log of a run of over a second has no line but the last: $(cat log.txt)"
long=$(awk 'length($0) > 80' log.txt)
[ -z "$long" ] || fail "a log line is wider than 80 columns: '$long'"
! grep -v '^gpusort: ' log.txt >/dev/null || fail "a log line without 'gpusort: ': $(grep -v '^gpusort: ' log.txt)"
tail -n 1 log.txt | grep -Eq '^gpusort: done: .+ in, .+ out, [0-9]+:[0-9][0-9]$' ||
    fail "a log's last line is not the summary: $(tail -n 1 log.txt)"

# The percentage covers the whole run, not the reading alone: a regular file sorted
# into a pipe that is read only once the log shows the output's phase (gpusort
# waits there, its output several times what the pipe holds), so that a line is
# written while the output is still to go: below 100 although every input byte was
# read; and no line's percentage is below the one before. In memory (the phase
# "writing"), and with runs spilled and merged into the output (-S 1M: "merging").
writing='^gpusort: (writing|merging) '
for opts in "" "-S 1M"; do
    rm -f log.txt
    # shellcheck disable=SC2086  # opts: words
    { GS_PROGRESS_INTERVAL_MS=100 "$GPUSORT" --progress $opts in.txt 2>log.txt; echo $? >st; } |
        { i=0
          # Bounded only so that a broken gpusort cannot hang the test: a working one
          # blocks on the pipe until the log shows the output's phase.
          while ! grep -Eq "$writing" log.txt 2>/dev/null && [ $i -lt 1200 ]; do
              sleep 0.05
              i=$((i + 1))
          done
          cat >out.txt; }
    gs_status "a log of the writing ($opts)" 0
    same exp.txt out.txt "sorted with --progress $opts to a log"
    wline=$(grep -E -m 1 "$writing" log.txt) ||
        fail "a log ($opts): no line while writing: $(cat log.txt)"
    pct=$(printf '%s\n' "$wline" | sed -n 's/.* \([0-9][0-9]*\)% .*/\1/p')
    [ -n "$pct" ] || fail "a log ($opts): the writing line shows no percentage: $wline"
    [ "$pct" -lt 100 ] || fail "a log ($opts): $pct% while the output is still to write: $wline"
    sed -n 's/.* \([0-9][0-9]*\)% .*/\1/p' log.txt |
        awk 'NR > 1 && $1 < last { print "the percentage went back: " last "% then " $1 "%"; bad = 1 }
             { last = $1 } END { exit bad }' >back.txt ||
        fail "a log ($opts): $(cat back.txt): $(cat log.txt)"
done
