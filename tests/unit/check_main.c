/* SPDX-License-Identifier: MIT */
/* check_main.c: the one runner of the Check unit tests: every module's suite, run
 * in forked children; the exit status says whether any test failed.
 */
#include <config.h>

#include <stdlib.h>
#include <check.h>
#include "check_suites.h"

int main(void)
{
    SRunner *sr = srunner_create(make_keys_suite());
    srunner_add_suite(sr, make_options_suite());
    srunner_add_suite(sr, make_textnum_suite());
    srunner_add_suite(sr, make_pool_suite());
    srunner_add_suite(sr, make_sorter_cpu_suite());
    srunner_add_suite(sr, make_input_suite());
    srunner_add_suite(sr, make_output_suite());
    srunner_add_suite(sr, make_codec_suite());
    srunner_add_suite(sr, make_smerge_suite());

    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
