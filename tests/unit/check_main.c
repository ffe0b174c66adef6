/* SPDX-License-Identifier: MIT */
/* check_main.c: a runner of the Check unit tests, built twice (unit.am): part 1
 * (check_gpusort) runs every module's suite but the merge by sort's, part 2
 * (check_gpusort_smerge) that one, which alone takes about as long as the others
 * together under the sanitizers; `make -jN check` runs the two at once. The exit
 * status says whether any test failed.
 *
 * The tests run in the runner's own process, one after another (CK_NOFORK), unless
 * CK_FORK is set in the environment (CK_FORK=yes: each in a forked child, so that a
 * crash names its test). A child per test costs a fork and, under ASan, a leak
 * check at each child's exit: most of the runners' time where page faults are dear
 * (tests/RELIABILITY.md). In one process, LeakSanitizer checks once, at the end,
 * and still finds any test's leak; every test starts with no error recorded
 * (ck_tcase).
 */
#include <config.h>

#include <stdlib.h>
#include <check.h>
#include "check_suites.h"

#ifndef CHECK_PART
#error "CHECK_PART must be 1 or 2 (unit.am)"
#endif

static const struct {
    int part;
    Suite *(*make)(void);
} suites[] = {
    { 1, make_keys_suite },
    { 1, make_options_suite },
    { 1, make_textnum_suite },
    { 1, make_pool_suite },
    { 1, make_sorter_cpu_suite },
    { 1, make_input_suite },
    { 1, make_output_suite },
    { 1, make_hand_suite },
    { 1, make_codec_suite },
    { 1, make_cleanup_suite },
    { 1, make_rkey_suite },
    { 1, make_ltree_suite },
    { 1, make_splitters_suite },
    { 1, make_rmerge_suite },
    { 1, make_turns_suite },
    { 1, make_pieces_suite },
    { 1, make_engine_suite },
    { 2, make_smerge_suite },
};

int main(void)
{
    SRunner *sr = NULL;
    for (size_t i = 0; i < sizeof suites / sizeof suites[0]; i++) {
        if (suites[i].part != CHECK_PART)
            continue;
        if (!sr)
            sr = srunner_create(suites[i].make());
        else
            srunner_add_suite(sr, suites[i].make());
    }
    if (getenv("CK_FORK") == NULL)
        srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
