#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# spill.sh: a small -S makes runs spill to -T (or TMPDIR): output still right, no temp left.
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"

"$GSGEN" -n 400000 -s 161 >in.txt
oracle in.txt >exp.txt
mkdir tdir

for c in auto lz4 none; do
    gs_ok out.txt -S 1M -T tdir --compress-temp="$c" in.txt
    same exp.txt out.txt "-S 1M --compress-temp=$c"
    [ -z "$(ls -A tdir)" ] || fail "temporary files left in -T: $(ls -A tdir)"
done

# A SIZE too small to work with is raised silently; the TMPDIR default is used.
gs_ok out.txt -S 1 in.txt
same exp.txt out.txt "-S 1"
gs_ok out.txt --buffer-size=100b --temporary-directory=tdir -r -u in.txt
oracle -r -u -- in.txt >exp-ru.txt
same exp-ru.txt out.txt "--buffer-size=100b -r -u"
[ -z "$(ls -A tdir)" ] || fail "temporary files left in -T: $(ls -A tdir)"

# Other SIZE forms are accepted.
for s in 2048 64K 1m 1G 1% 50%; do
    gs_ok out.txt -S "$s" --device=cpu in.txt
    same exp.txt out.txt "-S $s"
done

# Binary, 64-bit, spilled.
"$GSGEN" -b -n 300000 -t u64 -s 162 >in.bin
gs_ok out.bin -S 1M -T tdir -B --type=u64 in.bin
decode u64 little in.bin | LC_ALL=C sort -n >exp.txt
decode u64 little out.bin >got.txt
same exp.txt got.txt "-S 1M -B --type=u64"

# An error found after runs were spilled: exit 2, no temporary left in -T, and the
# -o target untouched.
target_init
{ cat in.txt; echo 'oops'; } >bad.txt
line=$(wc -l <bad.txt)
expect_error 2 "^bad\\.txt:$line: not an integer: 'oops'\$" -- "$GPUSORT" -S 1M -T tdir -o "$TARGET" bad.txt
target_check
[ -z "$(ls -A tdir)" ] || fail "temporary files left in -T after an error: $(ls -A tdir)"
