#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# part2.sh: the unit runner check_gpusort_smerge (check_main.c says which suites), run as a
# script. make -jN starts the scripts in TESTS in their order, but a program's test
# only once make has checked the program again (its objects against config.h),
# after the scripts behind it took the job slots: the runners, the longest tests,
# ran last and alone. Listed first as scripts, they run beside the others.
exec ./tests/unit/check_gpusort_smerge "$@"
