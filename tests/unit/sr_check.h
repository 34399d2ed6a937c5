/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sr_check.h — the one main() every unit-test file uses.
 *
 * Each test file exports one Suite * constructor and ends with
 * SR_CHECK_MAIN(constructor).  Check runs in fork mode (a crash fails one
 * test, not the run); set CK_FORK=no to debug a test under gdb.
 */
#ifndef SR_CHECK_H
#define SR_CHECK_H

#include <check.h>
#include <stdlib.h>

#define SR_CHECK_MAIN(suite_fn)                                          \
	int main(void)                                                   \
	{                                                                \
		SRunner *sr = srunner_create(suite_fn());                \
		int failed;                                              \
		srunner_run_all(sr, CK_NORMAL);                          \
		failed = srunner_ntests_failed(sr);                      \
		srunner_free(sr);                                        \
		return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;        \
	}

/* Path of the shared captures, set by meson (../shared/captures). */
#ifndef SR_CAPTURES_DIR
#define SR_CAPTURES_DIR "../shared/captures"
#endif

#endif /* SR_CHECK_H */
