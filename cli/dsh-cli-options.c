/* dsh-cli-options.c — what every subcommand shares: error lines, option parsing around "--",
 * JSON printing, and finding the backend modules of this very build.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-cli.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dsh-cli-config.h"
#include "dsh-config.h"
#include "dsh-backend-selector-private.h"
#include "dsh-probe-cache-private.h"
#include "dsh-roots-private.h"
#include "dsh-run-private.h"

const char *
dsh_cli_printable (const char *text)
{
  return g_utf8_validate (text, -1, NULL) ? text : "(not UTF-8)";
}

int
dsh_cli_fail (const char *format, ...)
{
  g_autofree char *message = NULL;
  g_autofree char *valid = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);

  /* One line, always: the text is what other programs match on. */
  valid = g_utf8_make_valid (message, -1);
  g_strdelimit (valid, "\n", ' ');
  fprintf (stderr, "dsh-sandbox: %s\n", valid);
  fflush (stderr);
  return DSH_EXIT_NOT_RUN;
}

int
dsh_cli_fail_error (const GError *error)
{
  return dsh_cli_fail ("%s", error->message);
}

char **
dsh_cli_split_command (int *argc, char **argv)
{
  for (int i = 1; i < *argc; i++)
    {
      if (strcmp (argv[i], "--") == 0)
        {
          char **command = argv + i + 1;

          argv[i] = NULL;
          *argc = i;
          return command;
        }
    }
  return NULL;
}

gboolean
dsh_cli_parse_options (GOptionContext *context, int argc, char **argv, GError **error)
{
  /* parse_strv() frees what it consumes, so it gets its own copy. */
  g_auto (GStrv) parsed = g_new0 (char *, argc + 1);

  for (int i = 0; i < argc; i++)
    parsed[i] = g_strdup (argv[i]);
  if (!g_option_context_parse_strv (context, &parsed, error))
    return FALSE;
  if (g_strv_length (parsed) > 1)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_FAILED,
                   "unexpected argument \"%s\"; put the command after \"--\"",
                   dsh_cli_printable (parsed[1]));
      return FALSE;
    }
  return TRUE;
}

/* Library warnings (crash residue dropped from a session log, say) become one plain line that
 * cannot be mistaken for the single "dsh-sandbox: " line a refusal prints. */
static GLogWriterOutput
write_log (GLogLevelFlags level, const GLogField *fields, gsize n_fields, gpointer user_data)
{
  if ((level & G_LOG_LEVEL_WARNING) == 0)
    return g_log_writer_default (level, fields, n_fields, user_data);

  for (gsize i = 0; i < n_fields; i++)
    {
      if (g_str_equal (fields[i].key, "MESSAGE"))
        {
          g_autofree char *message = g_utf8_make_valid (fields[i].value, fields[i].length);

          g_strdelimit (message, "\n", ' ');
          fprintf (stderr, "dsh-sandbox warning: %s\n", message);
          fflush (stderr);
        }
    }
  return G_LOG_WRITER_HANDLED;
}

