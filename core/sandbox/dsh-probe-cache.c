/* dsh-probe-cache.c — a small per-user key file recording that the first candidate of a chain
 * passed its functional probe, keyed by everything that outcome depends on: the host's kernel,
 * the exact module files of the chain and the runner files the candidate found; when that
 * candidate heads the chain, the entry also lists the chain's module files in order.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-probe-cache-private.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <string.h>

#include "dsh-platform-private.h"

char *
dsh_probe_cache_default_path (void)
{
  const char *runtime = g_getenv ("XDG_RUNTIME_DIR");
  g_autofree char *dir = NULL;

  /* The runtime directory is private to the user and cleared at logout; otherwise the cache
   * directory under the home. */
  if (runtime != NULL && g_path_is_absolute (runtime))
    dir = g_build_filename (runtime, "dsh-sandbox", NULL);
  else
    dir = g_build_filename (g_get_user_cache_dir (), "dsh-sandbox", NULL);
  /* Only a real directory of our own that nobody else can write: never a link someone put
   * there to have this process write elsewhere. It exists on every call but the first. */
  if (!dsh_platform_is_private_dir (dir) &&
      (g_mkdir_with_parents (dir, 0700) != 0 || !dsh_platform_is_private_dir (dir)))
    return NULL;
  return g_build_filename (dir, "probe-cache-v4.ini", NULL);
}

void
dsh_probe_cache_add_member (GString *key, const char *name, const char *module_path)
{
  g_string_append_printf (key, "module=%s|", name);
  dsh_platform_append_file_identity (key, module_path);
}

void
dsh_probe_cache_add_file (GString *key, const char *path)
{
  g_string_append (key, "runner=");
  dsh_platform_append_file_identity (key, path);
}

void
dsh_probe_cache_add_host_values (GString *key, const char *kernel_release, long landlock_abi)
{
  g_string_append_printf (key, "kernel=%s;landlock=%ld;", kernel_release, landlock_abi);
}

void
dsh_probe_cache_add_host (GString *key)
{
  g_autofree char *release = dsh_platform_kernel_release ();

  /* Booting the same kernel with Landlock disabled changes what a probe would find. */
  dsh_probe_cache_add_host_values (key, release, dsh_platform_landlock_abi ());
}

#define GROUP "probe-cache"
/* An entry is a key of a few hundred bytes per module and runner file. */
#define PROBE_CACHE_MAX_SIZE 16384

gboolean
dsh_probe_cache_read (const char *path, char **key, GStrv *chain)
{
  g_autoptr (GKeyFile) file = NULL;
  char text[PROBE_CACHE_MAX_SIZE];
  gsize len = 0;

  *key = NULL;
  if (chain != NULL)
    *chain = NULL;
  /* Only the user's own, private, regular file is believed, checked on the descriptor that is
   * then read (no FIFO stalls the call); anything larger than an entry this code writes is not
   * one of ours. */
  if (path == NULL || !dsh_platform_read_private_file (path, text, sizeof (text), &len))
    return FALSE;
  file = g_key_file_new ();
  if (!g_key_file_load_from_data (file, text, len, G_KEY_FILE_NONE, NULL))
    return FALSE;

  *key = g_key_file_get_string (file, GROUP, "key", NULL);
  if (*key == NULL)
    return FALSE;
  if (chain != NULL)
    *chain = g_key_file_get_string_list (file, GROUP, "chain", NULL, NULL);
  return TRUE;
}

gboolean
dsh_probe_cache_lookup (const char *path, const char *key)
{
  g_autofree char *stored_key = NULL;

  return dsh_probe_cache_read (path, &stored_key, NULL) && g_str_equal (stored_key, key);
}

void
dsh_probe_cache_store (const char *path, const char *key, const char *const *chain)
{
  g_autoptr (GKeyFile) file = g_key_file_new ();
  g_autofree char *text = NULL;
  gsize len = 0;

  if (path == NULL)
    return;

  g_key_file_set_string (file, GROUP, "key", key);
  if (chain != NULL)
    g_key_file_set_string_list (file, GROUP, "chain", chain, g_strv_length ((char **) chain));
  text = g_key_file_to_data (file, &len, NULL);
  /* Written whole and renamed into place, so a reader never sees half an entry. */
  if (!g_file_set_contents_full (path, text, (gssize) len, G_FILE_SET_CONTENTS_CONSISTENT, 0600,
                                 NULL))
    g_debug ("cannot write the probe cache %s", path);
}
