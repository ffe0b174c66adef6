/* keys.c: key types and the unsigned mapping (see keys.h). */
#include <config.h>

#include <string.h>

#include "core/keys.h"

static const char *const key_names[] = { "i32", "u32", "i64", "u64" };

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

const char *key_type_name(key_type_t type)
{
    return key_names[type];
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
