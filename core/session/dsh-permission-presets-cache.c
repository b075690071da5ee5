/* dsh-permission-presets-cache.c — one kept table of permission presets per process, keyed by
 * the identity of the file it was read from: a long-lived server reads its configuration once,
 * not on every call, and still sees every change to it.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-permission-presets-cache-private.h"

#include <glib/gstdio.h>

/* A file changed this recently (microseconds) may change again without its times moving: they
 * are read here in whole seconds, the kernel stamps them from a clock that advances in ticks,
 * and a network filesystem's clock may be behind ours. A file kept only once it is older than
 * this has times that any later change moves. */
#define RECENT_CHANGE_US (2 * G_USEC_PER_SEC)

typedef struct {
  guint64 dev;
  guint64 ino;
  gint64 size;
  gint64 mtime_s;
  gint64 ctime_s;
} FileIdentity;

static GMutex cache_lock;
static DshPermissionPresets *builtin;
static char *kept_path;
static char *kept_home;
static FileIdentity kept_identity;
static DshPermissionPresets *kept;

static gboolean
identity_of (const char *path, FileIdentity *identity)
{
  GStatBuf st;

  if (g_stat (path, &st) != 0)
    return FALSE;
  identity->dev = (guint64) st.st_dev;
  identity->ino = (guint64) st.st_ino;
  identity->size = (gint64) st.st_size;
  identity->mtime_s = (gint64) st.st_mtime;
  identity->ctime_s = (gint64) st.st_ctime;
  return TRUE;
}

static gboolean
identity_equal (const FileIdentity *a, const FileIdentity *b)
{
  return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
         a->mtime_s == b->mtime_s && a->ctime_s == b->ctime_s;
}

/* Is the kept table the one path (with $HOME as it is) would read now? Called locked. */
static gboolean
kept_matches (const char *path)
{
  FileIdentity now;

  return kept != NULL && g_str_equal (kept_path, path) &&
         g_strcmp0 (kept_home, g_getenv ("HOME")) == 0 && identity_of (path, &now) &&
         identity_equal (&now, &kept_identity);
}

DshPermissionPresets *
dsh_permission_presets_load_cached (const char *path, GError **error)
{
  DshPermissionPresets *presets;
  FileIdentity before, after;
  gboolean known_before;
  gint64 started_us;

  g_mutex_lock (&cache_lock);
  if (path == NULL)
    {
      if (builtin == NULL)
        builtin = dsh_permission_presets_new ();
      presets = g_object_ref (builtin);
      g_mutex_unlock (&cache_lock);
      return presets;
    }
  if (kept_matches (path))
    {
      presets = g_object_ref (kept);
      g_mutex_unlock (&cache_lock);
      return presets;
    }
  g_mutex_unlock (&cache_lock);

  /* Kept only when the file was the same one before and after it was read, and had stopped
   * changing well before: then what was read is what that identity holds. */
  started_us = g_get_real_time ();
  known_before = identity_of (path, &before);
  presets = dsh_permission_presets_new_from_file (path, error);
  if (presets == NULL || !known_before || !identity_of (path, &after) ||
      !identity_equal (&before, &after) ||
      before.ctime_s * G_USEC_PER_SEC >= started_us - RECENT_CHANGE_US ||
      before.mtime_s * G_USEC_PER_SEC >= started_us - RECENT_CHANGE_US)
    return presets;

  g_mutex_lock (&cache_lock);
  g_clear_object (&kept);
  g_free (kept_path);
  g_free (kept_home);
  kept = g_object_ref (presets);
  kept_path = g_strdup (path);
  kept_home = g_strdup (g_getenv ("HOME"));
  kept_identity = before;
  g_mutex_unlock (&cache_lock);
  return presets;
}

gboolean
dsh_permission_presets_cache_holds (const char *path)
{
  gboolean holds;

  g_mutex_lock (&cache_lock);
  holds = path == NULL ? builtin != NULL : kept_matches (path);
  g_mutex_unlock (&cache_lock);
  return holds;
}
