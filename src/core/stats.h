/* SPDX-License-Identifier: MIT */
/* stats.h: per-stage counters for --stats, and a monotonic clock.
 *
 * Stages add bytes and seconds as they go (thread safe); stats_print() writes the
 * contract's table to stderr at exit.
 */
#ifndef GS_STATS_H
#define GS_STATS_H

#include <stdint.h>

typedef enum {
    ST_READ, ST_PARSE, ST_TRANSFER, ST_SORT, ST_SPILL, ST_MERGE, ST_FORMAT, ST_WRITE,
    ST_COUNT
} stage_t;

/* Seconds on a monotonic clock. */
double stats_now(void);

/* Add bytes and seconds to a stage's totals: the bytes by one relaxed atomic add (a
 * stage adds them as it goes, a batch at a time, for --progress), the seconds under
 * a lock (none taken where seconds is 0). */
void stats_add(stage_t stage, uint64_t bytes, double seconds);

/* Bytes added to a stage so far (an atomic load: any thread, any time). */
uint64_t stats_bytes(stage_t stage);

/* Progress counters: a run was made; keys merged out of a total (a nonzero total
 * starts a new merge: the count restarts from keys). Lock-free, for hot paths. */
void stats_note_run(void);
void stats_note_merge(uint64_t keys, uint64_t total);

/* A sort went aside (sorter_submit()) while the pipeline went on: a chunk
 * (piece 0) while the next was read, or a merge's piece (piece 1) while the next
 * was gathered. --stats counts each. */
void stats_note_aside(int piece);

/* A merge by sorting key ranges (pipeline/smerge.c): its pieces and bytes, its wall
 * time, and of it the merge's thread gathering, waiting for the sorter (or sorting
 * here) and waiting for the writer. --stats names the largest as the bound. */
void stats_note_smerge(uint64_t pieces, uint64_t bytes, double wall, double gather,
                       double sorter, double writer);

/* A sorted chunk copied out of a pinned buffer into its run: bytes, seconds. */
void stats_note_copy_out(uint64_t bytes, double seconds);

/* Text read mapped (input.c): bytes scanned straight from the page cache. */
void stats_note_read_mapped(uint64_t bytes);

/* Records read mapped (records/loader.c): an input's bytes used where the page cache
 * holds them, not copied. */
void stats_note_records_mapped(uint64_t bytes);

/* Records spilled (records/spill.c): to this many files by this many threads; the
 * threads' seconds packing blocks and writing them, added up. */
void stats_note_records_spill(int files, int threads, double pack_s, double write_s);

/* Records' spilled runs merged in passes (records/spill_merge.c): from before runs
 * to after, fan of them a merge. */
void stats_note_records_passes(uint64_t before, uint64_t after, int fan);
/* Records' runs merged into the output (records/rmerge.c) in this many pieces of
 * their keys by this many threads: laid out (a thread merging a stretch of this
 * many pieces as one range at its offset) or in order (each piece on its turn). */
void stats_note_records_merge(uint64_t pieces, int threads, int laid, uint64_t stretch);

/* A chunk of records ordered (records/order.c): its words sorted, then its runs of
 * equal words settled and its lines made (of them, shared_runs by the whole pool). */
void stats_note_records_order(double sort_s, double settle_s, uint64_t shared_runs);
/* Bytes laid out and written by this many threads (io/pieces.c): mapped (1: into
 * the file's pages), else at their offsets (pwrite). */
void stats_note_laid(int mapped, uint64_t bytes, int threads);

/* Zeros written ahead into the output's temporary (output.c): bytes, seconds. */
void stats_note_ahead(uint64_t bytes, double seconds);

/* Their values: runs made, keys merged, keys to merge. */
void stats_progress(uint64_t *runs, uint64_t *merged, uint64_t *total);

/* The path the run takes and why (pipeline/plan.c), and, where a path through a
 * GPU could not hold the input, what it fell back to: --stats prints them first. */
void stats_set_plan(const char *text);
void stats_set_plan_fallback(const char *text);

/* Set the text of the "device" line (e.g. "cpu (radix: cpu radix, 2 threads)"). */
void stats_set_device(const char *text);

/* A phase of the run begins now ("reading", "sorting", ...), ending the one before:
 * --stats gives each phase's wall-clock time (a phase entered several times adds
 * up), which the per-stage table (stages overlap, and some run on several threads)
 * does not. */
void stats_phase(const char *name);

/* Write the table to stderr; total is the run's wall time in seconds. */
void stats_print(double total);

#endif
