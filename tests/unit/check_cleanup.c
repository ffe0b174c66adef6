/* SPDX-License-Identifier: MIT */
/* check_cleanup.c: the registry of temporary files (core/cleanup.h) past any fixed
 * size: more files registered at once than 1024, from one thread and from several
 * at once, some removed or forgotten on the way; cleanup_remove_all() then leaves
 * the directory empty. (The signals that empty it: tests/cli/signals*.sh.)
 */
#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_suites.h"
#include "core/cleanup.h"

/* The entries of dir, "." and ".." left out. */
static int count_files(const char *dir)
{
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return n;
}

typedef struct {
    int dirfd;
    int n;              /* files to make */
    int made, removed;  /* of them: made, and removed or forgotten on the way */
    int failed;         /* an errno of cleanup_create, or 0 */
} maker_t;

/* Make m->n files in m->dirfd, removing every third one made and forgetting (after
 * unlinking it) every seventh, as the spills and merge passes do. */
static void *make_files(void *arg)
{
    maker_t *m = arg;
    for (int i = 0; i < m->n; i++) {
        char *name;
        int slot, fd = cleanup_create(m->dirfd, "gs-reg-", &name, &slot);
        if (fd < 0) {
            m->failed = errno ? errno : -1;
            return NULL;
        }
        close(fd);
        m->made++;
        if (i % 3 == 0) {
            cleanup_remove(slot);
            m->removed++;
        } else if (i % 7 == 0) {
            unlinkat(m->dirfd, name, 0);
            cleanup_forget(slot);
            m->removed++;
        }
        free(name);
    }
    return NULL;
}

/* _i threads (1 or 4) make 2100 files between them, more than 1024 registered at
 * once; the registry grows under them and removes every one that is left. */
START_TEST(test_cleanup_registry_grows)
{
    int nt = _i ? 4 : 1;
    char dir[256];
    ck_tdir_make(dir, sizeof dir, "cleanup");
    int dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    ck_assert_int_ge(dirfd, 0);
    maker_t m[4];
    pthread_t t[4];
    for (int k = 0; k < nt; k++) {
        m[k] = (maker_t){ .dirfd = dirfd, .n = 2100 / nt };
        ck_assert_int_eq(pthread_create(&t[k], NULL, make_files, &m[k]), 0);
    }
    int made = 0, left = 0;
    for (int k = 0; k < nt; k++) {
        pthread_join(t[k], NULL);
        ck_assert_int_eq(m[k].failed, 0);
        made += m[k].made;
        left += m[k].made - m[k].removed;
    }
    ck_assert_int_eq(made, 2100 / nt * nt);
    ck_assert_int_gt(left, 1024);
    ck_assert_int_eq(count_files(dir), left);
    cleanup_remove_all();
    ck_assert_int_eq(count_files(dir), 0);
    close(dirfd);
    ck_remove_tree(dir);
}
END_TEST

Suite *make_cleanup_suite(void)
{
    Suite *s = suite_create("cleanup");
    TCase *tc = ck_tcase("registry");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_cleanup_registry_grows, 0, 2);
    suite_add_tcase(s, tc);
    return s;
}
