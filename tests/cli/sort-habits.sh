#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# sort-habits.sh: options given as a sort user gives them mean what they mean in
# sort: -c with -m checks, whatever their order (no merge written); a second -t
# that differs is an error ("incompatible tabs"), the same one twice is fine; -c on
# records prints the line out of order as it is, NUL bytes and all, as sort does;
# a record smaller than its key is blamed on --record-size and the type; standard
# input named twice is read once, and left at its end, as sort leaves it, for the
# next command of a shell's group; and the kernel's files, whose size says 0 (/proc),
# are read to their end as sort reads them, records and numbers alike.
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"
not_under_tsan "its subject is the command line"

target_init
printf '1\n2\n3\n' >s.txt
printf '2\n1\n' >d.txt

# -c and -m together: -c wins, before or after. A sorted input: exit 0, nothing
# written; a disorder: exit 1, its message; two inputs: -c's error, as sort's.
for opts in "-c -m" "-m -c" "-m --check" "-C -m" "-m -C"; do
    # shellcheck disable=SC2086  # opts: words
    gs_ok out.txt $opts s.txt
    empty out.txt "stdout of $opts on a sorted input"
done
for opts in "-c -m" "-m -c"; do
    # shellcheck disable=SC2086
    expect_error 1 '^d\.txt:2: disorder: 1$' -- "$GPUSORT" $opts d.txt
    # shellcheck disable=SC2086
    expect_usage_error "^extra operand 's\\.txt' not allowed with -c\$" -- "$GPUSORT" $opts s.txt s.txt
done
run_cmd "$GPUSORT" -m -C d.txt
[ "$STATUS" -eq 1 ] || fail "-m -C on a disorder exited $STATUS (1 expected)"
empty "$RUN_ERR" "stderr of -m -C"
empty "$RUN_OUT" "stdout of -m -C"

# Two -t: the same is fine, another is an error naming both (NUL and tab escaped).
printf 'b,2\na,1\n' >r.csv
gs_ok out.csv -t, -t, -k2,2n r.csv
printf 'a,1\nb,2\n' >exp.csv
same exp.csv out.csv "-t, twice"
expect_usage_error "^incompatible tabs: -t ',' and -t ':'\$" -- "$GPUSORT" -t, -t: -k2,2n -o "$TARGET" r.csv
target_check
expect_usage_error "^incompatible tabs: -t '\\\\x00' and -t ','\$" -- "$GPUSORT" -t '\0' -t, -k2,2n r.csv
expect_usage_error "^incompatible tabs: -t '\\\\x09' and -t ','\$" -- "$GPUSORT" -t "$(printf '\t')" -t, -k2,2n r.csv

# -c on records: the line out of order is printed as read, a NUL inside it too;
# the same bytes as sort prints after its own name.
printf '2 b\n1 a\000x\n' >nul.txt
run_cmd "$GPUSORT" -c -k1,1n nul.txt
[ "$STATUS" -eq 1 ] || fail "-c on a line with a NUL exited $STATUS (1 expected)"
printf 'gpusort: nul.txt:2: disorder: 1 a\000x\n' >want.err
same want.err "$RUN_ERR" "-c's message for a line with a NUL"
if LC_ALL=C sort -c -k1,1n nul.txt 2>sort.err; then
    fail "sort -c took nul.txt as sorted"
fi
sed 's/^sort: /gpusort: /' sort.err >sort-as-gs.err
same sort-as-gs.err "$RUN_ERR" "-c's message against sort's"

# A record smaller than its key: --record-size and the type's width are named.
printf '0123456789abcdef' >rec.bin
expect_usage_error "^--record-size=1: a record is smaller than its key \\(--type=i64 takes 8 bytes\\)\$" \
    -- "$GPUSORT" -B --record-size=1 rec.bin
expect_usage_error "^--record-size=2: a record is smaller than its key \\(--type=u32 takes 4 bytes\\)\$" \
    -- "$GPUSORT" -B --record-size=2 --type=u32 rec.bin
# A key that fits the record but not at its offset still blames --key-offset.
expect_usage_error "^--key-offset=4: " -- "$GPUSORT" -B --record-size=8 --key-offset=4 rec.bin

