/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * scfile.h — read scenario files (format in docs/conformance.md).
 *
 * A file holds scenarios, each from "scenario NAME" to "end".  A scenario
 * with an error is left out, with one line "FILE:LINE: reason" in the
 * error list; the others are read.  Nothing in a file can crash the tool.
 */
#ifndef SC_SCFILE_H
#define SC_SCFILE_H

#include <stddef.h>
#include <stdio.h>

#include "scenario.h"

struct sc_list {
	struct sc_scenario *sc;
	size_t n, cap;
	char **errors;          /* one line per scenario left out */
	size_t nerrors;
	char **files;            /* paths the scenarios point to */
	size_t nfiles;
};

/*
 * Add the scenarios of path to list.  Returns the number added, or -errno
 * when the file cannot be read (also recorded in errors).
 */
int sc_file_read(struct sc_list *list, const char *path);

/* Read from an open stream (path names it in errors). */
int sc_file_read_stream(struct sc_list *list, FILE *f, const char *path);

/* Every *.sc file of a folder, in name order.  Files read, or -errno. */
int sc_dir_read(struct sc_list *list, const char *dir);

void sc_list_free(struct sc_list *list);

/* The AETH encodings of a step (aeth=): */
#define SC_AETH_ACK_ANY 0x1000u /* an ACK, any credit count */

#endif /* SC_SCFILE_H */
