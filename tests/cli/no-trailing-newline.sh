#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# no-trailing-newline.sh: each file ends a number at its end, newline or not.
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"
not_under_tsan "its subject is the text's form"

printf '1 2' >a.txt
printf '3\n' >b.txt
gs_ok out.txt a.txt b.txt
printf '1\n2\n3\n' >exp.txt
same exp.txt out.txt "'1 2' then '3'"

# 10 without a newline then 2: two numbers, not 102.
printf '10' >c.txt
printf '2' >d.txt
gs_ok out.txt c.txt d.txt
printf '2\n10\n' >exp.txt
same exp.txt out.txt "'10' then '2'"

# A file without a final newline, then stdin without one.
printf '7' >e.txt
printf '5' | gs_ok out.txt e.txt -
printf '5\n7\n' >exp.txt
same exp.txt out.txt "'7' then stdin '5'"

# The same with -c and -m (each file ends a number there too).
printf '1\n2' >f.txt
printf '3' >g.txt
gs_ok out.txt -m f.txt g.txt
printf '1\n2\n3\n' >exp.txt
same exp.txt out.txt "-m of '1 2' and '3'"
gs_ok out.txt -c f.txt
empty out.txt "stdout of -c"
