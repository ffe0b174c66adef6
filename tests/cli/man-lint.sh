#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# man-lint.sh: the manual pages are clean, and gpusort's complete. mandoc -T lint
# and groff -ww print nothing on gpusort.1 and gpusort-mpi.1; gpusort.1 names every
# long option that `gpusort --help` names, and every option of the command-line
# contract (the list below); each page names the other under SEE ALSO. Skips
# (77) where mandoc is not installed, once the other checks have passed; the groff
# check is left out where groff is not installed.
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"
not_under_tsan "no program runs"

man=$srcdir/../../man/gpusort.1
[ -s "$man" ] || fail "no manual page at $man"

# The options of the contract (version 0.2) that the page must describe, records
# left out until they are supported. Long options, then short letters.
contract_long="binary input-format output-format type endian output reverse unique
    numeric-sort sort ignore-leading-blanks check merge random-source algorithm device
    gpu-memory buffer-size temporary-directory compress-temp parallel progress stats
    help version"
contract_short="B o r u n b c C m a S T d f g h i M R V k t z"

# The page's source as plain text: roff escapes of hyphens, font changes and
# zero-width characters taken out, so that options read as they are typed.
sed -e 's/\\-/-/g' -e 's/\\[%&]//g' -e 's/\\f[BIRP]//g' -e 's/\\f(..//g' \
    "$man" >man.txt

# has_long NAME: the page names --NAME (not only as the prefix of a longer option).
has_long() {
    grep -Eq -- "--$1([^[:alnum:]-]|\$)" man.txt
}

missing=
for o in $contract_long; do
    has_long "$o" || missing="$missing --$o"
done
for c in $contract_short; do
    grep -Eq -- "(^|[^[:alnum:]-])-$c([^[:alnum:]-]|\$)" man.txt || missing="$missing -$c"
done
[ -z "$missing" ] || fail "man/gpusort.1 does not name the contract's options:$missing"

run_cmd "$GPUSORT" --help
[ "$STATUS" -eq 0 ] || fail "gpusort --help exited $STATUS"
missing=
while read -r o; do
    has_long "$o" || missing="$missing --$o"
done < <(grep -o -- '--[a-z][a-z-]*[a-z]' "$RUN_OUT" | sed 's/^--//' | sort -u)
[ -z "$missing" ] || fail "man/gpusort.1 does not name options that --help names:$missing"

# Both pages: gpusort's and gpusort-mpi's (the cluster build's). Each names the
# other under SEE ALSO.
pages="$man $srcdir/../../man/gpusort-mpi.1"
see_also() {
    sed -n -e '/^\.SH "SEE ALSO"/,/^\.SH/{s/\\-/-/g;p;}' "$1" | grep -q "^\.BR $2 (1)"
}
see_also "$man" gpusort-mpi || fail "man/gpusort.1's SEE ALSO does not name gpusort-mpi(1)"
see_also "$srcdir/../../man/gpusort-mpi.1" gpusort ||
    fail "man/gpusort-mpi.1's SEE ALSO does not name gpusort(1)"
if command -v groff >/dev/null 2>&1; then
    for page in $pages; do
        groff -ww -man -Tutf8 "$page" >/dev/null 2>groff.err ||
            fail "groff failed on $page: $(cat groff.err)"
        empty groff.err "groff -ww -man's warnings on $page"
    done
else
    echo "note: no groff: its check left out" >&2
fi

command -v mandoc >/dev/null 2>&1 || skip "no mandoc (Debian: apt-get install mandoc)"
for page in $pages; do
    st=0
    mandoc -T lint "$page" >mandoc.out 2>&1 || st=$?
    empty mandoc.out "mandoc -T lint's messages on $page"
    [ "$st" -eq 0 ] || fail "mandoc -T lint exited $st on $page"
done
