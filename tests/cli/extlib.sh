# SPDX-License-Identifier: MIT
# extlib.sh: helpers of the external-sort tests (sourced after lib.sh, never run).
#
# The environment (make check sets it) adds GSCHECK, the order and sum checker of
# binary keys, and FAULTFS, the LD_PRELOAD shim that makes writes, reads and opens
# under a directory fail (tests/tools/faultfs.c). A test that needs one and does not find
# it skips.

# shellcheck shell=bash
# lib.sh sets test_dir and RUN_ERR; the tests read GOT.
# shellcheck disable=SC2154,SC2034

# need_gscheck: GSCHECK names the checker (made absolute), or the test skips.
need_gscheck() {
    : "${GSCHECK:=}"
    [ -n "$GSCHECK" ] || skip "GSCHECK is not set"
    GSCHECK=$(abspath "$GSCHECK")
    [ -x "$GSCHECK" ] || skip "$GSCHECK is not built"
    export GSCHECK
}

# need_faultfs: FAULTFS names the shim (made absolute), or the test skips. Sets
# FAULT_PRELOAD, what LD_PRELOAD must hold to load it: in a sanitizer build with a
# shared runtime (GCC's), the runtime first (SAN_PRELOAD), as it must come before
# every other library; its interceptors then call the shim's, which call libc.
need_faultfs() {
    : "${FAULTFS:=}" "${SAN_PRELOAD:=}"
    [ -n "$FAULTFS" ] || skip "FAULTFS is not set"
    FAULTFS=$(abspath "$FAULTFS")
    [ -f "$FAULTFS" ] || skip "$FAULTFS is not built"
    FAULT_PRELOAD=${SAN_PRELOAD:+$SAN_PRELOAD:}$FAULTFS
    export FAULTFS FAULT_PRELOAD
}

# need_gsrec: GSREC names the records' generator, or the test skips (a relative
# GSREC must be made absolute before lib.sh moves into the test's directory).
need_gsrec() {
    : "${GSREC:=}"
    [ -n "$GSREC" ] || skip "GSREC is not set"
    [ -x "$GSREC" ] || skip "$GSREC is not built"
}

# placed FILE WHAT: where this file system has fallocate, --stats in RUN_ERR counts
# all of FILE's bytes as written mapped, placed by 2 threads (--parallel=2).
placed() {
    if [ -z "${can_fallocate:-}" ]; then
        can_fallocate=no
        if command -v fallocate >/dev/null && fallocate -l 4096 probe.bin 2>/dev/null; then
            can_fallocate=yes
        fi
        rm -f probe.bin
    fi
    [ "$can_fallocate" = yes ] || return 0
    grep -q "stats: $(wc -c <"$1") bytes written mapped, placed by 2 threads" "$RUN_ERR" ||
        fail "$2: not placed: $(cat "$RUN_ERR")"
}

# stream_stages WHAT: --stats in RUN_ERR gives both stages of a stream through a GPU
# (pipeline/stream.c), each with its sides and its bound.
stream_stages() {
    grep -Eq "stats: stream in [0-9.]+ s: reading [0-9.]+ s busy .* bound by (reading|PCIe)$" "$RUN_ERR" &&
        grep -Eq "stats: stream out [0-9.]+ s(: PCIe [0-9.]+ s busy|, placed by [0-9]+ threads).* bound by (PCIe|writing|placing)$" "$RUN_ERR" ||
        fail "$1: --stats lacks the stream's stages: $(cat "$RUN_ERR")"
}

# dir_empty DIR WHAT: DIR exists and holds nothing.
dir_empty() {
    [ -d "$1" ] || fail "$2: $1 is gone"
    # shellcheck disable=SC2012  # the names are for a message only
    [ -z "$(ls -A "$1")" ] || fail "$2: files left in $1: $(ls -A "$1" | tr '\n' ' ')"
}

# spill_bytes FILE: the bytes on the spill row of a --stats table in FILE
# ("gpusort: stats: spill BYTES SECONDS MB/s"); fails if there is no such row.
spill_bytes() {
    local b
    b=$(awk '$1 == "gpusort:" && $2 == "stats:" && $3 == "spill" { print $4; exit }' "$1")
    case $b in
        '' | *[!0-9]*) fail "no spill row in the --stats table: $(cat "$1")" ;;
    esac
    printf '%s\n' "$b"
}

