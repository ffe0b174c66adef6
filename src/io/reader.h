/* SPDX-License-Identifier: MIT */
/* reader.h: key readers: one input (file or stdin) as a sequence of blocks of mapped
 * keys, text parsed in parallel or binary decoded, with exact positions for errors.
 *
 * Text is read in large blocks cut at white space; each block is split among the
 * pool's threads at white space and scanned with tn_scan() (reader_text.c). A bad
 * token is reported only after every key before it has been returned, so -c can see
 * a disorder that comes first. Binary keys are decoded in place (key_decode).
 *
 * Lines ended by NUL (-z) and a header line (--header) are settled as the bytes
 * are read, before anything else sees them (reader.c, kreader_settle): the scanner
 * knows only LF-ended lines of white space and tokens.
 */
#ifndef GS_READER_H
#define GS_READER_H

#include <stddef.h>
#include <stdint.h>
#include "core/keys.h"
#include "core/pool.h"
#include "core/source.h"

/* Bytes of a binary key that straddle two inputs (the contract concatenates them),
 * and what a message needs should bytes be left over after the last: each reader
 * given the carry counts its input as it is closed (kreader_close,
 * kreader_carry_count). All zeros before the first input; kreader_carry_end()
 * after the last. */
typedef struct {
    unsigned char bytes[8];
    int n;
    int width;           /* the keys' bytes */
    int inputs;          /* the inputs closed, */
    uint64_t total;      /*   their bytes in all */
    char *odd_name;      /* the first of them whose own bytes are not whole keys
                            (malloc'ed; NULL: none, or no memory for its name), */
    uint64_t odd_bytes;  /*   its bytes */
    int odd;             /* 1: there was one */
} carry_t;

typedef struct {
    const keymap_t *km;
    int binary;          /* 1: raw fixed-width keys */
    int big_endian;      /* binary byte order */
    pool_t *pool;        /* threads for parsing */
    size_t block_bytes;  /* bytes read per block (0: a default) */
    carry_t *carry;      /* binary only: NULL, each input must hold whole keys; else
                            partial keys carry over from one input to the next */
    size_t record_size;  /* binary, kreader_read_keys() only: 0, or the items are
                            records of this many bytes, read as they are (not
                            decoded), never carried */
    int zero_terminated; /* text: lines end with NUL (-z), and LF is white space like
                            any other */
} kreader_cfg_t;

typedef struct kreader kreader_t;

/* Open src (source.h: a file, standard input, or a range of a descriptor; its first
 * line a header where src->header). GS_OK, or GS_EIO with the message set. */
int kreader_open(kreader_t **r, const source_t *src, const kreader_cfg_t *cfg);

/* The next block of keys: *keys points into the reader and stays valid until the
 * next call; *n == 0 at the end. Returns GS_OK, or GS_EINPUT / GS_EIO / GS_ENOMEM
 * with the message set (the file, its line or byte offset, and what was wrong). */
int kreader_next(kreader_t *r, const void **keys, size_t *n);

/* Memory for n keys at the caller's (kreader_next_into): where they are to go, or
 * NULL where n do not fit. */
typedef void *(*kreader_room_fn)(void *arg, size_t n);

/* kreader_next(), with text scanned straight into the caller's memory: each
 * block's tokens are counted first, room(arg, count) gives where that many keys go,
 * and they are scanned there: *keys is NULL and the first *n keys of that memory
 * are the block's (fewer than asked for only before a bad token, which the next
 * call reports). Where room() gives NULL, and for binary input, *keys points to the
 * keys in the reader's memory as kreader_next() returns them. */
int kreader_next_into(kreader_t *r, kreader_room_fn room, void *arg, const void **keys,
                      size_t *n);

/* 1 if keys can be read straight into the caller's memory (kreader_read_keys):
 * binary keys from a regular file. */
int kreader_direct(const kreader_t *r);

/* Bytes still to read by the file's size when opened, those carried from the input
 * before included (a file that grows meanwhile holds more). */
uint64_t kreader_left(const kreader_t *r);

/* Binary keys from a regular file (kreader_direct), read straight into dst: up to
 * max keys, decoded in place, *n of them; *n == 0 at the end. Partial keys at the
 * end are carried or reported as kreader_next() does. Not mixed with kreader_next()
 * on one reader. */
int kreader_read_keys(kreader_t *r, void *dst, size_t max, size_t *n);

/* 1-based position of key i of the last block returned: its line for text, its key
 * index in the file for binary. */
uint64_t kreader_position(kreader_t *r, size_t i);

/* The input's header line (its source's header), its terminator included where the input
 * had one: *len bytes, or NULL where the input is empty. Whole once kreader_next()
 * (or kreader_next_into()) has returned once. */
const char *kreader_header(const kreader_t *r, size_t *len);

/* The name used in messages ("-" for standard input). */
const char *kreader_name(const kreader_t *r);

/* Bytes read so far (waits for a read-ahead in flight). */
uint64_t kreader_bytes(kreader_t *r);

/* Close and free; NULL is a no-op. */
void kreader_close(kreader_t *r);

/* An input of bytes bytes, named name in messages, counted in carry, keys of width
 * bytes: as a reader given carry does as it closes, or as gpusort-mpi counts its
 * inputs' sizes before any is read (cluster/share.c). */
void kreader_carry_count(carry_t *carry, const char *name, uint64_t bytes, int width);

/* After the last input counted: rc where it is an error already, else GS_OK where
 * the inputs hold whole keys, their bytes together, else GS_EINPUT with the message
 * (the first input whose own bytes are not whole keys is the one to blame; with
 * several inputs, their total bytes say why). What carry holds is freed either
 * way, and it is zeroed: a second call returns rc. */
int kreader_carry_end(carry_t *carry, int rc);

#endif
