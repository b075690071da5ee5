/* dsh-windows-paths.c — Windows paths read the way Windows reads them: both separators, names
 * compared without ASCII case, drives and shares as the top of the tree. Every rule here only
 * ever refuses: a spelling it cannot place is treated as reaching too far.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-windows-paths-private.h"

#include <string.h>

static gboolean
is_separator (char c)
{
  return c == '\\' || c == '/';
}

char *
dsh_windows_path_strip_prefix (const char *path)
{
  const char *rest;

  if (!(is_separator (path[0]) && is_separator (path[1]) && (path[2] == '?' || path[2] == '.') &&
        is_separator (path[3])))
    return g_strdup (path);
  rest = path + 4;
  if (g_ascii_strncasecmp (rest, "UNC", 3) == 0 && is_separator (rest[3]))
    return g_strconcat ("\\\\", rest + 4, NULL);
  return g_strdup (rest);
}

/* The length of a name of path starting at p: up to the next separator. */
static gsize
name_length (const char *p)
{
  gsize n = 0;

  while (p[n] != '\0' && !is_separator (p[n]))
    n++;
  return n;
}

gsize
dsh_windows_path_root_length (const char *path)
{
  gsize server, share;

  if (g_ascii_isalpha (path[0]) && path[1] == ':')
    return is_separator (path[2]) ? 3 : 0;
  if (!is_separator (path[0]) || !is_separator (path[1]))
    return 0;
  /* \\?\ and \\.\ name devices and raw namespaces: the caller strips what it knows first. */
  if ((path[2] == '?' || path[2] == '.') && (is_separator (path[3]) || path[3] == '\0'))
    return 0;
  server = name_length (path + 2);
  if (server == 0 || !is_separator (path[2 + server]))
    return 0;
  share = name_length (path + 3 + server);
  if (share == 0)
    return 0;
  return 3 + server + share;
}

static char
fold (char c)
{
  return is_separator (c) ? '\\' : g_ascii_tolower (c);
}

gboolean
dsh_windows_path_is_beneath (const char *path, const char *root)
{
  gsize len = strlen (root);

  while (len > 0 && is_separator (root[len - 1]))
    len--;
  if (len == 0)
    return FALSE;
  for (gsize i = 0; i < len; i++)
    {
      if (path[i] == '\0' || fold (path[i]) != fold (root[i]))
        return FALSE;
    }
  return path[len] == '\0' || is_separator (path[len]);
}

/* Both beneath the other: the same directory, however its separators are spelled. */
static gboolean
same_path (const char *a, const char *b)
{
  return dsh_windows_path_is_beneath (a, b) && dsh_windows_path_is_beneath (b, a);
}

