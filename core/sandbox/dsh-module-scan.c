/* dsh-module-scan.c — which files of the module directories are backend modules, in what order
 * they are tried, and which of two modules of one name wins: the same on every platform. Opening
 * and checking each file is the platform's loader's (dsh_backend_module_load()).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-module-loader-private.h"

#include <string.h>
#include <glib/gstdio.h>

#include "dsh-child-path-private.h"

#define MODULE_PREFIX "libdsh-backend-"

void
dsh_backend_module_free (DshBackendModule *module)
{
  if (module == NULL)
    return;
  /* The provider's lifetime ends here: its state goes before the code that owns it. */
  if (module->instance != NULL)
    module->descriptor->instance_free (module->instance);
  /* Modules hold no GTypes, so closing is safe once no descriptor pointer is in use. */
  if (module->module != NULL)
    g_module_close (module->module);
  g_mutex_clear (&module->instance_lock);
  /* Kept open while loaded: a later copy must not reuse its /proc/self/fd name, which the
   * dynamic loader and GModule would take for this library. */
  if (module->content_fd >= 0)
    g_close (module->content_fd, NULL);
  g_free (module->path);
  g_free (module->name);
  g_free (module->description);
  g_free (module->version);
  g_free (module->license);
  g_free (module->origin);
  g_free (module->refused_reason);
  g_free (module);
}

/* "libdsh-backend-foo-bar.so" -> "foo-bar"; NULL for files that are not backend modules. */
static char *
name_from_file (const char *basename)
{
  g_autofree char *suffix = g_strconcat (".", G_MODULE_SUFFIX, NULL);

  if (!g_str_has_prefix (basename, MODULE_PREFIX) || !g_str_has_suffix (basename, suffix))
    return NULL;
  return g_strndup (basename + strlen (MODULE_PREFIX),
                    strlen (basename) - strlen (MODULE_PREFIX) - strlen (suffix));
}

char *
dsh_module_loader_name_from_path (const char *path)
{
  g_autofree char *basename = g_path_get_basename (path);

  return name_from_file (basename);
}

static int
compare_strings (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

static DshBackendModule *
module_new (const char *path, char *name)
{
  DshBackendModule *module = g_new0 (DshBackendModule, 1);

  g_mutex_init (&module->instance_lock);
  module->content_fd = -1;
  module->path = g_strdup (path);
  module->name = name;
  return module;
}

GPtrArray *
dsh_module_loader_open_named (const char *const *dirs,
                              const char *const *untrusted_roots,
                              const char *name)
{
  GPtrArray *modules = g_ptr_array_new_with_free_func ((GDestroyNotify) dsh_backend_module_free);
  g_autofree char *file_name = NULL;

  /* A directory entry never holds a separator: such a name names no file a scan would list. */
  if (name[0] == '\0' || strchr (name, '/') != NULL || strchr (name, G_DIR_SEPARATOR) != NULL)
    return modules;
  file_name = g_strconcat (MODULE_PREFIX, name, ".", G_MODULE_SUFFIX, NULL);

  for (gsize d = 0; dirs != NULL && dirs[d] != NULL; d++)
    {
      g_autofree char *path = dsh_child_path (dirs[d], file_name);
      DshBackendModule *module;
      GStatBuf st;

      /* No entry of that name: a listing of the directory would not have shown one either. */
      if (g_lstat (path, &st) != 0)
        continue;
      module = module_new (path, g_strdup (name));
      dsh_backend_module_load (module, untrusted_roots);
      g_ptr_array_add (modules, module);
      /* A later file of the same name would only be refused as a second one. */
      if (module->refused_reason == NULL)
        break;
    }
  return modules;
}

/* Could a scan of dirs list path: a backend module file right inside one of them? */
static gboolean
lies_in_dirs (const char *const *dirs, const char *path, const char *base)
{
  for (gsize d = 0; dirs != NULL && dirs[d] != NULL; d++)
    {
      g_autofree char *rebuilt = dsh_child_path (dirs[d], base);

      if (g_str_equal (rebuilt, path))
        return TRUE;
    }
  return FALSE;
}

GPtrArray *
dsh_module_loader_open_listed (const char *const *dirs,
                               const char *const *untrusted_roots,
                               const char *const *paths,
                               const char *only_name)
{
  g_autoptr (GPtrArray) modules = g_ptr_array_new_with_free_func (
    (GDestroyNotify) dsh_backend_module_free);
  g_autoptr (GHashTable) names = g_hash_table_new (g_str_hash, g_str_equal);

  for (gsize i = 0; paths[i] != NULL; i++)
    {
      g_autofree char *base = g_path_get_basename (paths[i]);
      char *name = name_from_file (base);
      DshBackendModule *module;

      /* The list comes from a file, not from the directories: each entry must be one a scan of
       * them could list, and name a backend no other entry names. */
      if (name == NULL || !lies_in_dirs (dirs, paths[i], base) ||
          g_hash_table_contains (names, name))
        {
          g_free (name);
          return NULL;
        }
      module = module_new (paths[i], name);
      g_hash_table_add (names, module->name);
      module->excluded = !g_str_equal (module->name, only_name);
      g_ptr_array_add (modules, module);
    }
  /* Opened only once the whole list holds. */
  for (guint i = 0; i < modules->len; i++)
    {
      DshBackendModule *module = modules->pdata[i];

      if (!module->excluded)
        dsh_backend_module_load (module, untrusted_roots);
    }
  return g_steal_pointer (&modules);
}

GPtrArray *
dsh_module_loader_scan (const char *const *dirs,
                        const char *const *untrusted_roots,
                        const char *only_name)
{
  GPtrArray *modules = g_ptr_array_new_with_free_func ((GDestroyNotify) dsh_backend_module_free);
  g_autoptr (GHashTable) names = g_hash_table_new (g_str_hash, g_str_equal);

  for (gsize d = 0; dirs != NULL && dirs[d] != NULL; d++)
    {
      g_autoptr (GDir) dir = g_dir_open (dirs[d], 0, NULL);
      g_autoptr (GPtrArray) files = g_ptr_array_new_with_free_func (g_free);
      const char *entry;

      if (dir == NULL)
        continue;
      while ((entry = g_dir_read_name (dir)) != NULL)
        g_ptr_array_add (files, g_strdup (entry));
      g_ptr_array_sort (files, compare_strings);

      for (guint i = 0; i < files->len; i++)
        {
          g_autofree char *file_name = name_from_file (files->pdata[i]);
          g_autofree char *path = NULL;
          DshBackendModule *module;

          if (file_name == NULL)
            continue;
          path = dsh_child_path (dirs[d], files->pdata[i]);
          module = module_new (path, g_steal_pointer (&file_name));
          module->excluded = only_name != NULL && !g_str_equal (module->name, only_name);
          if (module->excluded)
            {
              g_ptr_array_add (modules, module);
              continue;
            }
          dsh_backend_module_load (module, untrusted_roots);

          if (module->refused_reason == NULL && g_hash_table_contains (names, module->name))
            {
              module->refused_reason = g_strdup_printf ("a backend named \"%s\" was already "
                                                        "loaded from an earlier file",
                                                        module->name);
              g_clear_pointer (&module->module, g_module_close);
              module->descriptor = NULL;
            }
          if (module->refused_reason == NULL)
            g_hash_table_add (names, module->name);
          g_ptr_array_add (modules, module);
        }
    }
  return modules;
}
