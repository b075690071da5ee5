/* dsh-probe-cache.c — a small per-user key file recording that the first candidate of a chain
 * passed its functional probe, keyed by the exact module files of the chain, trusted briefly.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-probe-cache-private.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <sys/stat.h>
#include <unistd.h>

char *
dsh_probe_cache_default_path (void)
{
  const char *runtime = g_getenv ("XDG_RUNTIME_DIR");
  g_autofree char *dir = NULL;
  struct stat st;

  /* The runtime directory is private to the user and cleared at logout; otherwise the cache
   * directory under the home. */
  if (runtime != NULL && g_path_is_absolute (runtime))
    dir = g_build_filename (runtime, "dsh-sandbox", NULL);
  else
    dir = g_build_filename (g_get_user_cache_dir (), "dsh-sandbox", NULL);
  if (g_mkdir_with_parents (dir, 0700) != 0)
    return NULL;
  /* Only a real directory of our own that nobody else can write: never a link someone put
   * there to have this process write elsewhere. */
  if (lstat (dir, &st) != 0 || !S_ISDIR (st.st_mode) || st.st_uid != getuid () ||
      (st.st_mode & 077) != 0)
    return NULL;
  return g_build_filename (dir, "probe-cache-v3.ini", NULL);
}

void
dsh_probe_cache_add_member (GString *key, const char *name, const char *module_path)
{
  struct stat st;

  if (stat (module_path, &st) != 0)
    memset (&st, 0, sizeof (st));
  g_string_append_printf (key, "%s|%s|%lu|%lu|%lld|%lld.%09ld;", name, module_path,
                          (gulong) st.st_dev, (gulong) st.st_ino, (long long) st.st_size,
                          (long long) st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
}

#define GROUP "probe-cache"

gboolean
dsh_probe_cache_lookup (const char *path, const char *key)
{
  g_autoptr (GKeyFile) file = g_key_file_new ();
  g_autofree char *stored_key = NULL;
  gint64 written;
  gint64 now = g_get_real_time () / G_USEC_PER_SEC;
  struct stat st;

  /* Only the user's own, private file is believed. */
  if (path == NULL || stat (path, &st) != 0 || st.st_uid != getuid () ||
      (st.st_mode & (S_IWGRP | S_IWOTH)) != 0)
    return FALSE;
  if (!g_key_file_load_from_file (file, path, G_KEY_FILE_NONE, NULL))
    return FALSE;

  stored_key = g_key_file_get_string (file, GROUP, "key", NULL);
  written = g_key_file_get_int64 (file, GROUP, "time", NULL);
  return g_strcmp0 (stored_key, key) == 0 && written > 0 && written <= now &&
         now - written <= DSH_PROBE_CACHE_TTL_SECONDS;
}

void
dsh_probe_cache_store (const char *path, const char *key)
{
  g_autoptr (GKeyFile) file = g_key_file_new ();
  g_autofree char *text = NULL;
  gsize len = 0;

  if (path == NULL)
    return;

  g_key_file_set_string (file, GROUP, "key", key);
  g_key_file_set_int64 (file, GROUP, "time", g_get_real_time () / G_USEC_PER_SEC);
  text = g_key_file_to_data (file, &len, NULL);
  /* Written whole and renamed into place, so a reader never sees half an entry. */
  if (!g_file_set_contents_full (path, text, (gssize) len, G_FILE_SET_CONTENTS_CONSISTENT, 0600,
                                 NULL))
    g_debug ("cannot write the probe cache %s", path);
}