char *
dsh_windows_root_refusal (const char *root,
                          const char *workspace,
                          const char *profile,
                          const char *const *system_trees)
{
  g_autofree char *path = dsh_windows_path_strip_prefix (root);
  g_autofree char *home = profile != NULL ? dsh_windows_path_strip_prefix (profile) : NULL;
  gsize top = dsh_windows_path_root_length (path);
  gboolean named = FALSE;

  if (top == 0)
    return g_strdup ("is not an absolute path");
  for (const char *p = path + top; *p != '\0';)
    {
      gsize n = name_length (p);

      if ((n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
        return g_strdup ("has a . or .. component");
      if (memchr (p, ':', n) != NULL)
        return g_strdup ("names a stream or a device, not a directory");
      named = named || n > 0;
      p += n;
      while (is_separator (*p))
        p++;
    }
  if (!named)
    return g_strdup ("is the root of a drive or share");
  if (home != NULL && dsh_windows_path_root_length (home) > 0 &&
      dsh_windows_path_is_beneath (home, path))
    return same_path (home, path)
             ? g_strdup ("is the user's profile directory")
             : g_strdup_printf ("is an ancestor of the user's profile directory (%s)", home);
  for (gsize i = 0; system_trees != NULL && system_trees[i] != NULL; i++)
    {
      if (dsh_windows_path_root_length (system_trees[i]) > 0 &&
          dsh_windows_path_is_beneath (path, system_trees[i]))
        return g_strdup_printf ("is a system directory (in %s)", system_trees[i]);
    }
  if (workspace != NULL && dsh_windows_path_is_beneath (workspace, path) &&
      !same_path (workspace, path))
    return g_strdup_printf ("is an ancestor of the workspace %s", workspace);
  return NULL;
}

gboolean
dsh_windows_program_is_batch (const char *program)
{
  const char *base = program;
  const char *dot = NULL;
  gsize len;

  for (const char *p = program; *p != '\0'; p++)
    {
      if (is_separator (*p))
        base = p + 1;
    }
  /* A stream of the file is the file for CreateProcess's purposes. */
  len = strcspn (base, ":");
  /* Win32 drops trailing dots and spaces before it opens the name: "run.bat. " is run.bat. */
  while (len > 0 && (base[len - 1] == '.' || base[len - 1] == ' '))
    len--;
  for (gsize i = 0; i < len; i++)
    {
      if (base[i] == '.')
        dot = base + i;
    }
  /* Only the first four characters: the loader may compare no more (".batx" too), and no
   * program anyone means to run directly has such an extension. */
  return dot != NULL && (gsize) (base + len - dot) >= 4 &&
         (g_ascii_strncasecmp (dot, ".bat", 4) == 0 || g_ascii_strncasecmp (dot, ".cmd", 4) == 0);
}

/* Tags of placeholders a storage service keeps in a file's or directory's place, which never
 * send a lookup anywhere else. */
#define TAG_NAME_SURROGATE 0x20000000u
#define TAG_HSM 0xC0000004u
#define TAG_HSM2 0x80000006u
#define TAG_DEDUP 0x80000013u
#define TAG_WOF 0x80000017u
#define TAG_CLOUD 0x9000001Au
#define TAG_CLOUD_MASK 0xFFFF0FFFu /* CLOUD_1 .. CLOUD_F differ in bits 12-15 */

gboolean
dsh_windows_reparse_tag_redirects (guint32 tag)
{
  if ((tag & TAG_NAME_SURROGATE) != 0)
    return TRUE;
  if ((tag & TAG_CLOUD_MASK) == TAG_CLOUD)
    return FALSE;
  return tag != TAG_HSM && tag != TAG_HSM2 && tag != TAG_DEDUP && tag != TAG_WOF;
}

/* The reparse data of a symbolic link or a junction: the tag, two lengths, then where the
 * names lie in the path buffer that follows (after a flags word for a symbolic link). */
#define TAG_MOUNT_POINT 0xA0000003u
#define TAG_SYMLINK 0xA000000Cu
#define SYMLINK_RELATIVE 0x1u
#define REPARSE_HEADER_SIZE 8

static guint32
read_u16 (const guint8 *p)
{
  return (guint32) p[0] | (guint32) p[1] << 8;
}

static guint32
read_u32 (const guint8 *p)
{
  return read_u16 (p) | read_u16 (p + 2) << 16;
}

char *
dsh_windows_reparse_target (const guint8 *data, gsize len)
{
  g_autofree gunichar2 *units = NULL;
  g_autofree char *target = NULL;
  guint32 tag, offset, length, flags = 0;
  gsize buffer;

  if (len < REPARSE_HEADER_SIZE + 8)
    return NULL;
  tag = read_u32 (data);
  if (REPARSE_HEADER_SIZE + (gsize) read_u16 (data + 4) > len)
    return NULL;
  offset = read_u16 (data + 8);
  length = read_u16 (data + 10);
  if (tag == TAG_SYMLINK)
    {
      if (len < REPARSE_HEADER_SIZE + 12)
        return NULL;
      flags = read_u32 (data + 16);
      buffer = REPARSE_HEADER_SIZE + 12;
    }
  else if (tag == TAG_MOUNT_POINT)
    buffer = REPARSE_HEADER_SIZE + 8;
  else
    return NULL;
  if (length == 0 || length % 2 != 0 || buffer + offset + length > len)
    return NULL;
  units = g_new0 (gunichar2, length / 2 + 1);
  for (guint32 i = 0; i < length / 2; i++)
    {
      units[i] = (gunichar2) read_u16 (data + buffer + offset + 2 * i);
      /* The conversion would end the name there, and the link names more. */
      if (units[i] == 0)
        return NULL;
    }
  target = g_utf16_to_utf8 (units, (glong) (length / 2), NULL, NULL, NULL);
  if (target == NULL)
    return NULL;
  if ((flags & SYMLINK_RELATIVE) != 0)
    {
      /* Relative to the link's directory: a leading separator or a drive would not be. */
      if (is_separator (target[0]) || strchr (target, ':') != NULL)
        return NULL;
      return g_steal_pointer (&target);
    }
  /* An absolute target is an NT path: \??\C:\x or \??\UNC\server\share\x. */
  if (!g_str_has_prefix (target, "\\??\\"))
    return NULL;
  target[1] = '\\';
  {
    g_autofree char *stripped = dsh_windows_path_strip_prefix (target);

    if (dsh_windows_path_root_length (stripped) == 0)
      return NULL;
    return g_steal_pointer (&stripped);
  }
}
