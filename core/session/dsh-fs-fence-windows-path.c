/* dsh-fs-fence-windows-path.c — the fence's reading of Windows paths: pure string logic, so that
 * every host tests what the Windows side decides.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-fs-fence-windows-path-private.h"

#include <string.h>

static gboolean
is_separator (char c)
{
  return c == '\\' || c == '/';
}

/* A name as NTFS compares it: each character upcased by itself, one for one, and nothing
 * outside the BMP (its upcase table has one entry per UTF-16 unit). Full case folding would make
 * "\xc3\x9f" and "ss", or the Kelvin sign and "k", one name: two folders on NTFS. */
static char *
ntfs_upcase (const char *name)
{
  GString *out = g_string_sized_new (strlen (name));

  for (const char *p = name; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      g_string_append_unichar (out, c < 0x10000 ? g_unichar_toupper (c) : c);
    }
  return g_string_free (out, FALSE);
}

/* Splits an absolute Windows path into what it is on (the drive "C:" or the share
 * "\\server\share", upcased as NTFS compares names) and its names, "." dropped and ".."
 * taken back; FALSE for anything else. */
static gboolean
parse_absolute (const char *path, char **out_volume, GPtrArray *names)
{
  const char *rest;
  g_auto (GStrv) parts = NULL;

  if (g_ascii_isalpha (path[0]) && path[1] == ':' && is_separator (path[2]))
    {
      *out_volume = g_strdup_printf ("%c:", g_ascii_toupper (path[0]));
      rest = path + 3;
    }
  else if (is_separator (path[0]) && is_separator (path[1]))
    {
      const char *server = path + 2;
      const char *server_end = server + strcspn (server, "\\/");
      const char *share;
      const char *share_end;

      /* "\\?\..." and "\\.\..." name no folder a root could hold. */
      if (server_end == server || *server_end == '\0' ||
          ((server[0] == '?' || server[0] == '.') && server_end == server + 1))
        return FALSE;
      share = server_end + 1;
      share_end = share + strcspn (share, "\\/");
      if (share_end == share)
        return FALSE;
      {
        g_autofree char *spelled = g_strdup_printf ("\\\\%.*s\\%.*s", (int) (server_end - server),
                                                    server, (int) (share_end - share), share);

        *out_volume = ntfs_upcase (spelled);
      }
      rest = share_end;
    }
  else
    return FALSE;

  parts = g_strsplit_set (rest, "\\/", -1);
  for (guint i = 0; parts[i] != NULL; i++)
    {
      if (*parts[i] == '\0' || g_str_equal (parts[i], "."))
        continue;
      if (g_str_equal (parts[i], ".."))
        {
          /* Win32 stops ".." at the drive or share, as "/.." is "/". */
          if (names->len > 0)
            g_ptr_array_remove_index (names, names->len - 1);
          continue;
        }
      g_ptr_array_add (names, g_strdup (parts[i]));
    }
  return TRUE;
}

static gboolean
same_name (const char *a, const char *b)
{
  g_autofree char *fa = ntfs_upcase (a);
  g_autofree char *fb = ntfs_upcase (b);

  return g_str_equal (fa, fb);
}

GStrv
dsh_fence_windows_names_below (const char *path, const char *root)
{
  g_autoptr (GPtrArray) path_names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) root_names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GStrvBuilder) below = g_strv_builder_new ();
  g_autofree char *path_volume = NULL;
  g_autofree char *root_volume = NULL;

  if (!g_utf8_validate (path, -1, NULL) || !g_utf8_validate (root, -1, NULL) ||
      !parse_absolute (path, &path_volume, path_names) ||
      !parse_absolute (root, &root_volume, root_names) ||
      !g_str_equal (path_volume, root_volume) || path_names->len < root_names->len)
    return NULL;
  for (guint i = 0; i < root_names->len; i++)
    if (!same_name (path_names->pdata[i], root_names->pdata[i]))
      return NULL;
  for (guint i = root_names->len; i < path_names->len; i++)
    g_strv_builder_add (below, path_names->pdata[i]);
  return g_strv_builder_end (below);
}

