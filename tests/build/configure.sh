#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# configure.sh: configure's choices of CUDA and MPI, case by case: --help lists both
# spellings of each switch; the summary says what was looked for, found and used, or
# why not; NVCC and NVCCFLAGS are the user's; nvcc is found in PATH and its static
# runtime in the toolkit's multiarch directory (Debian's layout, simulated by a
# wrapper around the real nvcc); compute capabilities nvcc lacks are left out of the
# default list and refused in a list given. Run by hand, not by make check (each
# configure takes seconds):  tests/build/configure.sh [SRCDIR]
# SRCDIR (default: this tree) must have its configure script and not be configured
# itself. The CUDA cases need a CUDA toolkit in /usr/local/cuda and skip without one;
# the cases that hide /usr/local/cuda need root (unshare -m) and skip otherwise.
set -u
src=$(cd "${1:-$(dirname "$0")/../..}" && pwd)
[ -x "$src/configure" ] || { echo "configure.sh: no configure in $src (autoreconf -fi)" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/gs-configure.XXXXXX")
trap 'rm -rf "$work"' EXIT
failed=0
passed=0
skipped=0

# cfg NAME [VAR=VALUE]... [-- CONFIGURE-ARGS]: configure in $work/NAME, output in
# $work/NAME/out, exit status in $rc.
cfg() {
    local name=$1 envs=()
    shift
    while [ $# -gt 0 ] && [ "$1" != -- ]; do envs+=("$1"); shift; done
    [ $# -gt 0 ] && shift
    mkdir -p "$work/$name"
    (cd "$work/$name" && env "${envs[@]}" "$src/configure" "$@") >"$work/$name/out" 2>&1
    rc=$?
}

# cfg_hidden NAME [VAR=VALUE]... [-- ARGS]: as cfg, with /usr/local/cuda empty (a
# mount namespace of its own), as on a machine whose CUDA is elsewhere. The real
# toolkit stays reachable at $work/realcuda, for the fake nvcc wrappers.
cfg_hidden() {
    local name=$1 envs=()
    shift
    while [ $# -gt 0 ] && [ "$1" != -- ]; do envs+=("$1"); shift; done
    [ $# -gt 0 ] && shift
    mkdir -p "$work/$name"
    (cd "$work/$name" && unshare -m --propagation private sh -c '
        mount --bind "$1" "$2" && mount --bind "$3" "$1" || exit 99
        shift 3; exec "$@"' sh "$real" "$work/realcuda" "$work/empty" \
        env "${envs[@]}" "$src/configure" "$@") >"$work/$name/out" 2>&1
    rc=$?
}

ok() { passed=$((passed + 1)); echo "ok:   $1"; }
bad() {
    failed=$((failed + 1)); echo "FAIL: $1"
    [ -f "$work/$case/out" ] && sed 's/^/    | /' "$work/$case/out" | tail -n 15
}
skip() { skipped=$((skipped + 1)); echo "skip: $1"; }

# expect_rc N WHAT: the last configure exited N (0, or nonzero for 1).
expect_rc() {
    if [ "$1" -eq 0 ] && [ "$rc" -eq 0 ]; then ok "$case: $2"
    elif [ "$1" -ne 0 ] && [ "$rc" -ne 0 ] && [ "$rc" -ne 99 ]; then ok "$case: $2"
    else bad "$case: $2 (exit $rc)"
    fi
}
# expect_out ERE WHAT: configure's output has a line matching ERE.
expect_out() {
    if grep -Eq -- "$1" "$work/$case/out"; then ok "$case: $2"; else bad "$case: $2"; fi
}
# expect_file FILE ERE WHAT: FILE in the build directory has a line matching ERE.
expect_file() {
    if grep -Eq -- "$2" "$work/$case/$1" 2>/dev/null; then ok "$case: $3"; else bad "$case: $3"; fi
}
expect_no_file() {
    if ! grep -Eq -- "$2" "$work/$case/$1" 2>/dev/null; then ok "$case: $3"; else bad "$case: $3"; fi
}

# --help: both spellings of each switch, and the two precious variables.
case=help
cfg help -- --help
expect_rc 0 "--help"
for w in '--with-cuda\[=DIR\]' '--without-cuda ' '--with-cuda-arch=LIST' '--with-mpi ' \
         '--without-mpi ' '^  NVCC ' '^  NVCCFLAGS '; do
    expect_out "$w" "--help lists '$w'"
done

# Neither: each says why.
case=without
cfg without -- --without-cuda --without-mpi
expect_rc 0 "--without-cuda --without-mpi"
expect_out '^  CUDA: +no: --without-cuda$' "summary: CUDA not used, --without-cuda"
expect_out '^  MPI: +no: --without-mpi$' "summary: MPI not used, --without-mpi"
expect_no_file config.h 'define HAVE_CUDA' "no HAVE_CUDA"
expect_no_file Makefile '^am__EXEEXT_[0-9]+ = src/gpusort-mpi' "no gpusort-mpi"
expect_no_file Makefile '^man_MANS = man/gpusort-mpi.1' "nor its page"

case=sanitizers
cfg sanitizers -- --enable-sanitizers
expect_rc 0 "--enable-sanitizers"
expect_out '^  CUDA: +no: not looked for in a sanitizer build \(--with-cuda asks for it\)$' \
    "summary: CUDA not looked for"
expect_out '^  MPI: +no: not looked for in a sanitizer build \(--with-mpi asks for it\)$' \
    "summary: MPI not looked for"

# MPI: found and used unasked (the summary says how to leave it out), asked for,
# and not found (pkg-config pointed at an empty directory; LZ4 and Check given).
if pkg-config --exists ompi-c 2>/dev/null || pkg-config --exists mpich 2>/dev/null; then
    case=mpi-found
    cfg mpi-found -- --without-cuda
    expect_rc 0 "MPI found"
    expect_out '^  MPI: +yes: (ompi-c|mpich) found, not asked for; gpusort-mpi is built and installed$' \
        "summary: MPI used, not asked for"
    expect_out '^ +\(--without-mpi leaves it out\)$' "summary: how to leave MPI out"
    expect_file Makefile '^am__EXEEXT_[0-9]+ = src/gpusort-mpi' "gpusort-mpi built"
    expect_file Makefile '^man_MANS = man/gpusort-mpi.1' "its page installed"
    case=mpi-asked
    cfg mpi-asked -- --without-cuda --with-mpi
    expect_rc 0 "--with-mpi"
    expect_out '^  MPI: +yes: --with-mpi, (ompi-c|mpich); gpusort-mpi is built and installed$' \
        "summary: MPI used, asked for"
else
    skip "mpi-found, mpi-asked: no MPI known to pkg-config"
fi
mkdir -p "$work/nopc"
# pkg.m4 takes LZ4_CFLAGS and the others only where they are not empty.
nopc=(PKG_CONFIG_LIBDIR="$work/nopc" PKG_CONFIG_PATH= "LZ4_CFLAGS= " LZ4_LIBS=-llz4
      "CHECK_CFLAGS= " CHECK_LIBS=-lcheck)
case=mpi-none
cfg mpi-none "${nopc[@]}" -- --without-cuda
expect_rc 0 "no MPI"
expect_out '^  MPI: +no: pkg-config finds neither ompi-c nor mpich' "summary: MPI not found"
case=mpi-none-asked
cfg mpi-none-asked "${nopc[@]}" -- --without-cuda --with-mpi
expect_rc 1 "--with-mpi without MPI fails"
expect_out 'error: --with-mpi: no MPI found' "the error says so"

if [ ! -x /usr/local/cuda/bin/nvcc ]; then
    skip "every CUDA case: no /usr/local/cuda/bin/nvcc"
    echo "configure.sh: $passed passed, $failed failed, $skipped skipped"
    [ "$failed" -eq 0 ]
    exit
fi
real=$(readlink -f /usr/local/cuda)
multiarch=$(${CC:-cc} -print-multiarch 2>/dev/null)
mkdir -p "$work/empty" "$work/realcuda"

# A toolkit laid out as Debian's: usr/bin/nvcc a script that runs the real one
# (nvcc finds its headers beside itself, so a link to it would not do), the
# static runtime in usr/lib/MULTIARCH. Its nvcc runs the toolkit at $2 of the
# wrapper's making: /usr/local/cuda, or $work/realcuda where that is hidden.
# debian_layout DIR NVCC-TOOLKIT [EXTRA-SHELL]: EXTRA-SHELL runs first in the
# wrapper, to make it act as an older nvcc.
debian_layout() {
    mkdir -p "$1/usr/bin" "$1/usr/lib/$multiarch"
    {
        echo '#!/bin/sh'
        [ $# -ge 3 ] && echo "$3"
        echo "exec $2/bin/nvcc \"\$@\""
    } >"$1/usr/bin/nvcc"
    chmod +x "$1/usr/bin/nvcc"
    ln -sf "$2/lib64/libcudart_static.a" "$1/usr/lib/$multiarch/libcudart_static.a"
}

# The default: NVIDIA's /usr/local/cuda, found unasked.
case=cuda-found
cfg cuda-found -- --without-mpi
expect_rc 0 "CUDA in /usr/local/cuda"
expect_out '^  CUDA: +yes: found, not asked for \(--without-cuda builds for the CPU alone\)$' \
    "summary: CUDA used, not asked for"
expect_out '^ +nvcc: +/usr/local/cuda/bin/nvcc \(CUDA [0-9.]+\)$' "summary: nvcc and its release"
expect_out '^ +runtime: +/usr/local/cuda/lib(64)?/libcudart_static.a$' "summary: the runtime"
expect_file config.h '^#define HAVE_CUDA 1' "HAVE_CUDA"

# The user's NVCC selects that compiler (a path, no --with-cuda), and its toolkit
# is the directory above it: the runtime found in its multiarch directory.
if [ -n "$multiarch" ]; then
    debian_layout "$work/deb" /usr/local/cuda
    case=nvcc-var
    cfg nvcc-var NVCC="$work/deb/usr/bin/nvcc" -- --without-mpi
    expect_rc 0 "NVCC=.../usr/bin/nvcc"
    expect_out "^checking for nvcc\\.\\.\\. $work/deb/usr/bin/nvcc\$" "NVCC is the nvcc used"
    expect_out "^  CUDA: +yes: NVCC=$work/deb/usr/bin/nvcc\$" "summary: asked for by NVCC"
    expect_out "^ +runtime: +$work/deb/usr/lib/$multiarch/libcudart_static.a\$" \
        "runtime from the multiarch directory"
    expect_file Makefile "^NVCC = $work/deb/usr/bin/nvcc\$" "Makefile's NVCC"
    # That layout less its runtime: asked for, an error naming the file.
    mkdir -p "$work/deb-nolib/usr/bin"
    cp "$work/deb/usr/bin/nvcc" "$work/deb-nolib/usr/bin/nvcc"
    case=nvcc-var-nolib
    cfg nvcc-var-nolib NVCC="$work/deb-nolib/usr/bin/nvcc" -- --without-mpi
    expect_rc 1 "NVCC set, no runtime: an error"
    expect_out "error: found .*nvcc \\(CUDA [0-9.]+\\), but no libcudart_static.a in" \
        "the error names libcudart_static.a"
else
    skip "nvcc-var, nvcc-var-nolib: \$CC -print-multiarch says nothing"
fi

case=cuda-dir
cfg cuda-dir -- --with-cuda="$real" --without-mpi --with-cuda-arch=90
expect_rc 0 "--with-cuda=DIR"
expect_out "^  CUDA: +yes: --with-cuda=$real\$" "summary: asked for by --with-cuda=DIR"
expect_out "^ +runtime: +$real/lib64/libcudart_static.a\$" "the runtime from DIR/lib64"
expect_file config.h '^#define GS_CUDA_ARCHS "90"$' "GS_CUDA_ARCHS: the list given"

case=nvcc-missing
cfg nvcc-missing NVCC=/nonexistent/nvcc -- --without-mpi
expect_rc 1 "NVCC naming no program: an error"
expect_out 'error: NVCC=/nonexistent/nvcc: no such program' "the error names it"
case=cuda-dir-missing
cfg cuda-dir-missing -- --with-cuda=/nonexistent --without-mpi
expect_rc 1 "--with-cuda=DIR without nvcc: an error"
expect_out 'error: --with-cuda=/nonexistent: no nvcc in /nonexistent/bin' "the error names DIR/bin"

# NVCCFLAGS: the user's, kept apart from the project's and given after them.
case=nvccflags
cfg nvccflags NVCCFLAGS=-DGS_CONFIGURE_TEST=1 -- --without-mpi --with-cuda-arch=90
expect_rc 0 "NVCCFLAGS=-DGS_CONFIGURE_TEST=1"
expect_file Makefile '^NVCCFLAGS = -DGS_CONFIGURE_TEST=1$' "Makefile's NVCCFLAGS is the user's"
expect_file Makefile '^AM_NVCCFLAGS = .*\$\(NVCC_GENCODE\)' "the project's flags in AM_NVCCFLAGS"
if (cd "$work/nvccflags" && make -n V=1 kernels/device.o 2>/dev/null) |
        grep -q 'compute_90.* -DGS_CONFIGURE_TEST=1 .*device\.cu'; then
    ok "$case: nvcc is run with the user's flags after the project's"
else
    bad "$case: nvcc is run with the user's flags after the project's"
fi
case=nvccflags-bad
cfg nvccflags-bad NVCCFLAGS=--no-such-nvcc-flag -- --without-mpi --with-cuda --with-cuda-arch=90
expect_rc 1 "--with-cuda and NVCCFLAGS nvcc refuses: an error"
expect_out 'error: .*--no-such-nvcc-flag cannot build a kernel' "the error says so"

# An nvcc of CUDA 12.0's kind: no sm_100 nor sm_120 in its --list-gpu-code.
old_list='case "$1" in --list-gpu-code) printf "sm_%s\n" 50 52 53 60 61 62 70 72 75 80 86 87 89 90; exit 0;; esac'
debian_layout "$work/old" /usr/local/cuda "$old_list"
case=arch-default
cfg arch-default NVCC="$work/old/usr/bin/nvcc" -- --without-mpi
expect_rc 0 "an older nvcc, the default list"
expect_out '^configure: .*lacks compute capabilities 100,120 of the default list: building for 75,80,86,89,90$' \
    "a notice lists those left out"
expect_file config.h '^#define GS_CUDA_ARCHS "75,80,86,89,90"$' "GS_CUDA_ARCHS: those kept"
expect_file Makefile '^NVCC_GENCODE = .*code=sm_90 .*code=compute_90$' "PTX of the last kept"
case=arch-given
cfg arch-given NVCC="$work/old/usr/bin/nvcc" -- --without-mpi --with-cuda-arch=80,90,120
expect_rc 1 "an older nvcc, --with-cuda-arch naming one it lacks: an error"
expect_out 'error: --with-cuda-arch: .* cannot build for compute capability 120$' "the error names it"
case=arch-bad
cfg arch-bad -- --without-mpi --with-cuda-arch=90,sm_100
expect_rc 1 "--with-cuda-arch=90,sm_100: an error"
expect_out "error: --with-cuda-arch: bad compute capability 'sm_100'" "the error names it"

# An nvcc without --list-gpu-code: each capability tried by building a kernel (this
# one refuses sm_120).
no_list='case "$1" in --list-gpu-code|--list-gpu-arch) echo "nvcc fatal: Unknown option" >&2; exit 1;; esac
case "$*" in *sm_120*) echo "nvcc fatal: Unsupported gpu architecture" >&2; exit 1;; esac'
debian_layout "$work/nolist" /usr/local/cuda "$no_list"
case=arch-tried
cfg arch-tried NVCC="$work/nolist/usr/bin/nvcc" -- --without-mpi --with-cuda-arch=89,90
expect_rc 0 "an nvcc without --list-gpu-code, --with-cuda-arch=89,90"
expect_file config.h '^#define GS_CUDA_ARCHS "89,90"$' "both kept, by building for them"
case=arch-tried-lacks
cfg arch-tried-lacks NVCC="$work/nolist/usr/bin/nvcc" -- --without-mpi --with-cuda-arch=90,120
expect_rc 1 "an nvcc without --list-gpu-code that lacks 120, --with-cuda-arch=90,120"
expect_out 'error: --with-cuda-arch: .* cannot build for compute capability 120$' "the error names it"

# /usr/local/cuda absent: nvcc found in PATH, as Debian installs it.
if [ "$(id -u)" -ne 0 ] || ! unshare -m true 2>/dev/null; then
    skip "path-*: hiding /usr/local/cuda needs root and unshare -m"
elif [ -z "$multiarch" ]; then
    skip "path-*: \$CC -print-multiarch says nothing"
else
    debian_layout "$work/pdeb" "$work/realcuda"
    mkdir -p "$work/pdeb-nolib/usr/bin"
    cp "$work/pdeb/usr/bin/nvcc" "$work/pdeb-nolib/usr/bin/nvcc"
    case=path-none
    cfg_hidden path-none PATH=/usr/bin:/bin -- --without-mpi
    expect_rc 0 "no nvcc anywhere"
    expect_out '^  CUDA: +no: no nvcc in /usr/local/cuda/bin or PATH' "summary: CUDA not found"
    expect_no_file config.h 'define HAVE_CUDA' "no HAVE_CUDA"
    case=path-none-asked
    cfg_hidden path-none-asked PATH=/usr/bin:/bin -- --without-mpi --with-cuda
    expect_rc 1 "--with-cuda, no nvcc anywhere: an error"
    expect_out 'error: --with-cuda: no nvcc in /usr/local/cuda/bin or PATH' "the error says where it looked"
    case=path-debian
    cfg_hidden path-debian PATH="$work/pdeb/usr/bin:/usr/bin:/bin" -- --without-mpi
    expect_rc 0 "Debian's layout, nvcc in PATH"
    expect_out "^checking for nvcc\\.\\.\\. $work/pdeb/usr/bin/nvcc\$" "nvcc from PATH"
    expect_out "^ +runtime: +$work/pdeb/usr/lib/$multiarch/libcudart_static.a\$" \
        "the runtime from the multiarch directory"
    expect_file config.h '^#define HAVE_CUDA 1' "HAVE_CUDA"
    case=path-debian-asked
    cfg_hidden path-debian-asked PATH="$work/pdeb/usr/bin:/usr/bin:/bin" -- --without-mpi --with-cuda
    expect_rc 0 "Debian's layout, --with-cuda"
    expect_out '^  CUDA: +yes: --with-cuda$' "summary: asked for"
    case=path-nolib
    cfg_hidden path-nolib PATH="$work/pdeb-nolib/usr/bin:/usr/bin:/bin" -- --without-mpi
    expect_rc 0 "nvcc in PATH without its runtime: CUDA left out"
    expect_out 'WARNING: found .*nvcc \(CUDA [0-9.]+\), but no libcudart_static.a in .*: building without CUDA' \
        "a warning says why"
    expect_out '^  CUDA: +no: found .*, but no libcudart_static.a in ' "summary: why not"
    expect_no_file config.h 'define HAVE_CUDA' "no HAVE_CUDA"
    case=path-nolib-asked
    cfg_hidden path-nolib-asked PATH="$work/pdeb-nolib/usr/bin:/usr/bin:/bin" -- --without-mpi --with-cuda
    expect_rc 1 "--with-cuda, nvcc in PATH without its runtime: an error"
fi

echo "configure.sh: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
