/* fuzz-util.h — what several fuzz targets share: a private scratch directory, splitting an input
 * into NUL-separated fields, files, directories and stderr. Linking it also silences library
 * warnings (expected output) and makes an error or a critical abort: a finding.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>
#include <stddef.h>
#include <stdint.h>

G_BEGIN_DECLS

/* A private directory (0700) made once per process outside /tmp and the temp directory (under
 * $DSH_TEST_SCRATCH, else /var/tmp), so confined-write rules do not apply to it; it is removed
 * with everything in it when the process exits. */
const char *fuzz_scratch_dir    (void);

/* Removes path and everything beneath it, following no symlink; a missing path is no error. */
void        fuzz_remove_tree    (const char    *path);

/* data[0..size) cut at every NUL into at most max_fields strings (the last takes the rest, NULs
 * and all cut off); the array owns them. */
GPtrArray  *fuzz_split_fields   (const uint8_t *data,
                                 size_t         size,
                                 guint          max_fields);

/* Makes dir the current directory until fuzz_leave_dir() (with what this returned) restores
 * the one before: libFuzzer itself names its corpus and artifacts relative to it. */
int         fuzz_enter_dir      (const char    *dir);
void        fuzz_leave_dir      (int            saved);

/* Sends stderr to /dev/null until fuzz_restore_stderr(), for code that prints a line per input;
 * sanitizer reports still reach the real stderr. */
void        fuzz_silence_stderr (void);
void        fuzz_restore_stderr (void);

/* Writes contents to path (created 0600 or truncated); aborts on failure. */
void        fuzz_write_file     (const char    *path,
                                 const char    *contents,
                                 gssize         length);

G_END_DECLS
