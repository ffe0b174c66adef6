/* SPDX-License-Identifier: MIT */
/* output_impl.h: the output's state, shared by its parts: outfile.c (the
 * destination and the atomic -o), writer.c (formatting and writing in order),
 * hand.c (pieces handed over in buffers), placed.c (text formatted straight into
 * the file's pages) and ahead.c (zeros written ahead). Not for other modules: their interface is output.h (the unit
 * tests look at two counts, at the end).
 */
#ifndef GS_OUTPUT_IMPL_H
#define GS_OUTPUT_IMPL_H

#include <stdint.h>
#include <sys/types.h>

#include "core/job.h"
#include "io/output.h"

/* One batch: a buffer per pool thread, written in order. */
typedef struct {
    char **bufs;             /* [threads] */
    size_t *lens;            /* [threads] bytes to write from each */
    char *map;               /* text into a pipe: the batch's buffers instead, fresh
                                pages from mem_map() (bufsize a thread), given to the
                                pipe and unmapped by the writer job; else NULL */
    size_t map_bytes;
} out_batch_t;

/* The writer job's argument: which set it writes. */
typedef struct {
    output_t *o;
    int set;
} out_wjob_t;

struct output {
    output_cfg_t cfg;
    int fd;
    int out;                 /* the descriptor standing for standard output: cfg.fd,
                                or STDOUT_FILENO (never closed here) */
    char *name;              /* for messages: -o's FILE (escaped), or "standard output" */
    int dirfd;               /* with a temporary: FILE's directory, */
    char *base;              /* FILE's name in it, */
    char *tmp_path;          /* and the temporary's (NULL: writing directly) */
    int slot;                /* the temporary's cleanup slot */
    char *inplace;           /* FILE written in place (outfile.c), opened at the first
                                write; else NULL */
    int aside;               /* 1: the destination (inplace, else standard output) is
                                one of the inputs: tmp_path is a temporary under
                                -T, copied into it at the commit */
    int threads;
    int solo;                /* 1: binary batches are encoded by the caller alone
                                (from the first piece handed over: hand.c) */
    size_t bufsize;          /* bytes in each batch buffer */
    out_batch_t sets[2];     /* formatted by the pool, written by the writer job */
    int have_sets;           /* 1: sets[] are allocated */
    int cur;                 /* the set the pool fills next */
    const void *keys;        /* the batch being formatted */
    size_t nkeys;
    unsigned long long bytes;
    unsigned long long mapped;   /* of them, written mapped */
    size_t page;             /* the page size */
    off_t place_pos;         /* where the placed bytes start (output_place_begin), */
    size_t place_lead;       /* and their offset in the mapping's first page */
    int map_fd;              /* out's file opened again to be mapped
                                (outfile.c), or -1 */
    /* the writer job: writes each full set in turn, the pool filling the other */
    job_t writer;
    out_wjob_t wjob[2];
    int werr;                /* its first error code (atomic) */
    /* writing ahead (ahead.c) */
    job_t ahead;
    int ahead_posted;        /* 1: the zeros' job was posted and not yet stopped */
    int ahead_stop;          /* 1: it stops at its next piece (atomic) */
    int ahead_used;          /* 1: zeros were written: the file is cut at the commit */
    uint64_t ahead_bound;    /* bytes it writes at most */
    uint64_t ahead_done;     /* bytes of zeros from the start of the file (after it
                                stopped); 0 once placing took them */
    double ahead_seconds;
    /* pieces handed over (hand.c) */
    int pipe_known;          /* 1: pipe is decided (hand.c, at the first ask) */
    int pipe;                /* 1: the output is a pipe */
    job_t hand;              /* writes binary pieces while the producer goes on */
    int hand_rc;             /* the first error of a piece handed over */
    void *hand_buf;          /* the piece being written: its buffer, */
    size_t hand_bytes;
    const void *hand_keys;   /* and its keys */
    size_t hand_n;
};

/* The byte that ends each line of text: LF, or NUL with -z. */
static inline char output_term(const output_t *o)
{
    return o->cfg.zero_terminated ? '\0' : '\n';
}

/* writer.c: write buf[0..len) at the file's position, every byte or an error
 * (GS_EPIPE where the reader went away and SIGPIPE is ignored). */
int output_write_all(output_t *o, const void *buf, size_t len);

/* hand.c: 1 where bytes made in buffers of the output's or copied from the
 * caller's are given to this output as fresh pages (output_give, output_give_copy)
 * rather than written: a pipe, on WRITE_GIVE_MIN_THREADS threads or more (fewer:
 * write(2), faster on 2). The one place of that choice; a producer's own fresh
 * buffers (output_hands().kept) are given on any count. */
int output_gives(output_t *o);

/* hand.c: buf[0..len) into the pipe by its pages (vmsplice(2)), else written
 * (output_write_all), from the caller's thread: the pages must never be written
 * again (mem_map()'s, unmapped after), since the pipe holds them until they are
 * read, however long after. GS_OK or the error; the caller counts the bytes. */
int output_splice(output_t *o, const void *buf, size_t len);

