#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# err-not-integer.sh: a token that is not an integer: exit 2, FILE:LINE: not an integer: 'TOKEN'.
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"
not_under_tsan "its subject is a message; the parse's threads meet a bad token in stress.sh there"

target_init

printf '1\n2\n\n3 12abc\n5\n' >bad.txt
expect_error 2 "^bad\\.txt:4: not an integer: '12abc'\$" -- "$GPUSORT" bad.txt
expect_error 2 "^bad\\.txt:4: not an integer: '12abc'\$" -- "$GPUSORT" -o "$TARGET" bad.txt
target_check

# Other malformed tokens, each on line 3 after two good lines (a word there, among
# other tokens, is a line of fields: the message hints -k; err-hints.sh).
while IFS= read -r tok; do
    printf '10\n20 30\n7 %s 8\n' "$tok" >t.txt
    # The message quotes the token; match it literally.
    re=$(printf '%s' "$tok" | sed -e 's/[][\.*^$+?(){}|/]/\\&/g')
    hint=
    case $tok in [a-zA-Z]*) hint='; to sort lines by a field, use -k' ;; esac
    expect_error 2 "^t\\.txt:3: not an integer: '$re'$hint\$" -- "$GPUSORT" -o "$TARGET" t.txt
    target_check
done <<'TOKENS'
1.5
--5
+-1
-+1
0x10
1e5
abc
-
+
5-
1,000
TOKENS

# Non-ASCII bytes (fullwidth digits) are not digits; the message may escape them.
printf '1\n\n\xef\xbc\x91\xef\xbc\x92\n' >wide.txt
expect_error 2 "^wide\\.txt:3: not an integer: '" -- "$GPUSORT" wide.txt

# A bad token in the second file names the second file and its line.
printf '1\n2\n' >a.txt
printf 'zz\n3\n' >b.txt
expect_error 2 "^b\\.txt:1: not an integer: 'zz'; is line 1 a header\\? \\(--header\\)\$" \
    -- "$GPUSORT" -o "$TARGET" a.txt b.txt
target_check
# ... even when the first has no final newline (no joining across files).
printf '1\n2' >a2.txt
printf 'x\n' >b2.txt
expect_error 2 "^b2\\.txt:1: not an integer: 'x'; is line 1 a header\\? \\(--header\\)\$" \
    -- "$GPUSORT" a2.txt b2.txt

# From stdin the file is '-'.
expect_error 2 "^-:4: not an integer: '12abc'\$" -- "$GPUSORT" <bad.txt
expect_error 2 "^-:4: not an integer: '12abc'\$" -- "$GPUSORT" a.txt - <bad.txt

# CRLF lines: the CR is white space, not part of the token.
printf '1\r\n2x\r\n' >crlf.txt
expect_error 2 "^crlf\\.txt:2: not an integer: '2x'\$" -- "$GPUSORT" crlf.txt

# Deep in a big file (parsed in parallel blocks): the line must still be exact.
"$GSGEN" -n 300000 -s 191 >big.txt
{ head -n 234566 big.txt; echo '55 12abc'; tail -n +234567 big.txt; } >bigbad.txt
line=$(grep -n '12abc' bigbad.txt | cut -d: -f1)
[ "$line" = 234567 ] || fail "grep oracle: $line"
expect_error 2 "^bigbad\\.txt:234567: not an integer: '12abc'\$" -- "$GPUSORT" -o "$TARGET" --parallel=3 bigbad.txt
target_check
# Only the first bad token counts.
{ cat bigbad.txt; echo 'zz'; } >twobad.txt
expect_error 2 "^twobad\\.txt:234567: not an integer: '12abc'\$" -- "$GPUSORT" twobad.txt

# A NUL byte is not white space.
printf '1\n2\0003\n' >nul.txt
expect_error 2 '^nul\.txt:2: not an integer' -- "$GPUSORT" -o "$TARGET" nul.txt
target_check
