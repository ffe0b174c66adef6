/* SPDX-License-Identifier: MIT */
/* tuning.h: every constant of gpusort that was chosen by measuring, in one place.
 *
 * One line each: what it sets. Why it has its value, with the figures and the
 * commands that gave them, is in doc/perf/TUNING.md under the constant's name.
 * Constants that a format or an algorithm fixes (the bytes of a line, the keys of a
 * spilled block) stay beside the code that needs them.
 */
#ifndef GS_TUNING_H
#define GS_TUNING_H

#include <stddef.h>
#include <stdint.h>

/* ---- memory and threads (core/) ------------------------------------------------- */
#define MEM_HUGE_MIN ((size_t)8 << 20)          /* buffers this large ask for huge pages */
#define MEM_PARALLEL_MIN ((size_t)4 << 20)      /* copies and first touches this large are shared out */
#define PIPE_BYTES (1 << 20)                    /* a pipe at either end is grown to this */
#define FDIO_COPY_BUF ((size_t)1 << 20)         /* fdio_copy()'s buffer, where the kernel does not copy */

/* ---- reading (io/reader) --------------------------------------------------------- */
#define READ_BLOCK_DEFAULT ((size_t)16 << 20)   /* a reader's block when its caller names none */
#define READ_PIECES_A_THREAD 4                  /* a text block's pieces for each scanning thread */
#define READ_PARALLEL_MIN ((size_t)256 << 10)   /* smaller blocks are scanned by one thread */
#define READ_AHEAD_MIN ((size_t)1 << 20)        /* blocks this large are read ahead */
#define READ_THREADS_MIN 4                      /* a regular file's pread threads, at least */
#define READ_THREADS_MAX 16                     /* and at most */
#define READ_PIECE ((size_t)1 << 20)            /* bytes one pread thread reads at a time */
#define READ_MAP_MIN ((uint64_t)1 << 20)        /* text files this large are read mapped */

/* ---- writing (io/writer, io/placed, io/ahead) ------------------------------------ */
#define WRITE_KEYS_A_THREAD ((size_t)64 << 10)  /* keys a thread formats a batch; the least a thread places */
#define WRITE_BINARY_A_THREAD ((size_t)1 << 20) /* bytes of binary keys a thread encodes a batch, */
#define WRITE_BINARY_MIN ((size_t)4 << 20)      /*   and a binary batch's bytes at least */
#define WRITE_PARALLEL_KEYS 4096                /* fewer keys in a text batch: formatted by one thread */
#define WRITE_PLACE_BINARY_MIN ((size_t)8 << 20) /* a sorted chunk of binary keys placed from this many bytes */
#define WRITE_RELEASE ((size_t)4 << 20)         /* placed text: bytes a thread fills between releases */
#define WRITE_GIVE_PIECE ((size_t)8 << 20)      /* keys given to a pipe copied into fresh pages this many bytes a time; text formatted into fresh pages, */
#define WRITE_GIVE_MIN_THREADS 4                /*   on this many threads or more (fewer: write(2)) */
#define WRITE_GIVE_MIN_BYTES ((size_t)64 << 10)  /* bytes written at once given so from this many (a header: write(2)) */
#define WRITE_AHEAD_PIECE ((size_t)4 << 20)     /* zeros written ahead this many bytes a call */
#define WRITE_AHEAD_MIN_THREADS 16              /* zeros are written ahead on this many threads or more */

/* ---- the sort pipeline (pipeline/) ----------------------------------------------- */
#define SORT_MIN_BUDGET ((size_t)1 << 20)       /* -S is raised to this */
#define THREAD_BYTES ((size_t)6 << 20)          /* a thread's own buffers, at most: threads <= -S / 2 of these (two always) */
#define SORT_BLOCK_A_THREAD ((size_t)4 << 20)   /* read block for each thread, within: */
#define SORT_BLOCK_MIN ((size_t)64 << 10)       /*   at least this, */
#define SORT_BLOCK_MAX ((size_t)64 << 20)       /*   at most this (and an eighth of -S) */
#define SORT_DIRECT_KEYS ((size_t)1 << 24)      /* binary keys read straight into a chunk at a time */
#define CHUNK_FIRST_KEYS ((uint64_t)1 << 20)    /* a chunk not made for its limit has room for this many keys at first */
#define SORT_GPU_MIN_KEYS ((size_t)1 << 20)     /* smaller chunks are sorted on the CPU even with a GPU */
#define SORT_GPU_KEYS_A_THREAD ((uint64_t)1 << 25) /* --device=auto: fewer keys a CPU thread stay on the CPU */
#define TEXT_GPU_KEYS_A_THREAD ((uint64_t)3 << 23) /* the same for text a GPU parses (stream_text.c) */
/* --device=auto for records: their keys go to the GPU sooner, since the CPU sorts
 * them as 64-bit words or as pairs, several times slower a key than bare keys */
