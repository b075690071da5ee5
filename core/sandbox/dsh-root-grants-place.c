/* dsh-root-grants-place.c — where the record of granted writable roots lives and where it may
 * not (beneath a root a confined command could erase it), and how a record is refused: the
 * same on every platform.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-root-grants-private.h"

#include "dsh-error.h"
#include "dsh-roots.h"

char *
dsh_root_grants_default_dir (void)
{
  const char *override = g_getenv ("DSH_SANDBOX_STATE_DIR");

  if (override != NULL && *override != '\0')
    return g_strdup (override);
  return g_build_filename (g_get_user_state_dir (), "dsh-sandbox", "granted-roots", NULL);
}

/* What an earlier confined command could have planted on the way to a root: on Windows a
 * junction as well as a symbolic link. */
#ifdef G_OS_WIN32
#define PLANTED_LINK "link"
#else
#define PLANTED_LINK "symlink"
#endif

gboolean
dsh_root_grants_refuse (GError **error, const char *dir, const char *why)
{
  g_autofree char *shown = g_utf8_make_valid (dir, -1);

  g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_ROOT_REFUSED,
               "the record of granted writable roots %s %s: without it a " PLANTED_LINK " planted "
               "by an earlier confined command could not be told apart; refusing to run the "
               "command (DSH_SANDBOX_STATE_DIR names another private directory)",
               shown, why);
  return FALSE;
}

gboolean
dsh_root_grants_check_out_of_reach (DshRootGrants *grants,
                                    const char *const *roots,
                                    GError **error)
{
  const char *dir = dsh_root_grants_dir (grants);

  for (gsize i = 0; roots != NULL && roots[i] != NULL; i++)
    {
      if (dsh_path_is_beneath (dir, roots[i]))
        {
          g_autofree char *root = g_utf8_make_valid (roots[i], -1);
          g_autofree char *why = g_strdup_printf ("lies inside the writable root %s, where a "
                                                  "confined command could erase it",
                                                  root);

          return dsh_root_grants_refuse (error, dir, why);
        }
    }
  return TRUE;
}
