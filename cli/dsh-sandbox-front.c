/* dsh-sandbox-front.c — the dsh-sandbox command as users run it. A plain exec (only --mode,
 * --workspace, --report) is the hot path and runs here, linked against GLib, GObject and
 * GModule alone; everything else (sessions, approval, JSON documents) is handed, argv
 * unchanged, to dsh-sandbox-full, so json-glib and GIO load only when they are needed.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "dsh-cli.h"
#include "dsh-cli-config.h"
#include "dsh-config.h"

/* "exec" with nothing but the options the plain path knows, read from exec's own table as
 * GOption reads them, then "--" and a command: *options and *command receive them. Anything
 * else — another option, --help, a missing value — goes to the full command, which gives the
 * one authoritative answer. A deployment config could change defaults or be broken, so its
 * presence also means the full command. */
static gboolean
is_plain_exec (int argc, char **argv, DshExecOptions *options, char ***command)
{
  if (argc < 2 || strcmp (argv[1], "exec") != 0 || g_getenv ("DSH_SANDBOX_CONFIG") != NULL)
    return FALSE;

  /* argv stays as it is: the full command, if it comes to that, gets it unchanged. */
  for (int i = 2; i < argc; i++)
    {
      if (strcmp (argv[i], "--") == 0)
        {
          *command = argv + i + 1;
          return i + 1 < argc && dsh_exec_options_parse_plain (options, i - 1, argv + 1);
        }
    }
  return FALSE;
}

/* Installed, the full command sits in the helper directory of the same prefix; a staged or
 * moved installation (DESTDIR, a relocated tree) finds it relative to this executable. */
static char *
full_command_path (void)
{
  g_autofree char *exe = NULL;
  g_autofree char *exe_dir = NULL;
  const char *bin_in_prefix = DSH_BINDIR + strlen (DSH_PREFIX);
  const char *helper_in_prefix = DSH_HELPER_DIR + strlen (DSH_PREFIX);

  if (dsh_cli_running_uninstalled ())
    return g_build_filename (DSH_BUILD_CLI_DIR, "dsh-sandbox-full", NULL);

  exe = g_file_read_link ("/proc/self/exe", NULL);
  exe_dir = exe != NULL ? g_path_get_dirname (exe) : NULL;
  if (exe_dir != NULL && g_str_has_prefix (DSH_BINDIR, DSH_PREFIX) &&
      g_str_has_prefix (DSH_HELPER_DIR, DSH_PREFIX) && g_str_has_suffix (exe_dir, bin_in_prefix))
    {
      g_autofree char *prefix = g_strndup (exe_dir, strlen (exe_dir) - strlen (bin_in_prefix));

      return g_build_filename (prefix, helper_in_prefix, "dsh-sandbox-full", NULL);
    }
  return g_build_filename (DSH_HELPER_DIR, "dsh-sandbox-full", NULL);
}

int
main (int argc, char **argv)
{
  g_autofree char *full = NULL;
  DshExecOptions options = { 0 };
  char **command = NULL;
  int status;

  dsh_cli_ensure_standard_fds ();
  dsh_cli_install_log_writer ();
  dsh_cli_protect_own_code (FALSE);

  /* The plain path takes every argument as raw bytes and has no translated text, so it skips
   * the locale entirely; the full command sets its own. */
  if (is_plain_exec (argc, argv, &options, &command))
    {
      status = dsh_cmd_exec_plain (&options, command);
      /* The call is over and its report written. Past stdio's buffers, what is left (the
       * loaded module, the options) goes with the process, without exit's teardown of it. */
      fflush (NULL);
      _exit (status);
    }
  dsh_exec_options_clear (&options);

  full = full_command_path ();
  execv (full, argv);
  return dsh_cli_fail ("cannot start %s: %s", full, g_strerror (errno));
}
