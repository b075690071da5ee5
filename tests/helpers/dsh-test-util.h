/* dsh-test-util.h — what every test suite shares, the Linux conformance suites included: running
 * a program (or the built dsh-sandbox command) with captured output, temporary and scratch
 * directories, files, JSON and session-log checks, module fixtures, and the CI rule that a
 * missing prerequisite may skip a test only outside CI.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <dsh-sandbox.h>
#include <gio/gio.h>
#include <gmodule.h>

G_BEGIN_DECLS

/* ---- running programs ---------------------------------------------------------------------- */

typedef struct {
  /* The exit status, or 128+N when killed by signal N. */
  int exit_code;
  /* N when killed by signal N, else 0. */
  int term_signal;
  char *out;
  char *err;
} DshTestRun;

void      dsh_test_run_clear         (DshTestRun *run);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (DshTestRun, dsh_test_run_clear)

/* Runs argv to completion with env additions ("NAME=value", or "NAME" alone to unset), stdin from
 * stdin_text (NULL: /dev/null), in cwd (NULL: inherit); captures stdout and stderr. run is zeroed
 * or holds an earlier result, which is released first, so one run can be reused. */
void      dsh_test_run               (DshTestRun        *run,
                                      const char *const *argv,
                                      const char *const *env,
                                      const char        *cwd,
                                      const char        *stdin_text);

/* dsh_test_run, calling child_setup (e.g. setsid) in the child before it executes argv. */
void      dsh_test_run_full          (DshTestRun          *run,
                                      const char *const   *argv,
                                      const char *const   *env,
                                      const char          *cwd,
                                      const char          *stdin_text,
                                      GSpawnChildSetupFunc child_setup,
                                      gpointer             child_data);

/* Applies env additions as dsh_test_run does, for a test that drives its own launcher. */
void      dsh_test_launcher_set_env  (GSubprocessLauncher *launcher,
                                      const char *const   *env);

/* The built dsh-sandbox command (from DSH_SANDBOX_CLI), and running it with args. */
const char *dsh_test_cli             (void);
void      dsh_test_run_cli           (DshTestRun        *run,
                                      const char *const *args,
                                      const char *const *env,
                                      const char        *cwd);

/* Appends the strings of strv (NULL: none) to argv, borrowed. */
void      dsh_test_argv_append       (GPtrArray         *argv,
                                      const char *const *strv);

/* One `[PREFIX...] dsh-sandbox exec OPTIONS --report REPORT -- COMMAND` whose report must name
 * backend. */
typedef struct {
  /* What runs the command instead, e.g. a wrapper that denies system calls; NULL: nothing. */
  const char *const *prefix;
  const char *const *options;
  const char *report_path;
  const char *const *env;
  const char *cwd;
  const char *stdin_text;
  const char *backend;
} DshTestExec;

/* Runs it (after removing an old report) and returns the report it wrote, which must exist and
 * name exec->backend. */
JsonNode *dsh_test_exec              (DshTestRun        *run,
                                      const DshTestExec *exec,
                                      const char *const *command);

/* Appends "dsh-test-deny-syscalls --errno E --syscall S --" to argv: what follows runs with those
 * system calls failing with E. */
void      dsh_test_add_deny_syscalls (GPtrArray  *argv,
                                      const char *errno_name,
                                      const char *syscalls);

/* The value of a variable the meson test() sets, or an error naming it. */
const char *dsh_test_getenv_required (const char *name);

/* stderr is exactly one line, starting with prefix and containing needle (NULL: any text). */
void      dsh_test_assert_one_line   (const char       *err,
                                      const char       *prefix,
                                      const char       *needle);
/* The command never ran: exit 125 and one "dsh-sandbox: " line containing needle (or NULL). */
void      dsh_test_assert_refused    (const DshTestRun *run,
                                      const char       *needle);
/* The call was refused before its command ran: exit 125, and the file the command would have
 * made (marker) does not exist. */
void      dsh_test_assert_never_ran  (const DshTestRun *run,
                                      const char       *marker);

/* ---- directories and files ----------------------------------------------------------------- */

/* A fresh private (0700) directory under TMPDIR, removed with its contents at the end of the
 * test. */
char     *dsh_test_make_tmp_dir      (void);

/* A new, empty, canonical directory below DSH_TEST_SCRATCH (the build tree), else /var/tmp:
 * never under /tmp or TMPDIR, which are writable roots themselves, so it stands for "outside
 * every writable root". The caller removes it with dsh_test_remove_tree(). */
