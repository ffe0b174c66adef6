/* SPDX-License-Identifier: MIT */
/* keys.h: key types and the one order-preserving mapping to unsigned keys.
 *
 * Every key type maps to u32 or u64 by XOR with a mask: signed types flip the sign
 * bit, -r complements every bit. Sorters, runs, the merge, -u and -c then know only
 * "unsigned, ascending, 32 or 64 bits"; the mapping is its own inverse, so the
 * formatter applies the same XOR on the way out.
 */
#ifndef GS_KEYS_H
#define GS_KEYS_H

#include <stddef.h>
#include <stdint.h>

/* The integer types come first: the bare keys' engine knows only them. The others
 * are binary keys of records alone (records/rkey.h): f32 and f64 (IEEE), bytes (N
 * bytes in memcmp order, N kept beside the type: settings_t.key_bytes). */
typedef enum { KEY_I32, KEY_U32, KEY_I64, KEY_U64, KEY_F32, KEY_F64, KEY_BYTES } key_type_t;

/* The most bytes of a bytesN key. */
#define KEY_BYTES_MAX 64

/* 1 for the integer types. */
static inline int key_type_is_int(key_type_t t)
{
    return t <= KEY_U64;
}

/* A key's bytes: 4 or 8, or nbytes for bytesN. */
static inline size_t key_type_width(key_type_t t, size_t nbytes)
{
    return t == KEY_BYTES ? nbytes : (t == KEY_I32 || t == KEY_U32 || t == KEY_F32) ? 4 : 8;
}

typedef struct {
    key_type_t type;   /* the user's type */
    int width;         /* bytes per key: 4 or 8 */
    int is_signed;     /* 1 for i32 and i64 */
    uint64_t mask;     /* XOR that maps a raw value to its sort key and back */
} keymap_t;

/* Fill km for type and direction (reverse != 0 for -r). */
void key_map_init(keymap_t *km, key_type_t type, int reverse);

/* Parse "i32", "u32", "i64", "u64"; return 0 and set *type, or -1. */
int key_type_parse(const char *s, key_type_t *type);

/* The same, and "f32", "f64" and "bytesN" (N from 1 to KEY_BYTES_MAX: *nbytes; 0
 * for the others): --type of binary records. */
int key_type_parse_any(const char *s, key_type_t *type, size_t *nbytes);

/* The canonical name of a type ("i64", ...). */
const char *key_type_name(key_type_t type);

/* The valid --type names, for a message: "i32, u32, i64, u64". */
const char *key_type_names(void);

/* For a range error's message: the types at least as wide as type whose range holds
 * the integer tok[0..len) ([+-]?[0-9]+, blanks around it skipped; anything else has
 * no hint), at most two, a wider one of the same sign first, written into dst (room
 * bytes) as "; it fits --type=X" or "; it fits --type=X or --type=Y", or "" where
 * none does. Returns dst. */
char *key_range_hint(char *dst, size_t room, const char *tok, size_t len, key_type_t type);

/* Map a raw value (two's complement bits in the low width bytes) to its sort key,
 * or a sort key back to its raw value: the same operation. */
static inline uint64_t key_map(const keymap_t *km, uint64_t v) { return v ^ km->mask; }

/* Binary keys as they are stored (width bytes each, little- or big-endian, the
 * user's type) to mapped keys, and back: n keys from src to dst, which may be the
 * same buffer; src (decode) and dst (encode) need no alignment. Pure: the one place
 * that knows the byte order of binary keys, for the readers, the writers and the
 * tests. */
void key_decode(const void *src, void *dst, size_t n, const keymap_t *km, int big_endian);
void key_encode(const void *src, void *dst, size_t n, const keymap_t *km, int big_endian);

/* 1 where mapped keys are their own binary encoding (unsigned, not reversed, in this
 * host's byte order), so that binary output is the keys as they are. */
int key_identity(const keymap_t *km, int big_endian);

/* Remove adjacent duplicates from sorted keys in place, keeping the first of each
 * run; return the new count. width is 4 or 8. O(n), no allocation. */
size_t key_unique(void *keys, size_t n, int width);

/* Load key i of an array of width-byte keys as u64. */
static inline uint64_t key_get(const void *keys, size_t i, int width)
{
    return width == 4 ? ((const uint32_t *)keys)[i] : ((const uint64_t *)keys)[i];
}

/* The first position in sorted keys[0..n) whose key is >= v (n if none). */
static inline size_t key_lower_bound(const void *keys, size_t n, int width, uint64_t v)
{
    size_t a = 0, b = n;
    while (a < b) {
        size_t m = a + (b - a) / 2;
        if (key_get(keys, m, width) < v)
            a = m + 1;
        else
            b = m;
    }
    return a;
}

#endif
