/* dsh-test-util.c — the helpers every test suite shares.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#define _GNU_SOURCE

#include "dsh-test-util.h"

#include <ftw.h>
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- running programs ---------------------------------------------------------------------- */

/* Every test process keeps its own record of granted roots, beside its scratch space: grants made
 * by another suite, or by an earlier run on this machine, would otherwise turn this one's
 * symlinks into planted ones. It replaces the one the script suites share; a test that sets
 * DSH_SANDBOX_STATE_DIR itself later keeps its own. */
__attribute__ ((constructor)) static void
use_private_state_dir (void)
{
  const char *scratch = g_getenv ("DSH_TEST_SCRATCH");
  g_autofree char *dir = NULL;

  if (scratch == NULL)
    return;
  dir = g_build_filename (scratch, "state-XXXXXX", NULL);
  if (g_mkdtemp_full (dir, 0700) != NULL)
    g_setenv ("DSH_SANDBOX_STATE_DIR", dir, TRUE);
}

void
dsh_test_run_clear (DshTestRun *run)
{
  g_clear_pointer (&run->out, g_free);
  g_clear_pointer (&run->err, g_free);
}

/* An empty pipe reads as "", not NULL. */
static char *
bytes_to_string (GBytes *bytes)
{
  gsize len = 0;
  const char *data = bytes != NULL ? g_bytes_get_data (bytes, &len) : NULL;

  return g_strndup (data != NULL ? data : "", len);
}

void
dsh_test_launcher_set_env (GSubprocessLauncher *launcher, const char *const *env)
{
  for (gsize i = 0; env != NULL && env[i] != NULL; i++)
    {
      g_auto (GStrv) kv = g_strsplit (env[i], "=", 2);

      if (kv[1] != NULL)
        g_subprocess_launcher_setenv (launcher, kv[0], kv[1], TRUE);
      else
        g_subprocess_launcher_unsetenv (launcher, kv[0]);
    }
}

void
dsh_test_run_full (DshTestRun *run,
                   const char *const *argv,
                   const char *const *env,
                   const char *cwd,
                   const char *stdin_text,
                   GSpawnChildSetupFunc child_setup,
                   gpointer child_data)
{
  GSubprocessFlags flags = G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE |
                           (stdin_text != NULL ? G_SUBPROCESS_FLAGS_STDIN_PIPE
                                               : G_SUBPROCESS_FLAGS_NONE);
  g_autoptr (GSubprocessLauncher) launcher = g_subprocess_launcher_new (flags);
  g_autoptr (GSubprocess) process = NULL;
  g_autoptr (GBytes) in = NULL;
  g_autoptr (GBytes) out = NULL;
  g_autoptr (GBytes) err = NULL;
  g_autoptr (GError) error = NULL;

  dsh_test_run_clear (run);
  dsh_test_launcher_set_env (launcher, env);
  if (cwd != NULL)
    g_subprocess_launcher_set_cwd (launcher, cwd);
  if (child_setup != NULL)
    g_subprocess_launcher_set_child_setup (launcher, child_setup, child_data, NULL);

  process = g_subprocess_launcher_spawnv (launcher, argv, &error);
  g_assert_no_error (error);
  if (stdin_text != NULL)
    in = g_bytes_new (stdin_text, strlen (stdin_text));
  g_subprocess_communicate (process, in, NULL, &out, &err, &error);
  g_assert_no_error (error);

  run->out = bytes_to_string (out);
  run->err = bytes_to_string (err);
  if (g_subprocess_get_if_signaled (process))
    {
      run->term_signal = g_subprocess_get_term_sig (process);
      run->exit_code = 128 + run->term_signal;
    }
  else
    {
      run->term_signal = 0;
      run->exit_code = g_subprocess_get_exit_status (process);
    }
  g_test_message ("ran %s: exit %d\nstdout: %s\nstderr: %s", argv[0], run->exit_code, run->out,
                  run->err);
}

void
dsh_test_run (DshTestRun *run,
              const char *const *argv,
              const char *const *env,
              const char *cwd,
              const char *stdin_text)
{
  dsh_test_run_full (run, argv, env, cwd, stdin_text, NULL, NULL);
}

const char *
dsh_test_cli (void)
{
  return dsh_test_getenv_required ("DSH_SANDBOX_CLI");
}