/* CON, PRN, AUX, NUL, COM0-9, LPT0-9 (the superscript digits too) and the console's own names,
 * with or without an extension: Win32 hands them to the device, whatever directory they are
 * spelled in. */
static gboolean
is_device_name (const char *name)
{
  static const char *const plain[] = { "con", "prn", "aux", "nul", "conin$", "conout$", NULL };
  static const char *const superscripts[] = { "\xc2\xb9", "\xc2\xb2", "\xc2\xb3", NULL };
  g_autofree char *lower = g_ascii_strdown (name, -1);
  char *dot = strchr (lower, '.');
  gsize length;

  if (dot != NULL)
    *dot = '\0';
  /* Win32 drops trailing spaces before it compares: "nul .txt" is NUL too. */
  g_strchomp (lower);
  if (g_strv_contains (plain, lower))
    return TRUE;
  if (!g_str_has_prefix (lower, "com") && !g_str_has_prefix (lower, "lpt"))
    return FALSE;
  length = strlen (lower);
  return (length == 4 && g_ascii_isdigit (lower[3])) || g_strv_contains (superscripts, lower + 3);
}

const char *
dsh_fence_windows_name_refusal (const char *name)
{
  gsize length = strlen (name);

  if (length == 0 || g_str_equal (name, ".") || g_str_equal (name, ".."))
    return "is not the name of a file";
  if (strchr (name, ':') != NULL)
    return "names an alternate data stream (\":\")";
  for (const char *p = name; *p != '\0'; p++)
    if ((guchar) *p < 0x20 || strchr ("<>\"|?*", *p) != NULL)
      return "holds a character Windows does not allow in names";
  if (name[length - 1] == '.' || name[length - 1] == ' ')
    return "ends in a dot or a space, which Windows drops from the names it is given";
  if (is_device_name (name))
    return "is a device name on Windows";
  return NULL;
}

static gboolean
name_is (const char *name, const char *git_name)
{
  return g_ascii_strcasecmp (name, git_name) == 0;
}

const char *
dsh_fence_windows_git_refusal (const char *const *names, guint n, DshFenceWindowsUse use)
{
  static const char *const own_files[] = { "config", "config.worktree", "commondir", NULL };
  const char *leaf = n > 0 ? names[n - 1] : NULL;
  guint git = n;

  if (leaf == NULL)
    return NULL;
  /* Written, replaced, removed or moved, a .git entry hands git a repository the tool made, or
   * takes the real one out from under .git, where its hooks could be written and put back.
   * Making one is a new repository, and removing an empty one takes nothing. */
  if (name_is (leaf, ".git") && use != DSH_FENCE_WINDOWS_USE_MAKE_DIR &&
      use != DSH_FENCE_WINDOWS_USE_REMOVE_EMPTY_DIR)
    return "a .git entry stays as it is (it says where git finds a repository's hooks and "
           "config)";
  for (guint i = 0; i + 1 < n && git == n; i++)
    {
      if (name_is (names[i], ".git"))
        git = i;
    }
  if (git == n)
    return NULL;
  /* Every directory beneath .git may be a git directory (modules\NAME, worktrees\NAME), as
   * the POSIX fence takes them: their hooks and config are what git runs and obeys. */
  for (guint i = git + 1; i < n; i++)
    {
      if (name_is (names[i], "hooks"))
        return "a repository's hooks stay read-only (a later unconfined git runs them)";
    }
  for (gsize k = 0; own_files[k] != NULL; k++)
    {
      if (name_is (leaf, own_files[k]))
        return "a repository's config stays read-only (a later unconfined git obeys it)";
    }
  /* A short name (CONFIG~1.WOR) opens the long one it abbreviates; git makes none. */
  if (strchr (leaf, '~') != NULL)
    return "a short name in a git directory may name its config";
  if (use == DSH_FENCE_WINDOWS_USE_MOVE_DIR)
    return "a directory in a git directory stays in place (moved away its hooks and config "
           "would be writable, moved in it brings hooks of its own)";
  return NULL;
}
