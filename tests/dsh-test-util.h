/* dsh-test-util.h — what the GTest suites share: temp directories, copying modules, and running
 * the built dsh-sandbox command with a controlled environment.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <dsh-sandbox.h>

G_BEGIN_DECLS

typedef struct {
  int exit_code;
  char *out;
  char *err;
} DshTestRun;

void      dsh_test_run_clear         (DshTestRun *run);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (DshTestRun, dsh_test_run_clear)

/* A fresh private (0700) directory, removed with its contents at the end of the test. */
char     *dsh_test_make_tmp_dir      (void);

/* Copies a module file into dir (mode 0644); returns the new path. */
char     *dsh_test_copy_module       (const char *module_path,
                                      const char *dir);

/* The path of a built test module, e.g. "fake-alpha" -> .../libdsh-backend-fake-alpha.so. */
char     *dsh_test_module_path       (const char *name);

/* Runs argv with envp additions ("NAME=value", or "NAME" alone to unset), stdin from stdin_text
 * (NULL: /dev/null), in cwd (NULL: inherit); captures stdout and stderr. */
void      dsh_test_run               (DshTestRun        *run,
                                      const char *const *argv,
                                      const char *const *env,
                                      const char        *cwd,
                                      const char        *stdin_text);

/* The built dsh-sandbox command (from DSH_SANDBOX_CLI). */
const char *dsh_test_cli             (void);

/* Parses text as JSON (asserting success) and validates it against schemas/<schema>. */
JsonNode *dsh_test_parse_json        (const char *text);
void      dsh_test_assert_valid_json (const char *text,
                                      const char *schema_name);

/* Returns a file's contents, or NULL when it does not exist. */
char     *dsh_test_read_file         (const char *path);

/* In CI a missing prerequisite is a failure, elsewhere a skip with a reason. */
void      dsh_test_require           (gboolean    available,
                                      const char *what);

G_END_DECLS
