#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# err-usage.sh: unknown options and bad option values: exit 2 with the --help hint.
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"
not_under_tsan "its subject is the command line, before any thread"

target_init
printf '2\n1\n' >in.txt

expect_usage_error 'bogus' -- "$GPUSORT" --bogus -o "$TARGET" in.txt
target_check
expect_usage_error '.' -- "$GPUSORT" -Z -o "$TARGET" in.txt
target_check

for opt in --type=x --type=i16 --type= -tx --endian=middle --algorithm=quick -aquick \
           --device=banana --device= --device=0,x --device=-1 --compress-temp=zip \
           --parallel=0 --parallel=-1 --parallel=abc --parallel= \
           --input-format=csv --output-format=hex --check=loud \
           '-S 10Q' '-S 101%' '-S -5' '-S abc' --buffer-size= '-S 99999999999999999999' \
           --buffer-size=1X --gpu-memory=xyz --gpu-memory=200% --gpu-memory=; do
    # shellcheck disable=SC2086 # '-S 10Q' is two words on purpose
    expect_usage_error '.' -- "$GPUSORT" $opt -o "$TARGET" in.txt
    target_check
done

# Options that need an argument, at the end of the line.
for opt in --type -o -S -T -a; do
    expect_usage_error '.' -- "$GPUSORT" in.txt "$opt"
done

# -c with -o (with or without the hint: it is an error either way).
expect_error 2 '.' -- "$GPUSORT" -c -o "$TARGET" in.txt
target_check

# Messages start with "gpusort: ", not the path the program was run by.
run_cmd "$GPUSORT" --bogus
check_msg "$RUN_ERR" '.' yes
