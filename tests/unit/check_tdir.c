/* SPDX-License-Identifier: MIT */
/* check_tdir.c: files for the unit tests that touch them: temporary directories
 * made under $TMPDIR (else /tmp) and removed with everything in them, and whole
 * files written with every step checked. */
#include <config.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <check.h>

#include "check_suites.h"

void ck_tdir_make(char *dir, size_t len, const char *tag)
{
    const char *base = getenv("TMPDIR");
    snprintf(dir, len, "%s/gs-check-%s-XXXXXX", base && *base ? base : "/tmp", tag);
    if (mkdtemp(dir) == NULL) {
        perror("mkdtemp");
        abort();
    }
}

void ck_remove_tree(const char *dir)
{
    DIR *d = opendir(dir);
    if (d != NULL) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            char path[1024];
            struct stat st;
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
                ck_remove_tree(path);
            else
                unlink(path);
        }
        closedir(d);
    }
    rmdir(dir);
}

void ck_write_file(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    ck_assert_msg(f != NULL, "cannot create %s", path);
    ck_assert_uint_eq(fwrite(data, 1, len, f), len);
    ck_assert_int_eq(fclose(f), 0);
}
