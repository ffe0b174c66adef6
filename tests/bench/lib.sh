# SPDX-License-Identifier: MIT
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

# gpu_lines: "GPU N: NAME, MEMORY" for each GPU nvidia-smi lists (nothing where there is
# none or no nvidia-smi): gpusort --version names no GPU, as it probes none.
gpu_lines() {
    command -v nvidia-smi >/dev/null 2>&1 || return 0
    nvidia-smi --query-gpu=index,name,memory.total --format=csv,noheader 2>/dev/null |
        awk -F', ' 'NF >= 3 { printf "GPU %s: %s, %s\n", $1, $2, $3 }'
}

# machine_lines NAME CPUS VERSION: the lines that say where a benchmark ran: its
# name, the date, the CPUs, memory and OS, gpusort --version (VERSION) and the GPUs.
machine_lines() {
    echo "machine: $1"
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "cpus: $2 ($(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1))"
    echo "memory: $(awk '$1 == "MemTotal:" { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)"
    echo "os: $(. /etc/os-release 2>/dev/null && echo "${PRETTY_NAME:-?}"), $(uname -r)"
    printf '%s\n' "$3" | sed 's/^/gpusort --version: /'
    gpu_lines | sed 's/^/gpu: /'
}
