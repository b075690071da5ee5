/* dsh-root-grants-place.c — where the record of granted writable roots and the session fold
 * caches live and where they may not (within reach of any call's writable roots: a confined
 * command could erase the one and forge the other for a later call), how a record is refused,
 * which directory above a path some call granted (nothing found beneath it is trusted), and how
 * its entries are named and what they hold: the same on every platform.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-root-grants-private.h"

#include <string.h>

#include "dsh-error.h"
#include "dsh-roots.h"
#include "dsh-roots-private.h"

char *
dsh_root_grants_default_dir (void)
{
  const char *override = g_getenv ("DSH_SANDBOX_STATE_DIR");
  const char *state;

  if (override != NULL && *override != '\0')
    return g_strdup (override);
  state = g_get_user_state_dir ();
#ifndef G_OS_WIN32
  /* What g_build_filename() makes of it, without its general work, when state ends in a name
   * (on Windows it picks the separator the path already uses). */
  if (*state != '\0' && state[strlen (state) - 1] != '/')
    return g_strconcat (state, "/dsh-sandbox/granted-roots", NULL);
#endif
  return g_build_filename (state, "dsh-sandbox", "granted-roots", NULL);
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

/* DSH_SANDBOX_FOLD_CACHE when it names a directory of its own, else NULL. */
static const char *
fold_cache_setting (void)
{
  const char *setting = g_getenv ("DSH_SANDBOX_FOLD_CACHE");

  return setting != NULL && g_path_is_absolute (setting) ? setting : NULL;
}

char *
dsh_fold_cache_dir (void)
{
  const char *setting = g_getenv ("DSH_SANDBOX_FOLD_CACHE");
  g_autofree char *record = NULL;

  if (g_strcmp0 (setting, "off") == 0)
    return NULL;
  if (fold_cache_setting () != NULL)
    return g_strdup (setting);
  record = dsh_root_grants_default_dir ();
  return g_build_filename (record, "session-folds", NULL);
}

static gboolean
refuse_fold_cache (GError **error, const char *dir, const char *where, const char *root)
{
  g_autofree char *shown = g_utf8_make_valid (dir, -1);
  g_autofree char *shown_root = g_utf8_make_valid (root, -1);

  g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_ROOT_REFUSED,
               "the session fold cache %s %s the writable root %s, where a confined command "
               "could forge what a later call trusts; refusing to run the command "
               "(DSH_SANDBOX_FOLD_CACHE names another private directory, or off)",
               shown, where, shown_root);
  return FALSE;
}

gboolean
dsh_root_grants_check_out_of_reach (DshRootGrants *grants,
                                    const char *const *roots,
                                    GError **error)
{
  const char *dir = dsh_root_grants_dir (grants);
  g_autofree char *folds = NULL;

  /* The fold caches live inside the record unless DSH_SANDBOX_FOLD_CACHE moves them: then their
   * directory is kept out of every call's reach too, as the record is. */
  if (fold_cache_setting () != NULL)
    folds = dsh_canonical_path (fold_cache_setting ());
  for (gsize i = 0; roots != NULL && roots[i] != NULL; i++)
    {
      if (dsh_path_is_beneath (dir, roots[i]) || dsh_path_is_beneath (roots[i], dir))
        {
          g_autofree char *root = g_utf8_make_valid (roots[i], -1);
          g_autofree char *why =
            dsh_path_is_beneath (dir, roots[i])
              ? g_strdup_printf ("lies inside the writable root %s, where a confined command "
                                 "could erase it",
                                 root)
              : g_strdup_printf ("holds the writable root %s, where a confined command could "
                                 "change what it keeps",
                                 root);
          return dsh_root_grants_refuse (error, dir, why);
        }
      if (folds != NULL && dsh_path_is_beneath (folds, roots[i]))
        return refuse_fold_cache (error, folds, "lies inside", roots[i]);
      if (folds != NULL && dsh_path_is_beneath (roots[i], folds))
        return refuse_fold_cache (error, folds, "holds", roots[i]);
    }
  return TRUE;
}

char *
dsh_root_grants_granted_at_or_above (DshRootGrants *grants, const char *path, GHashTable *asked)
{
  g_autofree char *dir = g_strdup (path);

  for (;;)
    {
      gpointer known;
      gboolean granted;
      char *parent;

      if (asked != NULL && g_hash_table_lookup_extended (asked, dir, NULL, &known))
        granted = GPOINTER_TO_INT (known);
      else
        {
          DshRootIdentity identity;
          gint64 since;

          granted = dsh_root_identity_of_path (dir, &identity) &&
                    dsh_root_grants_lookup (grants, &identity, &since);
          if (asked != NULL)
            g_hash_table_insert (asked, g_strdup (dir), GINT_TO_POINTER (granted));
        }
      if (granted)
        return g_steal_pointer (&dir);
      parent = g_path_get_dirname (dir);
      if (g_str_equal (parent, dir))
        {
          g_free (parent);
          return NULL;
        }
      g_free (dir);
      dir = parent;
    }
}

char *
dsh_root_grants_granted_ancestor (DshRootGrants *grants, const char *path)
{
  g_autofree char *spelled = dsh_absolute_path_as_spelled (path);

  return dsh_roots_granted_on_the_way (grants, spelled);
}

gboolean
dsh_root_grants_find_granted_above (const char *path, char **out_granted, GError **error)
{
  g_autofree char *record = dsh_root_grants_default_dir ();
  g_autoptr (DshRootGrants) grants = dsh_root_grants_open (record, error);

  *out_granted = NULL;
  if (grants == NULL)
    return FALSE;
  *out_granted = dsh_root_grants_granted_ancestor (grants, path);
  return TRUE;
}

char *
dsh_root_grants_untrusted_above (const char *path)
{
  char *granted = NULL;

  /* Without a record nothing can be told apart: the path itself is not trusted. */
  if (!dsh_root_grants_find_granted_above (path, &granted, NULL))
    return dsh_canonical_path (path);
  return granted;
}

/* Appends value in lower-case hexadecimal, without leading zeros. */
static char *
append_hex (char *out, guint64 value)
{
  char digits[16];
  int n = 0;

  do
    {
      digits[n++] = "0123456789abcdef"[value & 0xf];
      value >>= 4;
    }
  while (value != 0);
  while (n > 0)
    *out++ = digits[--n];
  return out;
}

void
dsh_root_grants_entry_name (const DshRootIdentity *identity,
                            char name[DSH_ROOT_GRANTS_ENTRY_NAME_SIZE])
{
  char *p = name;

  p = append_hex (p, identity->dev);
  *p++ = '-';
  p = append_hex (p, identity->ino);
  *p++ = '-';
  p = append_hex (p, (guint64) identity->birth_ns);
  *p = '\0';
}

char *
dsh_root_grants_entry_text (const char *root)
{
  return g_strdup_printf ("%" G_GINT64_FORMAT " %s\n", g_get_real_time (), root);
}

gint64
dsh_root_grants_entry_since (const char *text, gssize length)
{
  gint64 since = length > 0 ? g_ascii_strtoll (text, NULL, 10) : 0;

  return MAX (since, 0);
}
