/* dsh-probe-cache.c — a small per-user JSON file recording which candidate of a chain passed its
 * functional probe, keyed by the exact module files of the chain, and trusted only briefly.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-probe-cache-private.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <sys/stat.h>
#include <unistd.h>

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
  if (g_mkdir_with_parents (dir, 0700) != 0)
    return NULL;
  return g_build_filename (dir, "probe-cache-v1.json", NULL);
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

gboolean
dsh_probe_cache_lookup (const char *path,
                        const char *key,
                        char **selected,
                        GHashTable **failures)
{
  g_autoptr (JsonParser) parser = json_parser_new ();
  JsonObject *root;
  JsonObject *failed;
  g_autoptr (GList) members = NULL;
  gint64 written;
  gint64 now = g_get_real_time () / G_USEC_PER_SEC;
  struct stat st;

  /* Only the user's own, private file is believed. */
  if (path == NULL || stat (path, &st) != 0 || st.st_uid != getuid () ||
      (st.st_mode & (S_IWGRP | S_IWOTH)) != 0)
    return FALSE;
  if (!json_parser_load_from_mapped_file (parser, path, NULL) ||
      !JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
    return FALSE;

  root = json_node_get_object (json_parser_get_root (parser));
  written = json_object_get_int_member_with_default (root, "time", 0);
  if (g_strcmp0 (json_object_get_string_member_with_default (root, "key", NULL), key) != 0 ||
      written > now || now - written > DSH_PROBE_CACHE_TTL_SECONDS ||
      !json_object_has_member (root, "selected") ||
      !json_object_has_member (root, "failed"))
    return FALSE;

  failed = json_object_get_object_member (root, "failed");
  if (failed == NULL)
    return FALSE;
  *selected = g_strdup (json_object_get_string_member_with_default (root, "selected", ""));
  *failures = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  members = json_object_get_members (failed);
  for (GList *l = members; l != NULL; l = l->next)
    g_hash_table_insert (*failures, g_strdup (l->data),
                         g_strdup (json_object_get_string_member_with_default (failed, l->data,
                                                                               "")));
  return TRUE;
}

void
dsh_probe_cache_store (const char *path, const char *key, const char *selected,
                       GHashTable *failures)
{
  g_autoptr (JsonBuilder) builder = json_builder_new ();
  g_autoptr (JsonGenerator) generator = json_generator_new ();
  g_autoptr (JsonNode) root = NULL;
  g_autofree char *text = NULL;
  GHashTableIter iter;
  gpointer name, detail;

  if (path == NULL)
    return;

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "key");
  json_builder_add_string_value (builder, key);
  json_builder_set_member_name (builder, "time");
  json_builder_add_int_value (builder, g_get_real_time () / G_USEC_PER_SEC);
  json_builder_set_member_name (builder, "selected");
  json_builder_add_string_value (builder, selected);
  json_builder_set_member_name (builder, "failed");
  json_builder_begin_object (builder);
  g_hash_table_iter_init (&iter, failures);
  while (g_hash_table_iter_next (&iter, &name, &detail))
    {
      json_builder_set_member_name (builder, name);
      json_builder_add_string_value (builder, detail);
    }
  json_builder_end_object (builder);
  json_builder_end_object (builder);

  root = json_builder_get_root (builder);
  json_generator_set_root (generator, root);
  text = json_generator_to_data (generator, NULL);
  /* Written whole and renamed into place, so a reader never sees half an entry. */
  if (!g_file_set_contents_full (path, text, -1, G_FILE_SET_CONTENTS_CONSISTENT, 0600, NULL))
    g_debug ("cannot write the probe cache %s", path);
}
