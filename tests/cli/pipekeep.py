# SPDX-License-Identifier: MIT
# pipekeep.py: a reader of a pipe that keeps the pages it reads, as a reader that
# splices does (pv, tee(1)'s kin). python3 pipekeep.py < PIPE > OUT moves what comes
# on standard input into pipes of its own (splice(2): nothing is copied, the pipes
# hold the writer's pages), and writes it all to standard output only once the
# input has ended. A page the writer gave the pipe (vmsplice) and then wrote again
# would come out as what it held last. Past 256 pipes it reads the rest as it comes.
import fcntl
import os
import select
import sys

F_SETPIPE_SZ = 1031
KEEP_PIPES = 256
kept, rest = [], []   # kept: (read end, write end) of each pipe, in order
src = sys.stdin.fileno()
wait_in = select.poll()
wait_in.register(src, select.POLLIN)


def has_room(fd):
    p = select.poll()
    p.register(fd, select.POLLOUT)
    return bool(p.poll(0))


while True:
    wait_in.poll()   # something to read, or the end
    if kept and has_room(kept[-1][1]):
        try:
            m = os.splice(src, kept[-1][1], 1 << 20, flags=os.SPLICE_F_NONBLOCK)
        except BlockingIOError:
            continue
        if m == 0:
            break
    elif len(kept) < KEEP_PIPES:
        r, w = os.pipe()
        try:
            fcntl.fcntl(w, F_SETPIPE_SZ, 1 << 20)
        except OSError:
            pass   # the default size, where a larger one is not allowed
        kept.append((r, w))
    else:
        b = os.read(src, 1 << 20)
        if not b:
            break
        rest.append(b)
out = sys.stdout.buffer
for r, w in kept:
    os.close(w)
    while True:
        b = os.read(r, 1 << 20)
        if not b:
            break
        out.write(b)
    os.close(r)
for b in rest:
    out.write(b)
out.flush()
