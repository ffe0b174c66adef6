/* SPDX-License-Identifier: MIT */
/* main.c: gpusort-mpi, gpusort over MPI: a distributed sample sort whose ranks each
 * sort with gpusort's engine.
 *
 *   share.c    each rank's byte ranges of the inputs, cut at records' starts
 *   local.c    the engine on them (byte ranges of the inputs), into a scratch file
 *   split.c    regular samples of the sorted keys -> splitters -> each rank's parts
 *   exchange.c the parts all-to-all, in rounds bounded by -S
 *   merge.c    the parts received, mapped, cut into a piece a thread by key: the
 *              bytes the rank will write
 *   place.c    the output opened; from the ranks' byte counts, each rank's offset
 *   merge.c    the pieces merged by the threads straight into the output at the
 *              rank's offset (else into a scratch file, copied by place.c); bare
 *              numbers sorted again by the engine instead (local.c)
 *   agree.c    after each step, one outcome for all ranks, one message at most
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/options.h"
#include "cluster/agree.h"
#include "cluster/exchange.h"
#include "cluster/local.h"
#include "cluster/merge.h"
#include "cluster/place.h"
#include "cluster/share.h"
#include "cluster/split.h"
#include "core/cleanup.h"
#include "core/error.h"
#include "core/stdfds.h"
#include "core/tuning.h"
#include "merge/splitters.h"

static int me = 0, nranks = 1;

static void mpi_usage(void)
{
    if (me != 0)
        return;
    fputs("Usage: mpirun -n N gpusort-mpi [OPTION]... FILE... [-o OUT]\n"
          "Sort as gpusort does, over N MPI ranks: each rank sorts its share of the FILEs\n"
          "with gpusort's engine (on its GPUs or CPU), the ranks exchange key ranges, and\n"
          "each merges its range and writes it at its place in OUT (standard output:\n"
          "through rank 0).\n"
          "\n"
          "The options are gpusort's (gpusort --help); -m, -c and -C are not taken, and\n"
          "the FILEs must be regular files (each rank reads its own byte ranges).\n"
          "      --output-parts   with -o OUT: rank R writes its range alone to OUT.R\n"
          "                       (R zero-padded), the header (--header) to part 0\n"
          "      --help           show this help and exit\n"
          "      --version        show the version and exit\n"
          "\n"
          "Exit status: 0 on success, 2 on any error (one message, from one rank).\n",
          stdout);
}

static void mpi_version(void)
{
    if (me != 0)
        return;
    int len;
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    MPI_Get_library_version(lib, &len);
    char *nl = strchr(lib, '\n');
    if (nl)
        *nl = '\0';
    printf("gpusort-mpi %s\n", PACKAGE_VERSION);
    printf("Built with MPI: %s\n", lib);
}

/* Take --output-parts out of argv (it is ours, not gpusort's): 1 where it was there.
 * Operands after "--" are left alone. */
static int take_parts(int *argc, char **argv)
{
    int parts = 0, k = 1;
    for (int i = 1; i < *argc; i++) {
        if (strcmp(argv[i], "--") == 0) {
            while (i < *argc)
                argv[k++] = argv[i++];
            break;
        }
        if (strcmp(argv[i], "--output-parts") == 0)
            parts = 1;
        else
            argv[k++] = argv[i];
    }
    *argc = k;
    argv[k] = NULL;
    return parts;
}

/* What gpusort-mpi does not take. */
static int check_settings(const settings_t *s, int parts)
{
    if (s->mode != MODE_SORT)
        return err_set(GS_EUSAGE, "-m, -c and -C are not taken by gpusort-mpi: "
                       "use gpusort for them");
    if (parts && !s->output)
        return err_set(GS_EUSAGE, "--output-parts needs -o FILE");
    return GS_OK;
}

/* The splitters: every rank's samples, sorted, regularly chosen: nranks - 1 of
 * them into split[] (none where there are no keys). */