void
dsh_test_run_cli (DshTestRun *run,
                  const char *const *args,
                  const char *const *env,
                  const char *cwd)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();

  g_ptr_array_add (argv, (gpointer) dsh_test_cli ());
  dsh_test_argv_append (argv, args);
  g_ptr_array_add (argv, NULL);
  dsh_test_run (run, (const char *const *) argv->pdata, env, cwd, NULL);
}

void
dsh_test_argv_append (GPtrArray *argv, const char *const *strv)
{
  for (gsize i = 0; strv != NULL && strv[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) strv[i]);
}

JsonNode *
dsh_test_exec (DshTestRun *run, const DshTestExec *exec, const char *const *command)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  const char *report_args[] = { "--report", exec->report_path, "--", NULL };
  g_autofree char *text = NULL;
  JsonNode *report;

  dsh_test_argv_append (argv, exec->prefix);
  g_ptr_array_add (argv, (gpointer) dsh_test_cli ());
  g_ptr_array_add (argv, (gpointer) "exec");
  dsh_test_argv_append (argv, exec->options);
  dsh_test_argv_append (argv, report_args);
  dsh_test_argv_append (argv, command);
  g_ptr_array_add (argv, NULL);

  g_unlink (exec->report_path);
  dsh_test_run (run, (const char *const *) argv->pdata, exec->env, exec->cwd, exec->stdin_text);
  text = dsh_test_read_file (exec->report_path);
  g_assert_nonnull (text);
  report = dsh_test_parse_json (text);
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (report), "backend"), ==,
                   exec->backend);
  return report;
}

void
dsh_test_add_deny_syscalls (GPtrArray *argv, const char *errno_name, const char *syscalls)
{
  g_ptr_array_add (argv, (gpointer) dsh_test_getenv_required ("DSH_TEST_DENY_SYSCALLS"));
  g_ptr_array_add (argv, (gpointer) "--errno");
  g_ptr_array_add (argv, (gpointer) errno_name);
  g_ptr_array_add (argv, (gpointer) "--syscall");
  g_ptr_array_add (argv, (gpointer) syscalls);
  g_ptr_array_add (argv, (gpointer) "--");
}

const char *
dsh_test_getenv_required (const char *name)
{
  const char *value = g_getenv (name);

  if (value == NULL || value[0] == '\0')
    g_error ("%s is not set; run this test through `meson test`", name);
  return value;
}

/* ---- directories and files ----------------------------------------------------------------- */

static int
remove_entry (const char *path, const struct stat *st, int type, struct FTW *ftw)
{
  if (remove (path) != 0)
    g_test_message ("could not remove %s", path);
  return 0;
}

