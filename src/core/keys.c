/* SPDX-License-Identifier: MIT */
/* keys.c: key types and the unsigned mapping (see keys.h). */
#include <config.h>

#include <stdio.h>
#include <string.h>

#include "core/keys.h"

static const char *const key_names[] = { "i32", "u32", "i64", "u64", "f32", "f64", "bytes" };

void key_map_init(keymap_t *km, key_type_t type, int reverse)
{
    km->type = type;
    km->width = (type == KEY_I32 || type == KEY_U32) ? 4 : 8;
    km->is_signed = (type == KEY_I32 || type == KEY_I64);
    uint64_t all = km->width == 4 ? 0xFFFFFFFFull : ~0ull;
    uint64_t sign = km->width == 4 ? 0x80000000ull : 0x8000000000000000ull;
    km->mask = (km->is_signed ? sign : 0) ^ (reverse ? all : 0);
}

int key_type_parse(const char *s, key_type_t *type)
{
    for (int t = 0; t < 4; t++) {
        if (strcmp(s, key_names[t]) == 0) {
            *type = (key_type_t)t;
            return 0;
        }
    }
    return -1;
}

int key_type_parse_any(const char *s, key_type_t *type, size_t *nbytes)
{
    *nbytes = 0;
    if (key_type_parse(s, type) == 0)
        return 0;
    for (int t = KEY_F32; t <= KEY_F64; t++) {
        if (strcmp(s, key_names[t]) == 0) {
            *type = (key_type_t)t;
            return 0;
        }
    }
    if (strncmp(s, "bytes", 5) != 0 || s[5] < '1' || s[5] > '9')
        return -1;
    size_t n = 0;
    for (const char *p = s + 5; *p; p++) {
        if (*p < '0' || *p > '9' || n > KEY_BYTES_MAX)
            return -1;
        n = n * 10 + (size_t)(*p - '0');
    }
    if (n > KEY_BYTES_MAX)
        return -1;
    *type = KEY_BYTES;
    *nbytes = n;
    return 0;
}

const char *key_type_name(key_type_t type)
{
    return key_names[type];
}

const char *key_type_names(void)
{
    return "i32, u32, i64, u64, and for binary keys f32, f64, bytes1 to bytes64";
}

/* 1 where the integer of magnitude mag (negative: neg) lies in type's range. */
static int key_type_holds(key_type_t type, int neg, unsigned __int128 mag)
{
    int bits = type == KEY_I32 || type == KEY_U32 ? 32 : 64;
    unsigned __int128 top = (unsigned __int128)1 << bits;   /* the unsigned range's end */
    if (type == KEY_U32 || type == KEY_U64)
        return neg ? mag == 0 : mag < top;
    return neg ? mag <= top / 2 : mag < top / 2;
}

char *key_range_hint(char *dst, size_t room, const char *tok, size_t len, key_type_t type)
{
    /* The types to offer, in the order to offer them: wider first, then the other
     * sign of the same width; never a narrower one. */
    static const struct {
        int n;
        key_type_t t[3];
    } offer[4] = {
        [KEY_I32] = { 3, { KEY_I64, KEY_U32, KEY_U64 } },
        [KEY_U32] = { 3, { KEY_U64, KEY_I32, KEY_I64 } },
        [KEY_I64] = { 1, { KEY_U64 } },
        [KEY_U64] = { 1, { KEY_I64 } },
    };
    if (room)
        dst[0] = '\0';
    size_t i = 0, end = len;
    while (i < end && (tok[i] == ' ' || tok[i] == '\t'))
        i++;
    while (end > i && (tok[end - 1] == ' ' || tok[end - 1] == '\t'))
        end--;
    int neg = i < end && tok[i] == '-';
    if (i < end && (tok[i] == '-' || tok[i] == '+'))
        i++;
    if (i == end)
        return dst;
    while (i + 1 < end && tok[i] == '0')
        i++;
    if (end - i > 20)
        return dst;   /* more than 20 digits: past every type */
    unsigned __int128 mag = 0;
    for (; i < end; i++) {
        if (tok[i] < '0' || tok[i] > '9')
            return dst;
        mag = mag * 10 + (unsigned)(tok[i] - '0');
    }
    int found = 0;
    size_t at = 0;
    for (int k = 0; k < offer[type].n && found < 2; k++) {
        key_type_t t = offer[type].t[k];
        if (!key_type_holds(t, neg, mag))
            continue;
        int n = snprintf(dst + at, room - at, "%s--type=%s", found ? " or " : "; it fits ",
                         key_names[t]);
        if (n < 0 || (size_t)n >= room - at)
            break;
        at += (size_t)n;
        found++;
    }
    return dst;
}

void key_decode(const void *src, void *dst, size_t n, const keymap_t *km, int big_endian)
{
    /* Loaded with memcpy: src need not be aligned. The hosts we build for are
     * little-endian, so big-endian keys are swapped. */
    const unsigned char *s = src;
    if (km->width == 4) {
        uint32_t *d = dst, mask = (uint32_t)km->mask;
        for (size_t i = 0; i < n; i++) {
            uint32_t v;
            memcpy(&v, s + 4 * i, 4);
            d[i] = (big_endian ? __builtin_bswap32(v) : v) ^ mask;
        }
    } else {
        uint64_t *d = dst, mask = km->mask;
        for (size_t i = 0; i < n; i++) {
            uint64_t v;
            memcpy(&v, s + 8 * i, 8);
            d[i] = (big_endian ? __builtin_bswap64(v) : v) ^ mask;
        }
    }
}

void key_encode(const void *src, void *dst, size_t n, const keymap_t *km, int big_endian)
{
    unsigned char *d = dst;
    if (km->width == 4) {
        const uint32_t *s = src;
        uint32_t mask = (uint32_t)km->mask;
        for (size_t i = 0; i < n; i++) {
            uint32_t v = s[i] ^ mask;
            if (big_endian)
                v = __builtin_bswap32(v);
            memcpy(d + 4 * i, &v, 4);
        }
    } else {
        const uint64_t *s = src;
        uint64_t mask = km->mask;
        for (size_t i = 0; i < n; i++) {
            uint64_t v = s[i] ^ mask;
            if (big_endian)
                v = __builtin_bswap64(v);
            memcpy(d + 8 * i, &v, 8);
        }
    }
}

int key_identity(const keymap_t *km, int big_endian)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    return !big_endian && km->mask == 0;
#else
    (void)km;
    (void)big_endian;
    return 0;
#endif
}

size_t key_unique(void *keys, size_t n, int width)
{
    if (n < 2)
        return n;
    size_t out = 1;
    if (width == 4) {
        uint32_t *k = keys;
        for (size_t i = 1; i < n; i++)
            if (k[i] != k[out - 1])
                k[out++] = k[i];
    } else {
        uint64_t *k = keys;
        for (size_t i = 1; i < n; i++)
            if (k[i] != k[out - 1])
                k[out++] = k[i];
    }
    return out;
}
