# shellcheck shell=bash
# tests/bench/lib.sh: helpers the benchmark scripts share (sourced; the script sets
# name, for messages).
: "${name:=bench}"

# die MSG...: say why on stderr and stop.
die() {
    echo "$name: $*" >&2
    exit 1
}

# seconds CMD...: run CMD, print its wall-clock seconds.
seconds() {
    local start end
    start=$(date +%s.%N)
    "$@" >/dev/null || die "failed: $*"
    end=$(date +%s.%N)
    awk -v s="$start" -v e="$end" 'BEGIN { printf "%.3f\n", e - s }'
}

# median: of the numbers on stdin.
median() {
    sort -g | awk '{ v[NR] = $1 }
        END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