char     *dsh_test_scratch_dir       (const char *prefix);
void      dsh_test_remove_tree       (const char *path);
/* name in a fresh scratch directory of its own, removed at the end of the test: a session log
 * out of reach of the session's commands (never in its cwd, /tmp or TMPDIR). */
char     *dsh_test_log_path          (const char *name);

/* parent/name, made a new directory (0755) or a new file holding text, asserting success. */
char     *dsh_test_make_dir          (const char *parent,
                                      const char *name);
char     *dsh_test_make_file         (const char *dir,
                                      const char *name,
                                      const char *text);

void      dsh_test_write_file        (const char *path,
                                      const char *text);
/* Returns a file's contents, or NULL when it cannot be read (e.g. it does not exist). */
char     *dsh_test_read_file         (const char *path);
/* A log's contents, or "" when nothing has created it yet. */
char     *dsh_test_read_log          (const char *path);
void      dsh_test_assert_log_is     (const char *path,
                                      const char *expected);
void      dsh_test_assert_file_is    (const char *path,
                                      const char *expected);
/* The number of lines (newline characters) in a file that must exist. */
guint     dsh_test_count_lines       (const char *path);
/* The number of entries in a directory that must exist: what a race may have left there. */
guint     dsh_test_count_entries     (const char *dir);

/* ---- JSON ---------------------------------------------------------------------------------- */

/* Parses text as JSON (asserting success) and validates it against schemas/<schema>. */
JsonNode *dsh_test_parse_json        (const char *text);
void      dsh_test_assert_valid_json (const char *text,
                                      const char *schema_name);
/* Both: validated against schemas/<schema_name>, then parsed. */
JsonNode *dsh_test_parse_valid_json  (const char *text,
                                      const char *schema_name);
/* The same check as a yes or no, for documents that must be refused. */
gboolean  dsh_test_json_validates    (const char *text,
                                      const char *schema_name);

/* The entry of a probe report's "candidates" whose string member key is value, which must
 * exist. */
JsonObject *dsh_test_candidate       (JsonNode   *report,
                                      const char *key,
                                      const char *value);
/* A string member of the entry of a probe report's "candidates" with this name, which must
 * exist. */
const char *dsh_test_candidate_string (JsonNode   *report,
                                       const char *name,
                                       const char *member);

/* ---- session logs -------------------------------------------------------------------------- */

/* Creates a session log (cwd NULL: the file's directory), asserting success. */
DshSessionLog *dsh_test_create_session_log (const char *path,
                                            const char *cwd);
/* Loads a session log, asserting success. */
DshSessionLog *dsh_test_load_session_log   (const char *path);

/* ---- backend modules ----------------------------------------------------------------------- */

/* A provider that loads the modules of dir alone. */
DshLocalProvider *dsh_test_provider_for_dir (const char *dir);
/* provider's wrapping of a read-only `true` in workspace, asserting success. */
DshConfinedArgv  *dsh_test_confine_true     (DshLocalProvider *provider,
                                             const char       *workspace);

/* The path of a built test module, e.g. "fake-alpha" -> .../libdsh-backend-fake-alpha.so. */
char     *dsh_test_module_path       (const char *name);

/* Opens the built module whose path the meson test sets in env_name (it stays loaded) and looks
 * up its entry point, asserting both. */
GModule  *dsh_test_open_module       (const char *env_name,
                                      const char *entry,
                                      gpointer   *symbol);

/* Copies a module file into dir (mode 0644); returns the new path. */
char     *dsh_test_copy_module       (const char *module_path,
                                      const char *dir);

/* ---- registration -------------------------------------------------------------------------- */

/* "/suite/backend/name", kept for the life of the program: the path of a case of a suite that
 * runs once per backend, to hand to g_test_add(). */
const char *dsh_test_backend_case_path (const char *suite,
                                        const char *backend,
                                        const char *name);

/* ---- prerequisites ------------------------------------------------------------------------- */

/* Returns `available`. When it is FALSE the test is skipped with `what` as the reason, but only
 * outside CI: with CI set it fails, so a suite can never pass in CI by skipping everything. */
gboolean  dsh_test_require           (gboolean    available,
                                      const char *what);

/* dsh_test_require() for an installed bubblewrap. */
gboolean  dsh_test_require_bwrap     (void);

G_END_DECLS