#define RECORDS_GPU_KEYS_A_THREAD ((uint64_t)1 << 20)
#define MERGEFILES_BLOCKS ((size_t)64 << 20)    /* -m: read blocks of all inputs together, */
#define MERGEFILES_BLOCK_MIN ((size_t)64 << 10) /*   each at least this, */
#define MERGEFILES_BLOCK_MAX ((size_t)16 << 20) /*   at most this */

/* ---- the run store (store/) ------------------------------------------------------- */
#define RUN_BLOCK_KEYS ((size_t)16 << 10)       /* keys in a spilled block */
#define RUN_SPILL_BLOCKS 32                     /* blocks a thread encodes a batch while spilling */
#define SPILL_RECORD_FILES 16                   /* records' runs: temporary files at most, one a packing thread */

/* ---- merging (merge/) ------------------------------------------------------------- */
#define PM_BATCH ((size_t)16 << 10)             /* keys merged between two prepare() calls */
#define TURNS_STREAM ((size_t)512 << 10)        /* bytes the thread with the turn hands on at once */
#define PM_HOLD_MAX ((size_t)256 << 20)         /* bytes a thread holds before its turn, at most */
#define PM_PLACED_PIECE_MAX ((size_t)4 << 20)   /* placed: keys a piece takes, at most */
#define PM_SAMPLES 4096                         /* keys sampled a run to choose splitters */
#define PM_TREE_MAX 16                          /* runs a thread merges two by two; more: a loser tree */
#define PM_NODE_KEYS 1024                       /* keys each inner node of that tree holds */
#define SM_MIN_PIECE ((size_t)1 << 16)          /* merge by sorting: keys a piece takes, at least */
#define SM_TASK_KEYS (RUN_BLOCK_KEYS * 32)      /* merge by sorting: keys one gathering task copies */
#define STREAMS_OUT_KEYS ((size_t)64 << 10)     /* -m: keys merged between two writes */

/* ---- records (records/) ----------------------------------------------------------- */
#define LOADER_READ ((size_t)16 << 20)          /* bytes one read(2) asks for; the arena's first room */
#define LOADER_PARALLEL ((uint64_t)64 << 20)    /* reads of a regular file this large: by every thread */
#define TABLE_PART ((size_t)4 << 20)            /* bytes of a chunk one thread indexes at a time */
#define ORDER_PARALLEL_MIN ((size_t)1 << 16)    /* fewer records are ordered by one thread */
/* Runs of equal words (records/ties.h): this many records or fewer are sorted by
 * comparisons; more than this many words into a key, or inside this many runs, too;
 * a run this long, and a TIES_SHARES-th of a thread's share of the chunk, is the
 * pool's */
#define TIES_COMPARE_MAX ((size_t)32)
#define TIES_DEPTH_MAX ((size_t)16)
#define TIES_SHARED_MIN ((size_t)1 << 16)
#define TIES_SHARES ((size_t)4)
/* Gathers read records from random places, so the reads' latency bounds them: they
 * ask for the record this many ahead (for text, a line's start twice as far) */
