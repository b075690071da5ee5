/* dsh-test-support.h — what the Landlock launcher tests and the conformance suite share: running
 * a program with captured output, scratch directories outside every temp area, and the CI rule
 * that an integration test may skip only when CI is unset.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  /* The exit code, or 128+N when killed by signal N. */
  int status;
  /* N when killed by signal N, else 0. */
  int term_signal;
  char *out;
  char *err;
} DshTestRun;

void dsh_test_run_clear (DshTestRun *run);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (DshTestRun, dsh_test_run_clear)

/* Runs argv to completion in `cwd` (NULL: ours). `env` holds "NAME=VALUE" to set and "NAME" to
 * unset; `stdin_text` (or NULL for /dev/null) is fed to it; `pass_fd` >= 0 is handed over as
 * descriptor 3. */
void dsh_test_run (const char *cwd,
                   const char *const *argv,
                   const char *const *env,
                   const char *stdin_text,
                   int pass_fd,
                   DshTestRun *run);

/* The value of a variable the meson test() sets, or a test failure naming it. */
const char *dsh_test_getenv_required (const char *name);

/* A new, empty, canonical directory below DSH_TEST_SCRATCH (the build tree): never under /tmp or
 * TMPDIR, so it stands for "outside every writable root". */
char *dsh_test_scratch_dir (const char *prefix);
void dsh_test_remove_tree (const char *path);

void dsh_test_write_file (const char *path, const char *text);
/* The file's contents, or NULL when it cannot be read (e.g. it does not exist). */
char *dsh_test_read_file (const char *path);

/* Skips when the environment lacks a feature, but only outside CI: with CI set the test fails,
 * so an integration suite can never pass by skipping everything. Returns `available`. */
gboolean dsh_test_require (gboolean available, const char *why);

/* The kernel's Landlock ABI version, or -1. */
long dsh_test_landlock_abi (void);

/* The number of stderr lines containing `needle`. */
guint dsh_test_count_lines_with (const char *text, const char *needle);

G_END_DECLS
