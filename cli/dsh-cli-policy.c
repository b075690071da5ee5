/* dsh-cli-policy.c — turning --mode and --workspace into a per-call policy, refusing anything
 * malformed with a clear message instead of guessing.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-cli.h"

#include <sys/stat.h>

/* *known_dir: the path was just seen to be this very directory. */
static char *
default_workspace (gboolean *known_dir)
{
  const char *pwd = g_getenv ("PWD");
  struct stat here, there;

  /* The path the caller knows the directory by, not the one the kernel already resolved: a
   * symlink planted on the way to it can only be noticed while its spelling is still around. */
  *known_dir = pwd != NULL && g_path_is_absolute (pwd) && stat (".", &here) == 0 &&
               stat (pwd, &there) == 0 && here.st_dev == there.st_dev &&
               here.st_ino == there.st_ino;
  if (*known_dir)
    return g_strdup (pwd);
  return g_get_current_dir ();
}

char *
dsh_cli_default_workspace (void)
{
  gboolean known_dir;

  return default_workspace (&known_dir);
}

DshSandboxPolicy *
dsh_cli_resolve_policy (const char *mode_text,
                        const char *workspace,
                        char **out_spelled_workspace,
                        GError **error)
{
  DshSandboxMode mode = DSH_SANDBOX_MODE_DEFAULT;
  g_autofree char *cwd = NULL;
  g_autofree char *root = NULL;
  gboolean known_dir = FALSE;

  if (mode_text != NULL && !dsh_sandbox_mode_from_string (mode_text, &mode, error))
    return NULL;

  if (workspace == NULL)
    workspace = cwd = default_workspace (&known_dir);
  if (!g_utf8_validate (workspace, -1, NULL))
    {
      g_set_error_literal (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT,
                           "the workspace path is not valid UTF-8");
      return NULL;
    }
  if (cwd == NULL && !g_path_is_absolute (workspace))
    {
      g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT,
                   "the workspace \"%s\" is not an absolute path", workspace);
      return NULL;
    }
  if (!known_dir && !g_file_test (workspace, G_FILE_TEST_IS_DIR))
    {
      g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT,
                   "the workspace \"%s\" is not an existing directory", workspace);
      return NULL;
    }

  root = dsh_workspace_root (NULL, workspace);
  if (!g_utf8_validate (root, -1, NULL))
    {
      g_set_error_literal (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT,
                           "the canonical workspace path is not valid UTF-8");
      return NULL;
    }
  if (out_spelled_workspace != NULL)
    *out_spelled_workspace = cwd != NULL ? g_steal_pointer (&cwd) : g_strdup (workspace);
  return dsh_sandbox_policy_new (mode, root, NULL);
}
