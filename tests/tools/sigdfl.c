/* SPDX-License-Identifier: MIT */
/* sigdfl.c: run a command with every signal at its default action and none blocked
 * (a test helper: a test run under nohup, or as a background job of a shell without
 * job control, starts with SIGHUP, or SIGINT and SIGQUIT, ignored, which a shell
 * cannot undo and gpusort keeps, as sort does).
 * Usage: sigdfl COMMAND [ARG]...; exits 127 if COMMAND cannot be run. */
#include <config.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: sigdfl COMMAND [ARG]...\n");
        return 2;
    }
    for (int sig = 1; sig < NSIG; sig++)
        if (sig != SIGKILL && sig != SIGSTOP)
            signal(sig, SIG_DFL);   /* fails harmlessly for the few that cannot be set */
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    execvp(argv[1], argv + 1);
    fprintf(stderr, "sigdfl: cannot run %s: %s\n", argv[1], strerror(errno));
    return 127;
}
