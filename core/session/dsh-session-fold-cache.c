/* dsh-session-fold-cache.c — where a session log's fold cache lives: one file per log, named
 * by a hash of the log's canonical path, in a private directory of the user.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-session-fold-private.h"

#include <glib/gstdio.h>

#include "dsh-platform-private.h"
#include "dsh-roots.h"

char *
dsh_session_fold_cache_path (const char *log_path)
{
  const char *setting = g_getenv ("DSH_SANDBOX_FOLD_CACHE");
  const char *runtime = g_getenv ("XDG_RUNTIME_DIR");
  g_autofree char *dir = NULL;
  g_autofree char *canonical = NULL;
  g_autofree char *name = NULL;
  const char *tmp = g_get_tmp_dir ();

  if (g_strcmp0 (setting, "off") == 0)
    return NULL;
  if (setting != NULL && g_path_is_absolute (setting))
    dir = g_strdup (setting);
  else if (runtime != NULL && g_path_is_absolute (runtime))
    dir = g_build_filename (runtime, "dsh-sandbox", "session-folds", NULL);
  else
    dir = g_build_filename (g_get_user_cache_dir (), "dsh-sandbox", "session-folds", NULL);
  /* Shared scratch space is within every confined command's reach. */
  if (dsh_path_is_beneath (dir, "/tmp") || dsh_path_is_beneath (dir, tmp) ||
      dsh_path_is_beneath (dir, "/var/tmp") || dsh_path_is_beneath (dir, "/dev/shm"))
    return NULL;
  if (g_mkdir_with_parents (dir, 0700) != 0 || !dsh_platform_is_private_dir (dir))
    return NULL;
  canonical = dsh_canonical_path (log_path);
  name = g_compute_checksum_for_string (G_CHECKSUM_SHA256, canonical, -1);
  return g_strdup_printf ("%s/%s.json", dir, name);
}