# Standard input named twice, a file behind it: read once, as sort reads it (the
# second '-' finds it at its end), for numbers, records and -m alike; records read
# it twice before 2026-12-02's eighth session, every line written twice.
printf '5\n3\n9\n1\n' >in.txt
printf '2\n4\n' >two.txt
for opts in "-n - -" "-k1,1n - -" "-k1,1n - two.txt -" "-n two.txt - -" "-s -t, -k1,1n - -"; do
    # shellcheck disable=SC2086  # opts: words
    LC_ALL=C sort $opts <in.txt >dash.exp
    # shellcheck disable=SC2086
    gs_ok out.txt $opts <in.txt
    same dash.exp out.txt "gpusort $opts <in.txt"
done
sort -n in.txt >sorted.txt
for opts in "-m -n - -" "-m -k1,1n - -"; do
    # shellcheck disable=SC2086
    LC_ALL=C sort $opts <sorted.txt >dash.exp
    # shellcheck disable=SC2086
    gs_ok out.txt $opts <sorted.txt
    same dash.exp out.txt "gpusort $opts <sorted.txt"
done

# Standard input that is a file, read by a sort in a shell's group: the command
# after it reads on from where the sort stopped, at the end, as after sort; a
# first line read by the shell is not sorted. Records of 1 MiB and more are mapped,
# not read (in windows where -S is smaller): the offset was left at the start
# before 2026-12-03, and cat wrote the whole input again after the sorted lines.
awk 'BEGIN { srand(11); for (i = 0; i < 60000; i++)
    printf "%d,%d,a payload of some length\n", i, int(rand() * 1000000) - 500000 }' >big.csv
awk 'BEGIN { srand(12); for (i = 0; i < 300000; i++) print int(rand() * 1000000) }' >nums.txt
for run in "big.csv -t, -k2,2n" "big.csv -t, -k2,2n -S 1M" "big.csv -s -t, -k1,1n" \
    "nums.txt -n"; do
    in=${run%% *} opts=${run#* }
    # shellcheck disable=SC2086  # opts: words
    (LC_ALL=C sort $opts; cat) <"$in" >group.exp
    # shellcheck disable=SC2086
    ("$GPUSORT" $opts 2>group.err; cat) <"$in" >group.out
    [ ! -s group.err ] || fail "gpusort $opts in a group: $(head -c 300 group.err)"
    same group.exp group.out "(gpusort $opts; cat) <$in"
    # shellcheck disable=SC2086
    (read -r _; LC_ALL=C sort $opts; cat) <"$in" >group.exp
    # shellcheck disable=SC2086
    (read -r _; "$GPUSORT" $opts 2>group.err; cat) <"$in" >group.out
    [ ! -s group.err ] || fail "gpusort $opts after a read: $(head -c 300 group.err)"
    same group.exp group.out "(read; gpusort $opts; cat) <$in"
done

# /proc's files say their size is 0 and are read on to their end; a /proc/sys file
# refuses a read of some MiB at once (ENOMEM), which failed records and a second
# input of numbers before 2026-12-02's eighth session.
procs=1
for f in /proc/sys/kernel/pid_max /proc/sys/kernel/threads-max /proc/filesystems; do
    [ -r "$f" ] || procs=0
done
if [ "$procs" = 1 ]; then
    LC_ALL=C sort -n /proc/sys/kernel/pid_max /proc/sys/kernel/threads-max >num.exp
    gs_ok out.txt /proc/sys/kernel/pid_max /proc/sys/kernel/threads-max
    same num.exp out.txt "numbers of two /proc/sys files"
    gs_ok out.txt -k1,1n /proc/sys/kernel/pid_max /proc/sys/kernel/threads-max
    same num.exp out.txt "records of two /proc/sys files"
    LC_ALL=C sort -k2,2 /proc/filesystems >fs.exp
    gs_ok out.txt -k2,2 /proc/filesystems
    same fs.exp out.txt "records of /proc/filesystems"
else
    echo "note: no /proc/sys/kernel/pid_max, threads-max or /proc/filesystems: not tried" >&2
fi
