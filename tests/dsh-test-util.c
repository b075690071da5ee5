/* dsh-test-util.c — shared helpers of the GTest suites.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-test-util.h"

#include <gio/gio.h>
#include <glib/gstdio.h>

void
dsh_test_run_clear (DshTestRun *run)
{
  g_clear_pointer (&run->out, g_free);
  g_clear_pointer (&run->err, g_free);
}

static void
remove_tree (const char *path)
{
  g_autoptr (GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;

  if (dir != NULL)
    {
      while ((name = g_dir_read_name (dir)) != NULL)
        {
          g_autofree char *child = g_build_filename (path, name, NULL);

          if (g_file_test (child, G_FILE_TEST_IS_DIR) &&
              !g_file_test (child, G_FILE_TEST_IS_SYMLINK))
            remove_tree (child);
          else
            g_unlink (child);
        }
    }
  g_rmdir (path);
}

static void
remove_tree_notify (gpointer path)
{
  g_chmod (path, 0700);
  remove_tree (path);
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

char *
dsh_test_module_path (const char *name)
{
  const char *dir = g_getenv ("DSH_TEST_MODULES_DIR");
  g_autofree char *file = g_strdup_printf ("libdsh-backend-%s.%s", name, G_MODULE_SUFFIX);

  g_assert_nonnull (dir);
  return g_build_filename (dir, file, NULL);
}

const char *
dsh_test_cli (void)
{
  const char *cli = g_getenv ("DSH_SANDBOX_CLI");

  g_assert_nonnull (cli);
  return cli;
}

void
dsh_test_run (DshTestRun *run,
              const char *const *argv,
              const char *const *env,
              const char *cwd,
              const char *stdin_text)
{
  g_autoptr (GSubprocessLauncher) launcher = NULL;
  g_autoptr (GSubprocess) process = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) in = NULL;
  g_autoptr (GBytes) out = NULL;
  g_autoptr (GBytes) err = NULL;
  GSubprocessFlags flags = G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE;

  if (stdin_text != NULL)
    flags |= G_SUBPROCESS_FLAGS_STDIN_PIPE;
  launcher = g_subprocess_launcher_new (flags);
  for (gsize i = 0; env != NULL && env[i] != NULL; i++)
    {
      g_auto (GStrv) kv = g_strsplit (env[i], "=", 2);

      if (kv[1] != NULL)
        g_subprocess_launcher_setenv (launcher, kv[0], kv[1], TRUE);
      else
        g_subprocess_launcher_unsetenv (launcher, kv[0]);
    }
  if (cwd != NULL)
    g_subprocess_launcher_set_cwd (launcher, cwd);

  process = g_subprocess_launcher_spawnv (launcher, argv, &error);
  g_assert_no_error (error);
  if (stdin_text != NULL)
    in = g_bytes_new (stdin_text, strlen (stdin_text));
  g_subprocess_communicate (process, in, NULL, &out, &err, &error);
  g_assert_no_error (error);
  g_subprocess_wait (process, NULL, NULL);

  if (g_subprocess_get_if_exited (process))
    run->exit_code = g_subprocess_get_exit_status (process);
  else
    run->exit_code = 128 + g_subprocess_get_term_sig (process);
  /* An empty pipe reads as "", not NULL. */
  run->out = g_strndup (g_bytes_get_size (out) > 0 ? g_bytes_get_data (out, NULL) : "",
                        g_bytes_get_size (out));
  run->err = g_strndup (g_bytes_get_size (err) > 0 ? g_bytes_get_data (err, NULL) : "",
                        g_bytes_get_size (err));
}

JsonNode *
dsh_test_parse_json (const char *text)
{
  g_autoptr (GError) error = NULL;
  JsonNode *node = json_from_string (text, &error);

  g_assert_no_error (error);
  g_assert_nonnull (node);
  return node;
}

void
dsh_test_assert_valid_json (const char *text, const char *schema_name)
{
  const char *validator = g_getenv ("DSH_TEST_VALIDATOR");
  const char *schemas = g_getenv ("DSH_TEST_SCHEMAS_DIR");
  g_autofree char *schema = NULL;
  g_auto (DshTestRun) run = { 0 };

  g_assert_nonnull (validator);
  g_assert_nonnull (schemas);
  schema = g_build_filename (schemas, schema_name, NULL);
  {
    const char *argv[] = { "/usr/bin/python3", validator, schema, "-", NULL };

    dsh_test_run (&run, argv, NULL, NULL, text);
  }
  if (run.exit_code != 0)
    g_error ("%s does not validate against %s:\n%s%s\n--- document ---\n%s", "JSON",
             schema_name, run.out, run.err, text);
}

char *
dsh_test_read_file (const char *path)
{
  char *contents = NULL;

  if (!g_file_get_contents (path, &contents, NULL, NULL))
    return NULL;
  return contents;
}

void
dsh_test_require (gboolean available, const char *what)
{
  if (available)
    return;
  if (g_strcmp0 (g_getenv ("CI"), "true") == 0)
    g_error ("%s is required in CI but missing", what);
  g_test_skip (what);
}
