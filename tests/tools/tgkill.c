/* SPDX-License-Identifier: MIT */
/* tgkill.c: send a signal to one thread of a process (a test helper: the shell's kill
 * sends to the process, which the kernel gives to any thread that does not block it).
 * Usage: tgkill PID TID SIGNAL-NUMBER. Exit 0 if sent, 1 if not. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: tgkill PID TID SIGNAL\n");
        return 2;
    }
    long pid = strtol(argv[1], NULL, 10), tid = strtol(argv[2], NULL, 10);
    long sig = strtol(argv[3], NULL, 10);
    if (syscall(SYS_tgkill, pid, tid, sig) != 0) {
        perror("tgkill");
        return 1;
    }
    return 0;
}