static int choose_splitters(const sorted_t *s, uint64_t *split, int *nsplit)
{
    size_t count = (size_t)SAMPLES_A_RANK * (size_t)nranks, n;
    uint64_t *mine = malloc(count * sizeof *mine);
    int *counts = malloc((size_t)nranks * sizeof *counts);
    int *displs = malloc((size_t)nranks * sizeof *displs);
    int ok = mine && counts && displs;
    if (ok)
        sorted_sample(s, count, mine, &n);
    else
        n = 0;
    int have = (int)n, total = 0;
    MPI_Allgather(&have, 1, MPI_INT, counts ? counts : &have, 1, MPI_INT, MPI_COMM_WORLD);
    for (int r = 0; ok && r < nranks; r++) {
        displs[r] = total;
        total += counts[r];
    }
    uint64_t *all = ok ? malloc(((size_t)total + 1) * sizeof *all) : NULL;
    sample_t *smp = ok ? malloc(((size_t)total + 1) * sizeof *smp) : NULL;
    int bad = !ok || !all || !smp;
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (!bad)
        MPI_Allgatherv(mine, have, MPI_UINT64_T, all, counts, displs, MPI_UINT64_T,
                       MPI_COMM_WORLD);
    *nsplit = 0;
    if (!bad && total > 0) {
        for (int i = 0; i < total; i++)
            smp[i] = (sample_t){ all[i], 1 };
        *nsplit = (int)splitters_choose(smp, (size_t)total, (size_t)nranks, 0, split);
    }
    free(smp);
    free(all);
    free(mine);
    free(counts);
    free(displs);
    return bad ? err_set(GS_ENOMEM, "out of memory") : GS_OK;
}

/* Each rank's times and bytes, printed by rank 0 (--stats). */
enum { T_SORT, T_SPLIT, T_EXCHANGE, T_MERGE, T_WRITE, T_COUNT };
enum { B_SHARE, B_SENT, B_RECEIVED, B_OUT, B_COUNT };

