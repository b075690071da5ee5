/* dsh-test-support.c — process running, scratch directories and the CI skip rule for the Linux
 * integration suites.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#define _GNU_SOURCE

#include "dsh-test-support.h"

#include <ftw.h>
#include <gio/gio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#endif

void
dsh_test_run_clear (DshTestRun *run)
{
  g_clear_pointer (&run->out, g_free);
  g_clear_pointer (&run->err, g_free);
}

static char *
bytes_to_string (GBytes *bytes)
{
  gsize len = 0;
  const char *data = bytes != NULL ? g_bytes_get_data (bytes, &len) : NULL;

  return g_strndup (data != NULL ? data : "", len);
}

void
dsh_test_run (const char *cwd,
              const char *const *argv,
              const char *const *env,
              const char *stdin_text,
              int pass_fd,
              DshTestRun *run)
{
  GSubprocessFlags flags = G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE |
                           (stdin_text != NULL ? G_SUBPROCESS_FLAGS_STDIN_PIPE
                                               : G_SUBPROCESS_FLAGS_NONE);
  g_autoptr (GSubprocessLauncher) launcher = g_subprocess_launcher_new (flags);
  g_autoptr (GSubprocess) proc = NULL;
  g_autoptr (GBytes) in = NULL;
  g_autoptr (GBytes) out = NULL;
  g_autoptr (GBytes) err = NULL;
  g_autoptr (GError) error = NULL;

  memset (run, 0, sizeof *run);
  for (gsize i = 0; env != NULL && env[i] != NULL; i++)
    {
      const char *eq = strchr (env[i], '=');

      if (eq != NULL)
        {
          g_autofree char *name = g_strndup (env[i], eq - env[i]);

          g_subprocess_launcher_setenv (launcher, name, eq + 1, TRUE);
        }
      else
        g_subprocess_launcher_unsetenv (launcher, env[i]);
    }
  if (cwd != NULL)
    g_subprocess_launcher_set_cwd (launcher, cwd);
  if (pass_fd >= 0)
    g_subprocess_launcher_take_fd (launcher, dup (pass_fd), 3);

  proc = g_subprocess_launcher_spawnv (launcher, argv, &error);
  g_assert_no_error (error);
  if (stdin_text != NULL)
    in = g_bytes_new (stdin_text, strlen (stdin_text));
  g_subprocess_communicate (proc, in, NULL, &out, &err, &error);
  g_assert_no_error (error);

  run->out = bytes_to_string (out);
  run->err = bytes_to_string (err);
  if (g_subprocess_get_if_signaled (proc))
    {
      run->term_signal = g_subprocess_get_term_sig (proc);
      run->status = 128 + run->term_signal;
    }
  else
    run->status = g_subprocess_get_exit_status (proc);
  g_test_message ("ran %s: status %d\nstdout: %s\nstderr: %s", argv[0], run->status, run->out,
                  run->err);
}

const char *
dsh_test_getenv_required (const char *name)
{
  const char *value = g_getenv (name);

  if (value == NULL || value[0] == '\0')
    g_error ("%s is not set; run this test through `meson test`", name);
  return value;
}

static gboolean
is_beneath (const char *path, const char *root)
{
  gsize len;

  if (root == NULL)
    return FALSE;
  len = strlen (root);
  return strncmp (path, root, len) == 0 && (path[len] == '/' || path[len] == '\0' ||
                                            g_str_equal (root, "/"));
}

char *
dsh_test_scratch_dir (const char *prefix)
{
  /* Scratch space must lie outside every writable root (/tmp and TMPDIR), or "outside the
   * workspace" would be writable: the build directory unless a checkout under /tmp puts it
   * there, else /var/tmp. */
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
      g_assert_nonnull (g_mkdtemp (template));
      return realpath (template, NULL);
    }
  g_error ("no scratch directory outside /tmp and TMPDIR");
}

static int
remove_entry (const char *path, const struct stat *st, int type, struct FTW *ftw)
{
  (void) st;
  (void) type;
  (void) ftw;
  if (remove (path) != 0)
    g_test_message ("could not remove %s", path);
  return 0;
}

void
dsh_test_remove_tree (const char *path)
{
  if (path != NULL)
    nftw (path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

void
dsh_test_write_file (const char *path, const char *text)
{
  g_autoptr (GError) error = NULL;

  g_file_set_contents (path, text, -1, &error);
  g_assert_no_error (error);
}

char *
dsh_test_read_file (const char *path)
{
  char *contents = NULL;

  if (!g_file_get_contents (path, &contents, NULL, NULL))
    return NULL;
  return contents;
}

gboolean
dsh_test_require (gboolean available, const char *why)
{
  if (available)
    return TRUE;
  if (g_getenv ("CI") != NULL)
    g_test_fail_printf ("required in CI but unavailable: %s", why);
  else
    g_test_skip (why);
  return FALSE;
}

long
dsh_test_landlock_abi (void)
{
  return syscall (__NR_landlock_create_ruleset, NULL, 0, 1U);
}

guint
dsh_test_count_lines_with (const char *text, const char *needle)
{
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  guint n = 0;

  for (gsize i = 0; lines[i] != NULL; i++)
    if (strstr (lines[i], needle) != NULL)
      n++;
  return n;
}