#define RTABLE_AHEAD 16
#define EMIT_BATCH ((size_t)1 << 18)            /* written in order: records a piece */
#define EMIT_HOLD ((size_t)16 << 20)            /* written in order: bytes a thread holds before its piece's turn */
#define WINDOW_BUF ((size_t)4 << 20)            /* laid out at offsets: a thread's bytes a write */
#define EMIT_SPREAD_MIN ((size_t)1 << 16)       /* fewer records are written in order, not at offsets */
#define SPILL_SHARE ((size_t)4 << 20)           /* a thread's bytes a spilled round (as 64-byte lines) */
#define SPILL_BLOCK ((size_t)256 << 10)         /* a spilled block's records: about this many bytes, */
#define SPILL_BLOCK_MIN ((size_t)16 << 10)      /*   at a small -S as few as this, */
#define SPILL_BLOCKS_IN_S 64                    /*   -S / this (a merge then reads tens of runs) */
#define MERGE_OUT_MAX ((size_t)4 << 20)         /* the merge of runs in memory: a thread's output buffer, at most */
#define SPILL_MERGE_OUT_MAX ((size_t)32 << 20)  /* the spilled merge's, at most (its pieces cost a seek a run) */
#define SPILL_SEEK_PIECE 8                      /* a spilled merge's piece: this many times the blocks a seek decodes, at least */
#define MERGE_OUT_MIN ((size_t)64 << 10)        /*   and at least (a quarter of -S shared by the threads) */
#define MERGE_PIECES 4                          /*   key ranges a thread, so that the threads end together, */
#define MERGE_PIECES_MAX ((size_t)8 << 10)      /*   and a range to half a buffer, up to this many (rmerge_pieces) */
#define MERGE_PARALLEL_MIN ((uint64_t)1 << 20)  /*   fewer bytes spilled: one range, one thread */
#define MERGE_SAMPLES 64                        /* runs in memory or mapped (-m, gpusort-mpi's parts): samples of each a piece */

/* ---- the CPU radix sort (sorter/cpu) --------------------------------------------- */
#define RADIX_MAX_BITS 11                       /* most bits a digit covers */
#define RADIX_MIN_BITS 8                        /* least bits an LSD digit covers */
#define RADIX_BUCKET_LOG 12                     /* the MSD digit leaves buckets of about 2^this keys */
#define RADIX_INSERTION 16                      /* this many keys or fewer (with values or not) sorted by insertion */
#define RADIX_PARALLEL_MIN ((size_t)1 << 16)    /* fewer keys are sorted by one thread */
#define RADIX_BUCKET_CACHE ((size_t)1 << 20)    /* buckets of at most these bytes: one thread, in cache */
#define RADIX_ALONE_SHARE 2                     /* a bucket past the cache of 1/this of a thread's keys or fewer: one thread's */
#define RADIX_SLICES_A_THREAD 4                 /* the parallel passes' slices for each thread */
#define RADIX_SAMPLE 1024                       /* keys sampled to foretell the MSD digit */

/* ---- the GPU backend (sorter/cuda*) ---------------------------------------------- */
#define CUDA_STAGE_BYTES ((size_t)64 << 20)     /* each of a device's two pinned staging buffers */
#define CUDA_MIN_KEYS ((size_t)1 << 20)         /* a device that holds fewer keys is given up */
#define CUDA_GUESS_KEYS ((size_t)1 << 26)       /* a chunk's keys before the set-up is known done */
#define CUDA_SPLIT_MIN ((size_t)1 << 22)        /* fewer keys a device: a chunk is not split among devices */
#define CUDA_SAMPLES 4096                       /* keys sampled a device to deal a chunk by key range */
#define CUDA_FREE_TENTHS 9                      /* default: this many tenths of a device's free memory */
#define CUDA_PLACE_THREADS 64                   /* threads that place a stream's way back, at most */
#define CUDA_STREAM_RECORD_MAX ((size_t)64 << 10) /* larger binary records are not streamed */
#define CUDA_SLACK_BYTES ((size_t)16 << 20)     /* device memory left to spare beside the input's */
#define CUDA_MERGE_BUDGET ((size_t)256 << 20)   /* bytes the CPU merge of a chunk's parts holds */

/* ---- gpusort-mpi (cluster/) ------------------------------------------------------- */
#define SHARE_PROBE ((size_t)64 << 10)          /* bytes read at a time seeking a share's cut (a line end) */
#define SAMPLES_A_RANK 64                       /* regular samples each rank gives for each rank */
#define ROUND_MIN ((size_t)1 << 20)             /* the exchange: a round's bytes from one rank to another, */
#define ROUND_MAX ((size_t)32 << 20)            /*   at least and at most (-S / 8 / ranks between them: two rounds' buffers) */
#define CLUSTER_MERGE_BUF ((size_t)4 << 20)     /* the parts received merged: a thread's bytes a write (placed: a count) */
#define CLUSTER_MERGE_PIECE_MIN ((uint64_t)64 << 10) /*   fewer bytes a thread: fewer pieces than threads */
#define PLACE_PIECE ((size_t)8 << 20)           /* a rank's range copied, or sent to rank 0, in pieces this large */

#endif