/* hand.c: buf[0..len), in fresh pages never written again, into the pipe by their
 * pages (output_splice) after what the writer holds, and counted; map (map_bytes,
 * from mem_map(), the pages of buf or more) is unmapped then, NULL: the caller's to
 * unmap. GS_OK or the error. */
int output_give(output_t *o, void *map, size_t map_bytes, const void *buf, size_t len);

/* hand.c: buf[0..len), binary keys that are their own encoding or bytes in the
 * output's format, into the pipe (writer.c, where output_gives()): copied into
 * fresh pages WRITE_GIVE_PIECE at a time, which are given to it (vmsplice(2)), and
 * counted; the caller's buffer is free again on return. From the thread that
 * writes, never one of the pool's. GS_OK or the error. */
int output_give_copy(output_t *o, const void *buf, size_t len);

/* writer.c: 1 where the mapped keys are their own binary encoding (unsigned, this
 * host's byte order): written as they are. */
int output_identity(const output_t *o);

/* writer.c: n mapped keys in the output's format (text lines or binary) into dst,
 * which has room for n * output_max_bytes(o); the bytes. Pure and thread-safe. */
size_t output_format(const output_t *o, const void *keys, size_t n, void *dst);

/* writer.c: wait until the writer job has written everything handed to it; its
 * first error. */
int output_drain(output_t *o);

/* writer.c: free the batch buffers and end the writer job (after output_drain). */
void output_writer_free(output_t *o);

/* outfile.c: open FILE where it is written in place and not yet opened (truncating
 * it): before anything is written. GS_OK or the error. */
int output_target_fd(output_t *o);

/* ahead.c: start writing zeros ahead where the configuration asks for it and that
 * pays (output_cfg_t.ahead_keys); from output_open(). */
void output_ahead_start(output_t *o);

/* ahead.c: stop writing zeros ahead, before anything else is written. */
void output_ahead_end(output_t *o);

/* placed.c: before bytes are laid out at offsets from the file's position (placed,
 * spread): what the writer holds written, FILE opened where it is written in place,
 * the zeros-ahead job stopped. GS_OK or the error. */
int output_settle(output_t *o);

/* ahead.c: stop writing ahead and cut the zeros that no output overwrote. */
int output_ahead_cut(output_t *o);

/* placed.c: keys[0..n), text sorted or not, or binary sorted (a whole chunk),
 * laid out and written by every pool thread at its offset, each its
 * share (ext4 takes one write(2) at a time per file: doc/perf/RESULTS.md): GS_OK,
 * an error, or OUTPUT_PLAIN where that does not apply (few keys, one thread; binary:
 * a writer on another thread (solo); the output written in order) and the caller
 * writes the keys through the batches. */
#define OUTPUT_PLAIN (-1)
int output_write_placed(output_t *o, const void *keys, size_t n, int sorted);

/* placed.c: 1 where this many keys are worth placing: to a file written from a
 * position, on two threads or more; text of WRITE_KEYS_A_THREAD keys a thread or
 * more, binary of WRITE_PLACE_BINARY_MIN bytes or more with no writer on another
 * thread (solo). */
int output_place_worth(const output_t *o, uint64_t keys);

/* ---- placed.c and spread.c: the laid-out bytes' two ways (pieces.c chooses) ---- */

/* Reserve (fallocate) and map the next total bytes of the file: GS_OK and *base;
 * GS_OK and *base NULL where that cannot be (a position in the middle of a page,
 * no fallocate, no mapping). Everything written before goes first. */
int output_place_begin(output_t *o, uint64_t total, char **base);

/* Unmap base (NULL: nothing to do); with ok, the total bytes count as written and
 * the file goes on after them; without, only unmap. */
int output_place_end(output_t *o, char *base, uint64_t total, int ok);

/* Bytes copied in place, from *at up to p (p at most end): counted, *at moved to
 * p, and the pages filled since *released let go of once they add up to a window's
 * step or reach end. Thread-safe for disjoint ranges. */
void output_placed(const output_t *o, char **at, char *p, char *end, char **released);

/* Where the output is a file written from a position (-o's temporary, or standard
 * output that is a regular file), get ready for the next total bytes to be written at
 * their offsets by many threads: GS_OK, *fd the descriptor and *pos the offset of the
 * first byte; *fd -1 where it cannot be (write in order instead). Everything written
 * before goes first. */
int output_spread_begin(output_t *o, uint64_t total, int *fd, uint64_t *pos);

/* Write len bytes at offset off of fd (from output_spread_begin); thread-safe. */
int output_spread_write(const output_t *o, int fd, const void *buf, size_t len, uint64_t off);

/* The total bytes from pos written (ok): the file goes on after them. */
int output_spread_end(output_t *o, uint64_t pos, uint64_t total, int ok);

/* ---- what the unit tests look at (tests/unit/check_output.c, check_smerge.c) ---- */

/* Bytes written so far. */
unsigned long long output_bytes(const output_t *o);

/* Of them, the bytes laid out and written mapped, into -o's temporary or a regular
 * file on standard output, where the file system has fallocate(2): text of
 * WRITE_KEYS_A_THREAD keys a thread or more (two threads or more) in one
 * output_write(), a sorted chunk of binary keys, and what producers lay out. */
unsigned long long output_bytes_mapped(const output_t *o);

#endif