# spilled_clean FILE DIR WHAT: the --stats table in FILE (a captured stderr) shows
# bytes spilled, and DIR (the run's -T) is empty again.
spilled_clean() {
    local b
    b=$(spill_bytes "$1") || exit 1
    [ "$b" -gt 0 ] || fail "$3: nothing spilled: $(cat "$1")"
    dir_empty "$2" "$3"
}

# stats_only FILE: FILE (a captured stderr) holds nothing but --stats rows.
stats_only() {
    if grep -v '^gpusort: stats: ' "$1" >/dev/null; then
        fail "stderr has more than the --stats table: $(grep -v '^gpusort: stats: ' "$1")"
    fi
}

# sums_equal EXPECTED GOT WHAT: two "COUNT SUM" lines (gsgen --sum, gscheck) agree.
sums_equal() {
    [ -n "$2" ] || fail "$3: the checker printed nothing (keys out of order?)"
    [ "$1" = "$2" ] || fail "$3: COUNT SUM is '$2', '$1' expected (keys lost or changed)"
}

# wait_gone PID SECONDS: wait until PID has exited, at most SECONDS (tenths are
# polled); 0 if it exited, 1 if it is still running.
wait_gone() {
    local i
    for ((i = 0; i < $2 * 10; i++)); do
        kill -0 "$1" 2>/dev/null || return 0
        sleep 0.1
    done
    ! kill -0 "$1" 2>/dev/null
}

# san_timeout SECONDS: a time limit scaled for a sanitizer build, where it only
# catches a hang: ASan runs gpusort 2 to 4 times slower here, TSan 5 to 15 times.
san_timeout() {
    case ${SAN_NAME:-} in
        asan) echo $(( $1 * 4 )) ;;
        tsan) echo $(( $1 * 20 )) ;;
        *) echo "$1" ;;
    esac
}

# bin_pipe TYPE GSGEN-ARG... -- GPUSORT-ARG... -- GSCHECK-ARG...: run
#   gsgen -b -t TYPE GSGEN-ARGS | gpusort -b -t TYPE GPUSORT-ARGS | gscheck -t TYPE GSCHECK-ARGS
# gsgen and gpusort must exit 0, gpusort with nothing on stderr but --stats rows
# (kept in $RUN_ERR), and gscheck must find the keys in order. Sets GOT to what
# gscheck printed ("COUNT SUM"). With GS_TIMEOUT=SECONDS, gpusort runs under
# timeout(1) and taking longer is a failure.
bin_pipe() {
    local type=$1 gen=() gs=() chk=() st pre=()
    shift
    while [ $# -gt 0 ] && [ "$1" != "--" ]; do gen+=("$1"); shift; done
    [ $# -gt 0 ] || fail "bin_pipe: usage"
    shift
    while [ $# -gt 0 ] && [ "$1" != "--" ]; do gs+=("$1"); shift; done
    [ $# -gt 0 ] || fail "bin_pipe: usage"
    shift
    chk=("$@")
    if [ -n "${GS_TIMEOUT:-}" ]; then
        pre=(timeout "$(san_timeout "$GS_TIMEOUT")")
    fi
    set +e
    "$GSGEN" -b -t "$type" "${gen[@]}" \
        | "${pre[@]}" "$GPUSORT" -B --type="$type" "${gs[@]}" 2>"$RUN_ERR" \
        | "$GSCHECK" -t "$type" "${chk[@]}" >"$test_dir/.gscheck.out" 2>"$test_dir/.gscheck.err"
    st=("${PIPESTATUS[@]}")
    set -e
    if [ -n "${GS_TIMEOUT:-}" ] && [ "${st[1]}" -eq 124 ]; then
        fail "gpusort -B --type=$type ${gs[*]} did not finish within $(san_timeout "$GS_TIMEOUT") s"
    fi
    [ "${st[1]}" -eq 0 ] || fail "gpusort -B --type=$type ${gs[*]} exited ${st[1]} (0 expected); stderr: $(head -c 2000 "$RUN_ERR")"
    [ "${st[0]}" -eq 0 ] || fail "gsgen ${gen[*]} exited ${st[0]}"
    stats_only "$RUN_ERR"
    [ "${st[2]}" -eq 0 ] || fail "gpusort -B --type=$type ${gs[*]}: output not in order: $(cat "$test_dir/.gscheck.err")"
    GOT=$(cat "$test_dir/.gscheck.out")
}