void
dsh_test_remove_tree (const char *path)
{
  if (path == NULL)
    return;
  /* A test may have narrowed the directory's own mode. */
  g_chmod (path, 0700);
  nftw (path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static void
remove_tree_notify (gpointer path)
{
  dsh_test_remove_tree (path);
  g_free (path);
}

char *
dsh_test_make_tmp_dir (void)
{
  g_autoptr (GError) error = NULL;
  char *dir = g_dir_make_tmp ("dsh-test-XXXXXX", &error);

  g_assert_no_error (error);
  g_test_queue_destroy (remove_tree_notify, g_strdup (dir));
  return dir;
}

/* realpath() fails for a missing root, which then holds nothing. */
static gboolean
is_beneath (const char *path, const char *root)
{
  return root != NULL && dsh_path_is_beneath (path, root);
}

char *
dsh_test_scratch_dir (const char *prefix)
{
  /* The build directory, unless a checkout under /tmp puts it there; else /var/tmp. */
  const char *candidates[] = { dsh_test_getenv_required ("DSH_TEST_SCRATCH"), "/var/tmp" };
  g_autofree char *tmp = realpath ("/tmp", NULL);
  g_autofree char *tmpdir = realpath (g_get_tmp_dir (), NULL);

  for (guint i = 0; i < G_N_ELEMENTS (candidates); i++)
    {
      g_autofree char *base = realpath (candidates[i], NULL);
      g_autofree char *template = NULL;

      if (base == NULL || is_beneath (base, tmp) || is_beneath (base, tmpdir))
        continue;
      template = g_strdup_printf ("%s/%s-XXXXXX", base, prefix);
      g_assert_nonnull (g_mkdtemp_full (template, 0755));
      return realpath (template, NULL);
    }
  g_error ("no scratch directory outside /tmp and TMPDIR");
}

char *
dsh_test_log_path (const char *name)
{
  g_autofree char *dir = dsh_test_scratch_dir ("log");

  g_test_queue_destroy (remove_tree_notify, g_strdup (dir));
  return g_build_filename (dir, name, NULL);
}

void
dsh_test_write_file (const char *path, const char *text)
{
  g_autoptr (GError) error = NULL;

  g_file_set_contents (path, text, -1, &error);
  g_assert_no_error (error);
}

char *
dsh_test_make_dir (const char *parent, const char *name)
{
  char *path = g_build_filename (parent, name, NULL);

  g_assert_cmpint (g_mkdir (path, 0755), ==, 0);
  return path;
}

char *
dsh_test_make_file (const char *dir, const char *name, const char *text)
{
  char *path = g_build_filename (dir, name, NULL);

  dsh_test_write_file (path, text);
  return path;
}

char *
dsh_test_read_file (const char *path)
{
  char *contents = NULL;

  if (!g_file_get_contents (path, &contents, NULL, NULL))
    return NULL;
  return contents;
}

char *
dsh_test_read_log (const char *path)
{
  char *contents = dsh_test_read_file (path);

  return contents != NULL ? contents : g_strdup ("");
}

void
dsh_test_assert_log_is (const char *path, const char *expected)
{
  g_autofree char *log = dsh_test_read_log (path);

  g_assert_cmpstr (log, ==, expected);
}

void
dsh_test_assert_file_is (const char *path, const char *expected)
{
  g_autofree char *contents = dsh_test_read_file (path);

  g_assert_cmpstr (contents, ==, expected);
}

guint
dsh_test_count_lines (const char *path)
{
  g_autofree char *contents = dsh_test_read_file (path);
  guint n = 0;

  g_assert_nonnull (contents);
  for (const char *p = contents; *p != '\0'; p++)
    n += *p == '\n';
  return n;
}

guint
dsh_test_count_entries (const char *dir)
{
  g_autoptr (GDir) listing = g_dir_open (dir, 0, NULL);
  guint n = 0;

  g_assert_nonnull (listing);
  while (g_dir_read_name (listing) != NULL)
    n++;
  return n;
}

/* ---- JSON ---------------------------------------------------------------------------------- */

JsonNode *
dsh_test_parse_json (const char *text)
{
  g_autoptr (GError) error = NULL;
  JsonNode *node = json_from_string (text, &error);

  g_assert_no_error (error);
  g_assert_nonnull (node);
  return node;
}

static void
validate_json (DshTestRun *run, const char *text, const char *schema_name)
{
  const char *validator = dsh_test_getenv_required ("DSH_TEST_VALIDATOR");
  g_autofree char *schema = g_build_filename (dsh_test_getenv_required ("DSH_TEST_SCHEMAS_DIR"),
                                              schema_name, NULL);
  const char *argv[] = { "/usr/bin/python3", validator, schema, "-", NULL };

  dsh_test_run (run, argv, NULL, NULL, text);
}

void
dsh_test_assert_valid_json (const char *text, const char *schema_name)
{
  g_auto (DshTestRun) run = { 0 };

  validate_json (&run, text, schema_name);
  if (run.exit_code != 0)
    g_error ("%s does not validate against %s:\n%s%s\n--- document ---\n%s", "JSON",
             schema_name, run.out, run.err, text);
}

JsonNode *
dsh_test_parse_valid_json (const char *text, const char *schema_name)
{
  dsh_test_assert_valid_json (text, schema_name);
  return dsh_test_parse_json (text);
}

gboolean
dsh_test_json_validates (const char *text, const char *schema_name)
{
  g_auto (DshTestRun) run = { 0 };

  validate_json (&run, text, schema_name);
  return run.exit_code == 0;
}

JsonObject *
dsh_test_candidate (JsonNode *report, const char *key, const char *value)
{
  JsonArray *candidates = json_object_get_array_member (json_node_get_object (report),
                                                        "candidates");

  for (guint i = 0; i < json_array_get_length (candidates); i++)
    {
      JsonObject *c = json_array_get_object_element (candidates, i);

      if (g_str_equal (json_object_get_string_member (c, key), value))
        return c;
    }
  g_error ("the probe report has no candidate whose %s is \"%s\"", key, value);
}

const char *
dsh_test_candidate_string (JsonNode *report, const char *name, const char *member)
{
  return json_object_get_string_member (dsh_test_candidate (report, "name", name), member);
}

/* ---- session logs -------------------------------------------------------------------------- */

DshSessionLog *
dsh_test_create_session_log (const char *path, const char *cwd)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_path_get_dirname (path);
  DshSessionLog *log = dsh_session_log_create (path, cwd != NULL ? cwd : dir, &error);

  g_assert_no_error (error);
  g_assert_nonnull (log);
  return log;
}

DshSessionLog *
dsh_test_load_session_log (const char *path)
{
  g_autoptr (GError) error = NULL;
  DshSessionLog *log = dsh_session_log_load (path, &error);

  g_assert_no_error (error);
  g_assert_nonnull (log);
  return log;
}

/* ---- backend modules ----------------------------------------------------------------------- */

GModule *
dsh_test_open_module (const char *env_name, const char *entry, gpointer *symbol)
{
  GModule *module = g_module_open (dsh_test_getenv_required (env_name),
                                   G_MODULE_BIND_LAZY | G_MODULE_BIND_LOCAL);

  g_assert_nonnull (module);
  g_assert_true (g_module_symbol (module, entry, symbol));
  return module;
}

DshLocalProvider *
dsh_test_provider_for_dir (const char *dir)
{
  const char *dirs[] = { dir, NULL };

  return dsh_local_provider_new_for_dirs (dirs, NULL);
}

DshConfinedArgv *
dsh_test_confine_true (DshLocalProvider *provider, const char *workspace)
{
  g_autoptr (DshSandboxPolicy) policy = dsh_sandbox_policy_new (DSH_SANDBOX_MODE_READ_ONLY,
                                                                workspace, NULL);
  g_autoptr (GError) error = NULL;
  const char *argv[] = { "true", NULL };
  DshConfinedArgv *confined;

  confined = dsh_sandbox_provider_confine (DSH_SANDBOX_PROVIDER (provider), argv, policy, &error);
  g_assert_no_error (error);
  return confined;
}

char *
dsh_test_module_path (const char *name)
{
  g_autofree char *file = g_strdup_printf ("libdsh-backend-%s.%s", name, G_MODULE_SUFFIX);

  return g_build_filename (dsh_test_getenv_required ("DSH_TEST_MODULES_DIR"), file, NULL);
}

char *
dsh_test_copy_module (const char *module_path, const char *dir)
{
  g_autofree char *base = g_path_get_basename (module_path);
  char *dest = g_build_filename (dir, base, NULL);
  g_autoptr (GFile) src = g_file_new_for_path (module_path);
  g_autoptr (GFile) dst = g_file_new_for_path (dest);
  g_autoptr (GError) error = NULL;

  g_file_copy (src, dst, G_FILE_COPY_OVERWRITE, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (g_chmod (dest, 0644), ==, 0);
  return dest;
}

/* ---- registration -------------------------------------------------------------------------- */

const char *
dsh_test_backend_case_path (const char *suite, const char *backend, const char *name)
{
  g_autofree char *path = g_strdup_printf ("/%s/%s/%s", suite, backend, name);

  return g_intern_string (path);
}

/* ---- prerequisites ------------------------------------------------------------------------- */

gboolean
dsh_test_require (gboolean available, const char *what)
{
  if (available)
    return TRUE;
  if (g_getenv ("CI") != NULL)
    g_test_fail_printf ("required in CI but unavailable: %s", what);
  else
    g_test_skip (what);
  return FALSE;
}

gboolean
dsh_test_require_bwrap (void)
{
  g_autofree char *bwrap = g_find_program_in_path ("bwrap");

  return dsh_test_require (bwrap != NULL, "bwrap is not installed");
}

void
dsh_test_assert_one_line (const char *err, const char *prefix, const char *needle)
{
  if (!g_str_has_prefix (err, prefix) || !g_str_has_suffix (err, "\n") ||
      memchr (err, '\n', strlen (err) - 1) != NULL)
    g_error ("stderr is not one \"%s\" line: %s", prefix, err);
  if (needle != NULL && strstr (err, needle) == NULL)
    g_error ("stderr lacks \"%s\": %s", needle, err);
}

void
dsh_test_assert_refused (const DshTestRun *run, const char *needle)
{
  g_assert_cmpint (run->exit_code, ==, 125);
  dsh_test_assert_one_line (run->err, "dsh-sandbox: ", needle);
}

void
dsh_test_assert_never_ran (const DshTestRun *run, const char *marker)
{
  g_assert_cmpint (run->exit_code, ==, 125);
  g_assert_false (g_file_test (marker, G_FILE_TEST_EXISTS));
}