void
dsh_cli_ensure_standard_fds (void)
{
  /* A closed 0, 1 or 2 would be taken by the next file or pipe we open, and a command or a
   * runner would then read or write it as if it were stdio. */
  for (int fd = 0; fd <= 2; fd++)
    {
      if (fcntl (fd, F_GETFD) < 0 && errno == EBADF)
        {
          int null_fd = open ("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);

          if (null_fd >= 0 && null_fd != fd)
            {
              dup2 (null_fd, fd);
              close (null_fd);
            }
        }
    }
}

void
dsh_cli_install_log_writer (void)
{
  g_log_set_writer_func (write_log, NULL, NULL);
}

/* Is exe (this process's executable, or NULL) the build tree's command? */
static gboolean
is_build_tree_command (const char *exe)
{
  g_autofree char *exe_dir = NULL;
  g_autofree char *build_dir = NULL;

  if (exe == NULL)
    return FALSE;
  exe_dir = g_path_get_dirname (exe);
  build_dir = g_canonicalize_filename (DSH_BUILD_CLI_DIR, NULL);
  return g_str_equal (exe_dir, build_dir);
}

gboolean
dsh_cli_running_uninstalled (void)
{
  g_autofree char *exe = g_file_read_link ("/proc/self/exe", NULL);

  return is_build_tree_command (exe);
}

/* The dsh-sandbox command that handed over to the full command exe: the build tree's, or the
 * one in the bin directory of the prefix exe's helper directory lies in (the front's
 * full_command_path() the other way round), else the installed one. */
static char *
front_command_path (const char *exe, gboolean uninstalled)
{
  g_autofree char *exe_dir = g_path_get_dirname (exe);
  const char *bin_in_prefix = &DSH_BINDIR[strlen (DSH_PREFIX)];
  const char *helper_in_prefix = &DSH_HELPER_DIR[strlen (DSH_PREFIX)];

  if (uninstalled)
    return g_build_filename (DSH_BUILD_CLI_DIR, "dsh-sandbox", NULL);
  if (g_str_has_prefix (DSH_BINDIR, DSH_PREFIX) && g_str_has_prefix (DSH_HELPER_DIR, DSH_PREFIX) &&
      g_str_has_suffix (exe_dir, helper_in_prefix))
    {
      g_autofree char *prefix = g_strndup (exe_dir, strlen (exe_dir) - strlen (helper_in_prefix));

      return g_build_filename (prefix, bin_in_prefix, "dsh-sandbox", NULL);
    }
  return g_build_filename (DSH_BINDIR, "dsh-sandbox", NULL);
}

void
dsh_cli_protect_own_code (gboolean from_front)
{
  g_autofree char *exe = g_file_read_link ("/proc/self/exe", NULL);
  gboolean uninstalled;

  if (exe == NULL || !g_path_is_absolute (exe))
    return;
  uninstalled = is_build_tree_command (exe);
  /* The one users run first: refusals name it. */
  if (from_front)
    {
      g_autofree char *front = front_command_path (exe, uninstalled);
      g_autofree char *canonical = realpath (front, NULL);

      if (canonical != NULL)
        dsh_roots_protect_own_code (canonical, "executable", uninstalled);
    }
  dsh_roots_protect_own_code (exe, "executable", uninstalled);
}

void
dsh_cli_run_options_init (DshCliRunOptions *self)
{
  const char *cache = g_getenv ("DSH_SANDBOX_PROBE_CACHE");
  gboolean pinned;

  memset (self, 0, sizeof (*self));
  /* Read once: this runs on every exec. */
  self->exe = g_file_read_link ("/proc/self/exe", NULL);
  if (is_build_tree_command (self->exe))
    {
      /* An uninstalled build finds the modules and helpers it was built with, and trusts its
       * own tree even under /tmp. */
      self->backend_dirs = g_strsplit (DSH_BUILD_BACKEND_DIRS, G_SEARCHPATH_SEPARATOR_S, -1);
      self->helper_dirs = g_strsplit (DSH_BUILD_HELPER_DIRS, G_SEARCHPATH_SEPARATOR_S, -1);
      self->options.backend_dirs = (const char *const *) self->backend_dirs;
      self->options.helper_dirs = (const char *const *) self->helper_dirs;
      self->options.uninstalled_build_file = self->exe;
    }

  /* Every call is a new process: without the cache each would pay a functional probe. (One a
   * confined command could write is not used: the selector checks that.) A backend pinned by
   * DSH_SANDBOX_BACKEND is a sole candidate, never probed: the default cache is not even
   * looked for then. */
  pinned = dsh_backend_override_pins (g_getenv ("DSH_SANDBOX_BACKEND")) != NULL;
  if (g_strcmp0 (cache, "off") != 0 && (cache != NULL || !pinned))
    self->probe_cache = cache != NULL && g_path_is_absolute (cache)
                          ? g_strdup (cache)
                          : dsh_probe_cache_default_path ();
  self->options.probe_cache = self->probe_cache;
  self->options.forward_signals = TRUE;
}

void
dsh_cli_run_options_clear (DshCliRunOptions *self)
{
  g_clear_pointer (&self->exe, g_free);
  g_clear_pointer (&self->backend_dirs, g_strfreev);
  g_clear_pointer (&self->helper_dirs, g_strfreev);
  g_clear_pointer (&self->probe_cache, g_free);
}

DshBackendSelector *
dsh_cli_new_selector (const char *workspace_root)
{
  g_autoptr (DshSandboxPolicy) policy = NULL;

  if (workspace_root != NULL)
    policy = dsh_sandbox_policy_new (DSH_SANDBOX_MODE_WORKSPACE_WRITE, workspace_root, NULL);
  return dsh_cli_new_selector_for_policy (policy);
}

DshBackendSelector *
dsh_cli_new_selector_for_policy (const DshSandboxPolicy *policy)
{
  DshCliRunOptions run;
  DshBackendSelector *selector;

  dsh_cli_run_options_init (&run);
  selector = dsh_run_new_selector (policy, &run.options);
  dsh_cli_run_options_clear (&run);
  return selector;
}
