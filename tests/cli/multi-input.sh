#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# multi-input.sh: several inputs, and - for stdin mixed with files: all are sorted together.
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"

"$GSGEN" -n 3000 -s 41 >a.txt
"$GSGEN" -n 1 -s 42 >b.txt
: >c.txt
"$GSGEN" -n 5000 -s 43 --min=-100 --max=100 >d.txt
"$GSGEN" -n 2000 -s 44 >s.txt

gs_ok out.txt a.txt b.txt c.txt d.txt
oracle a.txt b.txt c.txt d.txt >exp.txt
same exp.txt out.txt "four files"

gs_ok out.txt a.txt - d.txt <s.txt
oracle a.txt s.txt d.txt >exp.txt
same exp.txt out.txt "files with - in the middle"

gs_ok out.txt - a.txt <s.txt
oracle s.txt a.txt >exp.txt
same exp.txt out.txt "- first"

gs_ok out.txt - <s.txt
oracle s.txt >exp.txt
same exp.txt out.txt "- alone"

gs_ok out.txt a.txt a.txt
oracle a.txt a.txt >exp.txt
same exp.txt out.txt "one file twice"
