#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# output-like-sort.sh: -o FILE behaves as sort -o where users notice: a symbolic link
# is written through (its target gets the output, the link stays), a dangling one
# creates its target; FILE keeps its mode, and its owner and group where that is
# permitted; a FILE the user may not write is refused, untouched; a writable FILE in
# a directory the user may not write is written in place (-m too); a path near
# PATH_MAX works. (Atomic replacement stays where it is possible: output-file.sh.)
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"
not_under_tsan "its subject is the file -o makes"

seq 20 -1 1 >in.txt
oracle in.txt >exp.txt

# A link to an existing file, and a chain of two links.
printf 'old\n' >target.txt
ln -s target.txt link.txt
ln -s link.txt link2.txt
gs_ok /dev/null -o link.txt in.txt
[ -L link.txt ] || fail "the link given to -o was replaced"
same exp.txt target.txt "the link's target"
printf 'old\n' >target.txt
gs_ok /dev/null -o link2.txt in.txt
[ -L link2.txt ] && [ -L link.txt ] || fail "a link of the chain was replaced"
same exp.txt target.txt "the chain's target"

# A dangling link, relative to its own directory: its target is made.
mkdir sub
ln -s made.txt sub/dangling.txt
gs_ok /dev/null -o sub/dangling.txt in.txt
[ -L sub/dangling.txt ] || fail "the dangling link was replaced"
same exp.txt sub/made.txt "the dangling link's new target"

# The mode of the file replaced is kept.
printf 'old\n' >mode.txt
chmod 0640 mode.txt
gs_ok /dev/null -o mode.txt in.txt
[ "$(stat -c %a mode.txt)" = 640 ] || fail "mode 0640 became $(stat -c %a mode.txt)"
same exp.txt mode.txt "the file of mode 0640"

# A path near PATH_MAX: the temporary beside it has a name of its own, not the path.
long=$(printf 'd%.0s' $(seq 1 200))
dir=$PWD
for _ in $(seq 1 19); do dir=$dir/$long; done
mkdir -p "$dir"
gs_ok /dev/null -o "$dir/out.txt" in.txt
same exp.txt "$dir/out.txt" "-o near PATH_MAX"
rm -rf "${dir%%/"$long"*}/$long"

# What needs another user than root: as root, run those parts as nobody.
if [ "$(id -u)" -ne 0 ] || ! command -v setpriv >/dev/null 2>&1; then
    echo "output-like-sort.sh: not root, or no setpriv: the other users' cases skipped" >&2
    exit 0
fi
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
chmod 0755 "$test_dir"
chmod 0644 in.txt

# Root writing over another user's file keeps its owner and group.
printf 'old\n' >theirs.txt
chown 65534:65534 theirs.txt
chmod 0640 theirs.txt
gs_ok /dev/null -o theirs.txt in.txt
[ "$(stat -c %u:%g:%a theirs.txt)" = 65534:65534:640 ] ||
    fail "owner, group or mode changed: $(stat -c %u:%g:%a theirs.txt)"
same exp.txt theirs.txt "another user's file written by root"

# A file the user may not write is refused and left as it was (sort refuses too).
mkdir -m 0777 open
printf 'old\n' >open/ro.txt
chown 65534 open/ro.txt
chmod 0444 open/ro.txt
cp open/ro.txt ro.orig
expect_error 2 "^cannot write 'open/ro\.txt': Permission denied$" -- \
    as_nobody "$GPUSORT" -o open/ro.txt in.txt
same ro.orig open/ro.txt "a file of mode 0444"
[ "$(ls -A open)" = ro.txt ] || fail "stray files beside the refused file: $(ls -A open)"

# A writable file in a directory that is not: written in place (the same file).
mkdir -m 0755 locked
printf 'old contents, longer than the output is not\n' >locked/w.txt
chown 65534 locked/w.txt
ino=$(stat -c %i locked/w.txt)
run_cmd as_nobody "$GPUSORT" -o locked/w.txt in.txt
[ "$STATUS" -eq 0 ] || fail "in place: exited $STATUS: $(cat "$RUN_ERR")"
same exp.txt locked/w.txt "the file written in place"
[ "$(stat -c %i locked/w.txt)" = "$ino" ] || fail "the file written in place is another file"
[ "$(ls -A locked)" = w.txt ] || fail "stray files in the locked directory: $(ls -A locked)"
# ... and -m merges a file in place into itself, as sort -m does (its input read
# whole before it is written: output-over-input.sh).
cp exp.txt locked/w.txt
oracle in.txt exp.txt >exp2.txt
chmod 0777 "$TMPDIR"   # where the merge is written first
run_cmd as_nobody "$GPUSORT" -m -o locked/w.txt locked/w.txt exp.txt
[ "$STATUS" -eq 0 ] || fail "-m in place: exited $STATUS: $(cat "$RUN_ERR")"
same exp2.txt locked/w.txt "-m over its own input, in place"
[ "$(ls -A locked)" = w.txt ] || fail "stray files in the locked directory: $(ls -A locked)"