static void print_stats(const double *t, const uint64_t *b)
{
    double *tt = me == 0 ? malloc((size_t)nranks * T_COUNT * sizeof *tt) : NULL;
    uint64_t *bb = me == 0 ? malloc((size_t)nranks * B_COUNT * sizeof *bb) : NULL;
    int ok = me != 0 || (tt && bb);
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!ok) {
        free(tt);
        free(bb);
        return;
    }
    MPI_Gather(t, T_COUNT, MPI_DOUBLE, tt, T_COUNT, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    MPI_Gather(b, B_COUNT, MPI_UINT64_T, bb, B_COUNT, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    if (me == 0) {
        double most[T_COUNT] = { 0 };
        uint64_t sum[B_COUNT] = { 0 };
        fprintf(stderr, "gpusort-mpi: --stats, %d ranks (seconds; bytes)\n", nranks);
        fprintf(stderr, "  %-5s %8s %8s %9s %8s %8s  %14s %14s %14s %14s\n", "rank",
                "sort", "split", "exchange", "merge", "write", "share", "sent",
                "received", "output");
        for (int r = 0; r < nranks; r++) {
            const double *x = tt + (size_t)r * T_COUNT;
            const uint64_t *y = bb + (size_t)r * B_COUNT;
            fprintf(stderr, "  %-5d %8.3f %8.3f %9.3f %8.3f %8.3f  %14llu %14llu %14llu "
                    "%14llu\n", r, x[T_SORT], x[T_SPLIT], x[T_EXCHANGE], x[T_MERGE],
                    x[T_WRITE], (unsigned long long)y[B_SHARE],
                    (unsigned long long)y[B_SENT], (unsigned long long)y[B_RECEIVED],
                    (unsigned long long)y[B_OUT]);
            for (int k = 0; k < T_COUNT; k++)
                most[k] = x[k] > most[k] ? x[k] : most[k];
            for (int k = 0; k < B_COUNT; k++)
                sum[k] += y[k];
        }
        fprintf(stderr, "  %-5s %8.3f %8.3f %9.3f %8.3f %8.3f  %14llu %14llu %14llu "
                "%14llu\n", "all", most[T_SORT], most[T_SPLIT], most[T_EXCHANGE],
                most[T_MERGE],
                most[T_WRITE], (unsigned long long)sum[B_SHARE],
                (unsigned long long)sum[B_SENT], (unsigned long long)sum[B_RECEIVED],
                (unsigned long long)sum[B_OUT]);
        fputs("  (all: the slowest rank's seconds, the ranks' bytes summed; sort: the share\n"
              "   read where it is and sorted; split: the cuts chosen; merge: the parts\n"
              "   received merged (bare numbers: sorted again); write: the output opened\n"
              "   and committed, and what was not written in place; sent and received:\n"
              "   to and from other ranks)\n", stderr);
    }
    free(tt);
    free(bb);
}

/* The job, after the options: every step, each followed by an agreement. */
static int sort_job(const settings_t *set, int parts)
{
    double t[T_COUNT] = { 0 }, t0 = MPI_Wtime();
    uint64_t b[B_COUNT] = { 0 };
    share_t sh;
    settings_t scratch;   /* how the ranks' sorted shares are written (local.h) */
    local_scratch(set, &scratch);
    sorted_t sorted = { 0 };
    char *header = NULL;
    size_t hlen = 0;
    int mine = -1, merged = -1, *parts_in = NULL;
    uint64_t size = 0, msize = 0, *got = NULL, *cuts = NULL, *split = NULL, *offs = NULL;
    int rc = share_plan(set, me, nranks, &sh);
    if (rc == GS_OK && set->header && me == 0)
        rc = share_header(set, &sh, &header, &hlen);
    for (int k = 0; k < sh.nspans; k++)
        b[B_SHARE] += sh.spans[k].len;
    if ((rc = agree(MPI_COMM_WORLD, rc)) == GS_OK)
        rc = agree(MPI_COMM_WORLD, local_sort(set, &sh, &mine, &size));
    t[T_SORT] = MPI_Wtime() - t0;

    int nsplit = 0;
    if (rc == GS_OK) {
        t0 = MPI_Wtime();
        split = malloc((size_t)nranks * sizeof *split);
        cuts = malloc(((size_t)nranks + 1) * sizeof *cuts);
        got = malloc((size_t)nranks * sizeof *got);
        parts_in = malloc((size_t)nranks * sizeof *parts_in);
        offs = calloc((size_t)nranks, sizeof *offs);
        int r = split && cuts && got && parts_in && offs ? GS_OK
                                                         : err_set(GS_ENOMEM, "out of memory");
        for (int j = 0; parts_in && j < nranks; j++)
            parts_in[j] = -1;   /* none yet: exchange_parts() makes them */
        if (r == GS_OK)
            r = sorted_open(&sorted, &scratch, mine, 0, size);
        rc = agree(MPI_COMM_WORLD, r);
    }
    if (rc == GS_OK)
        rc = agree(MPI_COMM_WORLD, choose_splitters(&sorted, split, &nsplit));
    if (rc == GS_OK) {
        /* part j: the keys in (split[j-1], split[j]]; the last, every key after */
        cuts[0] = 0;
        for (int j = 1; j < nranks; j++)
            cuts[j] = nsplit ? sorted_after(&sorted, split[j - 1]) : size;
        cuts[nranks] = size;
        t[T_SPLIT] = MPI_Wtime() - t0;
        t0 = MPI_Wtime();
        size_t round = set->buffer_bytes / 8 / (size_t)nranks;   /* two rounds: -S / 4 */
        round = round < ROUND_MIN ? ROUND_MIN : round > ROUND_MAX ? ROUND_MAX : round;
        int r = exchange_parts(MPI_COMM_WORLD, sorted.map.data, cuts, round, set->tmpdir, parts_in,
                               got);
        /* The own part is read where it lies in the sorted share, not copied. */
        if (r == GS_OK && got[me] && (parts_in[me] = fcntl(mine, F_DUPFD_CLOEXEC, 3)) < 0)
            r = err_sys(GS_EIO, errno, "cannot read a temporary file");
        offs[me] = cuts[me];
        rc = agree(MPI_COMM_WORLD, r);
        for (int j = 0; j < nranks; j++)
            if (j != me) {
                b[B_SENT] += cuts[j + 1] - cuts[j];
                b[B_RECEIVED] += got[j];
            }
        t[T_EXCHANGE] = MPI_Wtime() - t0;
    }
    sorted_close(&sorted);
    if (mine >= 0)
        close(mine);
    /* The merge planned before the output is opened: each rank knows its bytes
     * (under -u, counted by a merge that writes nothing), and so its offset, and
     * merges straight into the output there (else into a scratch file, copied
     * after). */
    merge_t *mg = NULL;
    place_t *pl = NULL;
    int direct = -1, settled = 0;
    if (rc == GS_OK) {
        t0 = MPI_Wtime();
        rc = agree(MPI_COMM_WORLD, merge_plan(set, parts_in, offs, got, nranks, &mg, &msize));
        t[T_MERGE] = MPI_Wtime() - t0;
    }
    if (rc == GS_OK) {
        t0 = MPI_Wtime();
        rc = place_begin(MPI_COMM_WORLD, set, parts, header, hlen, msize, &pl, &direct);
        settled = rc != GS_OK;
        t[T_WRITE] = MPI_Wtime() - t0;
    }
    if (rc == GS_OK) {
        t0 = MPI_Wtime();
        rc = agree(MPI_COMM_WORLD, merge_write(mg, direct, &merged));
        settled = rc != GS_OK;
        t[T_MERGE] += MPI_Wtime() - t0;
    }
    merge_free(mg);
    for (int j = 0; parts_in && j < nranks; j++)
        if (parts_in[j] >= 0)
            close(parts_in[j]);
    if (pl) {
        t0 = MPI_Wtime();
        if (rc == GS_OK && direct < 0)
            rc = place_write(pl, merged, msize);
        rc = place_end(pl, rc, settled);
        t[T_WRITE] += MPI_Wtime() - t0;
        b[B_OUT] = msize + (me == 0 ? hlen : 0);
    }
    if (merged >= 0)
        close(merged);
    if (rc == GS_OK && set->stats)
        print_stats(t, b);
    share_free(&sh);
    free(header);
    free(split);
    free(cuts);
    free(got);
    free(offs);
    free(parts_in);
    return rc;
}

int main(int argc, char **argv)
{
    err_set_program("gpusort-mpi");
    opt_serve_with(mpi_usage, mpi_version);
    int e = stdfds_open(), rc = GS_OK;
    if (e)
        rc = err_sys(GS_EIO, e, "cannot open /dev/null for a closed standard descriptor");
    /* The signals' thread first: the threads MPI starts inherit the signals blocked,
     * so that a SIGTERM (mpirun stopping the job) reaches the thread that removes
     * the temporary files, not one of MPI's, which would die of it. */
    if (rc == GS_OK)
        rc = cleanup_init();
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    opts_t o;
    settings_t s = { 0 };
    int parts = take_parts(&argc, argv);
    if (rc == GS_OK)
        rc = opt_parse(argc, argv, &o);
    if (rc == GS_EXIT_OK && me == 0 && (fflush(stdout) != 0 || ferror(stdout)))
        rc = err_set(GS_EIO, "write error on 'standard output'");
    if (rc == GS_OK)
        rc = opt_settings(&o, &s);
    if (rc == GS_OK)
        rc = check_settings(&s, parts);
    if (rc == GS_EXIT_OK)
        rc = agree(MPI_COMM_WORLD, GS_OK) == GS_OK ? GS_EXIT_OK : AGREE_PEER;
    else
        rc = agree(MPI_COMM_WORLD, rc);
    if (rc == GS_OK)
        rc = sort_job(&s, parts);
    opt_settings_free(&s);
    cleanup_remove_all();
    if (rc != AGREE_PEER) {
        gs_error_t e = err_take(rc);
        err_report(&e);
        err_free(&e);
    }
    MPI_Finalize();
    return rc == GS_OK || rc == GS_EXIT_OK ? 0 : 2;
}
