#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# whitespace.sh: tabs, CR, VT, FF, blank lines and several numbers a line are all separators.
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"
not_under_tsan "its subject is the text's form"

printf '\n\n  3\t1\r\n\n\n  2 5  7\v4\f6\r\n\t\n-1\t\t\r\n\r\n 8' >ws.txt
gs_ok out.txt ws.txt
printf -- '-1\n1\n2\n3\n4\n5\n6\n7\n8\n' >exp.txt
same exp.txt out.txt "mixed white space"
oracle ws.txt >exp2.txt
same exp.txt exp2.txt "the oracle itself"

# A generated file with its newlines turned into a mix of separators.
"$GSGEN" -n 30000 -s 51 >in.txt
awk 'BEGIN { split(" |\t|\r\n|\n\n|  \t |\f|\v|\r", sep, "|") }
     { printf "%s%s", $0, sep[NR % 8 + 1] }' in.txt >mixed.txt
gs_ok out.txt mixed.txt
oracle in.txt >exp.txt
same exp.txt out.txt "generated keys with mixed separators"

# CRLF text, as from Windows.
sed 's/$/\r/' in.txt >crlf.txt
gs_ok out.txt crlf.txt
same exp.txt out.txt "CRLF lines"
