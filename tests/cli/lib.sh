# SPDX-License-Identifier: MIT
# lib.sh: helpers shared by the command-line tests (sourced, never run).
#
# Each test runs in a fresh temporary directory (its working directory, removed on
# exit) with TMPDIR pointing at an empty subdirectory that must still be empty when
# a passing test ends. Expected results always come from independent oracles:
# sort(1) on canonicalised text, od(1) for binary, awk, or files built by hand.
#
# The environment (make check sets it): GPUSORT and GSGEN, the programs under test,
# and srcdir, this directory. Exit statuses follow automake: 0 pass, 1 fail, 77 skip.

# shellcheck shell=bash

set -eu
export LC_ALL=C
# No test may wait on a terminal: stdin is given explicitly where a test wants it.
exec </dev/null

# Paths must survive the cd into the temporary directory below.
abspath() {
    case $1 in
        /*) printf '%s\n' "$1" ;;
        *) printf '%s\n' "$PWD/$1" ;;
    esac
}

: "${GPUSORT:?GPUSORT must name the gpusort program under test}"
: "${GSGEN:?GSGEN must name the gsgen data generator}"
: "${srcdir:=$(dirname "$0")}"
GPUSORT=$(abspath "$GPUSORT")
GSGEN=$(abspath "$GSGEN")
srcdir=$(abspath "$srcdir")
export GPUSORT GSGEN srcdir

[ -x "$GPUSORT" ] || { echo "SKIP: $GPUSORT is not built" >&2; exit 77; }
[ -x "$GSGEN" ] || { echo "SKIP: $GSGEN is not built" >&2; exit 77; }

test_name=$(basename "$0" .sh)
test_dir=$(mktemp -d "${TMPDIR:-/tmp}/gpusort-$test_name.XXXXXX")

# On exit: a passing test fails if gpusort left anything in TMPDIR; any test fails
# if a sanitizer reported anything (its reports are printed); then clean up.
# ThreadSanitizer's runtime, as a program starts (before main), creates
# TMPDIR/tsan.rodata.PID, maps it and unlinks it; a signal a test sends in that
# moment leaves the file. It is the runtime's, not gpusort's: removed, not counted.
lib_cleanup() {
    local rc=$?
    [ "${SAN_NAME:-}" != tsan ] || rm -f "$TMPDIR"/tsan.rodata.[0-9]*
    if [ "$rc" -eq 0 ] && [ -n "$(ls -A "$TMPDIR" 2>/dev/null)" ]; then
        echo "FAIL: temporary files left in TMPDIR:" >&2
        ls -lA "$TMPDIR" >&2
        rc=1
    fi
    if [ -n "$(ls -A "$test_dir/.san" 2>/dev/null)" ]; then
        echo "FAIL: $SAN_NAME reported errors:" >&2
        cat "$test_dir"/.san/* >&2
        rc=1
    fi
    cd /
    rm -rf "$test_dir"
    exit "$rc"
}
trap lib_cleanup EXIT

mkdir "$test_dir/tmpdir"
TMPDIR=$test_dir/tmpdir
export TMPDIR

# A sanitizer build (configure --enable-sanitizers or --enable-tsan; make check sets
# SAN_NAME): every program the test runs writes its reports to a file under .san/
# rather than to a stderr the test may have captured or ignored, and lib_cleanup
# fails the test if there is any. Leaks are reported too (LeakSanitizer, with ASan).
# TSan's atexit_sleep_ms is 0: by default it sleeps a second at every exit (to see
# races with threads still running then; gpusort joins its workers before it
# returns, and its signal thread only waits), and the tests run thousands of processes.
: "${SAN_NAME:=}"
if [ -n "$SAN_NAME" ]; then
    mkdir "$test_dir/.san"
    export ASAN_OPTIONS="detect_leaks=1:log_path=$test_dir/.san/asan${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
    export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:log_path=$test_dir/.san/ubsan${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
    export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:atexit_sleep_ms=0:log_path=$test_dir/.san/tsan${TSAN_OPTIONS:+:$TSAN_OPTIONS}"
fi
cd "$test_dir"

# GS_TEST_SCALE (make check sets it: Makefile.am): the percentage of their full size
# that tests use for their bulk (keys, lines, random cases); sizes a test's subject
# needs (more than -S, several blocks, a count of files) are not scaled.
: "${GS_TEST_SCALE:=100}"

# scaled N [MIN]: N at GS_TEST_SCALE percent, at least MIN (default 1).
scaled() {
    local n=$(( $1 * GS_TEST_SCALE / 100 ))
    [ "$n" -ge "${2:-1}" ] || n=${2:-1}
    echo "$n"
}

# Where run_cmd leaves a command's output.
RUN_OUT=$test_dir/.run.out
RUN_ERR=$test_dir/.run.err
HINT="Try 'gpusort --help' for more information."

# --------------------------------------------------------------------------------
# Verdicts
# --------------------------------------------------------------------------------

skip() {
    echo "SKIP: ${1:-skipped}" >&2
    exit 77
}

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

# not_under_tsan WHY: skip in the ThreadSanitizer build, where this test's volume of
# data takes minutes and its threads run the same code that other tests run there
# (WHY names them). The plain and ASan builds run it whole. Keeps CI within its time.
not_under_tsan() {
    [ "$SAN_NAME" != tsan ] || skip "not under ThreadSanitizer: $1"
}

# not_under_sanitizers WHY: skip in the sanitizer builds (ASan and TSan), where this
# test's volume takes minutes and what it is about is covered there otherwise (WHY
# says where). The plain build runs it whole.
not_under_sanitizers() {
    [ -z "$SAN_NAME" ] || skip "not under $SAN_NAME: $1"
}

# leaks_checked_elsewhere WHY: under ASan, no LeakSanitizer check at the exit of this
# test's runs of gpusort: they repeat, over many inputs, paths that other tests run
# with the check (WHY names them), and the check takes a third of a short run's time
# there. Every memory error is still reported.
leaks_checked_elsewhere() {
    [ "$SAN_NAME" != asan ] || ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0"
}

# same EXPECTED ACTUAL [WHAT]: the two files are byte-identical.
same() {
    if ! cmp -s -- "$1" "$2"; then
        echo "FAIL: ${3:-output} differs from the oracle ($1 expected, $2 got):" >&2
        diff -- "$1" "$2" | head -n 20 >&2 || true
        exit 1
    fi
}

# empty FILE [WHAT]: the file exists and is empty.
empty() {
    [ -f "$1" ] || fail "${2:-$1}: missing"
    [ ! -s "$1" ] || { echo "FAIL: ${2:-$1} is not empty:" >&2; head -c 2000 -- "$1" >&2; exit 1; }
}

# --------------------------------------------------------------------------------
# Running gpusort
# --------------------------------------------------------------------------------

# run_cmd CMD...: run CMD with stdout in $RUN_OUT, stderr in $RUN_ERR and its exit
# status in STATUS; never fails itself.
run_cmd() {
    STATUS=0
    "$@" >"$RUN_OUT" 2>"$RUN_ERR" || STATUS=$?
}

# gs_ok OUTFILE ARGS...: run gpusort ARGS with stdout in OUTFILE; it must exit 0
# with nothing on stderr.
gs_ok() {
    local out=$1 st=0
    shift
    "$GPUSORT" "$@" >"$out" 2>"$RUN_ERR" || st=$?
    if [ "$st" -ne 0 ] || [ -s "$RUN_ERR" ]; then
        echo "FAIL: gpusort $* exited $st (0 expected); stderr:" >&2
        head -c 2000 "$RUN_ERR" >&2
        exit 1
    fi
}

# check_msg FILE REGEX HINT: FILE (a captured stderr) is exactly one line
# "gpusort: MSG" with MSG matching the extended REGEX, then, with HINT=yes, the
# --help hint line; with HINT=maybe the hint line may follow. Sets ERR_MSG to MSG.
check_msg() {
    local file=$1 regex=$2 hint=$3 nlines first second
    [ -s "$file" ] || fail "nothing on stderr (expected a message matching /$regex/)"
    nlines=$(wc -l <"$file")
    [ "$(tail -c 1 "$file" | od -An -c | tr -d ' ')" = '\n' ] \
        || fail "stderr does not end with a newline: $(cat "$file")"
    first=$(sed -n 1p "$file")
    case $first in
        "gpusort: "*) ;;
        *) fail "stderr does not start with 'gpusort: ': $(cat "$file")" ;;
    esac
    ERR_MSG=${first#gpusort: }
    printf '%s\n' "$ERR_MSG" | grep -Eq -- "$regex" \
        || fail "message '$ERR_MSG' does not match /$regex/"
    case $hint:$nlines in
        yes:2|maybe:2)
            second=$(sed -n 2p "$file")
            [ "$second" = "$HINT" ] || fail "second stderr line is not the --help hint: '$second'"
            ;;
        yes:*) fail "expected the message and the --help hint, got $nlines line(s): $(cat "$file")" ;;
        maybe:1|no:1) ;;
        *) fail "expected one line on stderr, got $nlines: $(cat "$file")" ;;
    esac
}

# expect_error STATUS REGEX -- CMD...: CMD exits STATUS, writes nothing to stdout,
# and writes one "gpusort: " line matching REGEX to stderr (a usage error may add
# the --help hint line). ERR_MSG is the message without its prefix.
expect_error() {
    local want=$1 regex=$2
    [ "$3" = "--" ] || fail "expect_error: usage"
    shift 3
    run_cmd "$@"
    [ "$STATUS" -eq "$want" ] || fail "$* exited $STATUS ($want expected); stderr: $(head -c 2000 "$RUN_ERR")"
    empty "$RUN_OUT" "stdout of $*"
    check_msg "$RUN_ERR" "$regex" maybe
}

# expect_usage_error REGEX -- CMD...: as expect_error with status 2, and the
# --help hint line is required.
expect_usage_error() {
    local regex=$1
    [ "$2" = "--" ] || fail "expect_usage_error: usage"
    shift 2
    run_cmd "$@"
    [ "$STATUS" -eq 2 ] || fail "$* exited $STATUS (2 expected); stderr: $(head -c 2000 "$RUN_ERR")"
    empty "$RUN_OUT" "stdout of $*"
    check_msg "$RUN_ERR" "$regex" yes
}

# A target for -o that a failed run must leave alone: target_init makes
# $TARGET_DIR/target with known bytes; target_check verifies it is byte-identical
# and alone in its directory (no stray temporary file).
TARGET_DIR=$test_dir/outdir
TARGET=$TARGET_DIR/target
target_init() {
    mkdir -p "$TARGET_DIR"
    printf 'previous contents\n42\n' >"$TARGET"
    cp "$TARGET" "$test_dir/.target.orig"
}
target_check() {
    [ -f "$TARGET" ] || fail "-o target $TARGET was removed"
    same "$test_dir/.target.orig" "$TARGET" "-o target (must be untouched)"
    local left
    left=$(ls -A "$TARGET_DIR")
    [ "$left" = target ] || fail "stray files in the -o directory: $(echo "$left" | tr '\n' ' ')"
}

# --------------------------------------------------------------------------------
# Oracles
# --------------------------------------------------------------------------------

# canon [FILE...]: the integers of the FILEs (or stdin) as canonical text, one per
# line, in input order. Each file ends a number at its end.
canon() {
    local f
    if [ $# -eq 0 ]; then set -- -; fi
    for f in "$@"; do
        cat -- "$f"
        printf '\n'
    done | tr -s '[:space:]' '\n' | sed -E \
        -e '/^$/d' \
        -e 's/^\+//' \
        -e 's/^(-?)0+([0-9])/\1\2/' \
        -e 's/^-0$/0/'
}

# oracle [SORT-OPTION...] -- [FILE...]  or  oracle [FILE...]: what gpusort must
# print: `LC_ALL=C sort -n` of the canonicalised input (options such as -r, -u).
oracle() {
    local opts=()
    if printf '%s\n' "$@" | grep -qx -- '--'; then
        while [ "$1" != "--" ]; do
            opts+=("$1")
            shift
        done
        shift
    fi
    canon "$@" | LC_ALL=C sort -n "${opts[@]}"
}

# od_fmt TYPE: the od -t format of a key type; key_width TYPE: its bytes.
od_fmt() {
    case $1 in
        i32) echo d4 ;; u32) echo u4 ;; i64) echo d8 ;; u64) echo u8 ;;
        *) fail "od_fmt: bad type $1" ;;
    esac
}
key_width() {
    case $1 in
        i32|u32) echo 4 ;; i64|u64) echo 8 ;;
        *) fail "key_width: bad type $1" ;;
    esac
}

# decode TYPE ENDIAN [FILE...]: binary keys as decimal text, one per line (od).
decode() {
    local type=$1 endian=$2 fmt w
    shift 2
    fmt=$(od_fmt "$type")
    w=$(key_width "$type")
    od -An -v -t "$fmt" --endian="$endian" -w"$w" "$@" | sed -E 's/^ +//'
}

# encode TYPE ENDIAN: decimal numbers on stdin (within i64; for u64 give big values
# as their i64 bit pattern) to binary keys on stdout. Slow: for hand-built files.
encode() {
    local w endian=$2 v i b
    w=$(key_width "$1")
    while read -r v; do
        [ -n "$v" ] || continue
        for ((i = 0; i < w; i++)); do
            if [ "$endian" = big ]; then
                b=$(( (v >> (8 * (w - 1 - i))) & 255 ))
            else
                b=$(( (v >> (8 * i)) & 255 ))
            fi
            # shellcheck disable=SC2059
            printf "\\$(printf '%03o' "$b")"
        done
    done
}

# has_gpu: 0 if nvidia-smi lists a GPU.
has_gpu() {
    command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU'
}

# gpusort_sees_gpu: 0 if gpusort sorts with GPU 0 (--version probes no GPU: a sort
# with --device=0, an error where GPU 0 is missing or unusable, asks).
gpusort_sees_gpu() {
    [ "$(printf '2\n1\n' | "$GPUSORT" --device=0 2>/dev/null)" = "$(printf '1\n2')" ]
}

# reap PID WHAT: wait for the background gpusort PID to end, 10 s at most (it is
# then killed and the test fails: a hang never holds the suite up); STATUS is its
# exit status.
reap() {
    local i
    for ((i = 0; i < 100; i++)); do
        kill -0 "$1" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$1" 2>/dev/null; then
        kill -s KILL "$1"
        wait "$1" || true
        fail "$2: gpusort was still running 10 s later"
    fi
    STATUS=0
    wait "$1" || STATUS=$?
}

# signals_to_send: the signals a test of gpusort's signal handling can send, as
# words: INT TERM HUP, less SIGINT and SIGHUP where our parent ignores them (a
# signal ignored at start stays ignored in gpusort, as in sort: a background job of
# a shell without job control starts with SIGINT ignored, a job under nohup with
# SIGHUP).
signals_to_send() {
    local ign=0 sig list=
    if [ -r /proc/$$/status ]; then
        ign=$(( 0x$(awk '$1 == "SigIgn:" { print $2 }' /proc/$$/status) ))
    fi
    for sig in INT TERM HUP; do
        case $sig in
            INT) [ $(( ign & 2 )) -eq 0 ] || { echo "SIGINT is ignored here: not sent" >&2; continue; } ;;
            HUP) [ $(( ign & 1 )) -eq 0 ] || { echo "SIGHUP is ignored here: not sent" >&2; continue; } ;;
        esac
        list="$list${list:+ }$sig"
    done
    echo "$list"
}

# first_disorder MODE FILE: "N VALUE" for the first key out of order in FILE (text,
# small values: awk computes in doubles), N its 1-based line; nothing if sorted.
# MODE: asc, desc, asc-strict (-u), desc-strict (-r -u). For decoded binary (one
# key a line) N is the key index.
first_disorder() {
    awk -v mode="$1" '
    {
        for (i = 1; i <= NF; i++) {
            v = $i + 0
            if (v == 0)
                v = 0   # no "-0"
            if (have) {
                if ((mode == "asc" && v < prev) || (mode == "desc" && v > prev) ||
                    (mode == "asc-strict" && v <= prev) ||
                    (mode == "desc-strict" && v >= prev)) {
                    printf "%d %.0f\n", NR, v
                    exit
                }
            }
            prev = v
            have = 1
        }
    }' "$2"
}
