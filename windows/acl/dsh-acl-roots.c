/* dsh-acl-roots.c — refusing roots whose grant would reach far beyond a workspace.
 *
 * Paths are compared in a folded form: '/' as '\', ASCII letters in lower case, no trailing
 * separator, and the \\?\ and \\.\ prefixes removed. Folding can only make more paths look
 * alike, and every decision made with it refuses or withholds a grant.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-acl-roots.h"

#include <stdlib.h>
#include <string.h>

static char *
fold (const char *path)
{
  const char *rest = path;
  const char *lead = "";
  char *folded;
  size_t len;

  if ((rest[0] == '\\' || rest[0] == '/') && (rest[1] == '\\' || rest[1] == '/') &&
      (rest[2] == '?' || rest[2] == '.') && (rest[3] == '\\' || rest[3] == '/'))
    {
      rest += 4;
      /* \\?\UNC\server\share is \\server\share. */
      if ((rest[0] == 'U' || rest[0] == 'u') && (rest[1] == 'N' || rest[1] == 'n') &&
          (rest[2] == 'C' || rest[2] == 'c') && (rest[3] == '\\' || rest[3] == '/'))
        {
          rest += 4;
          lead = "\\\\";
        }
    }
  folded = malloc (strlen (lead) + strlen (rest) + 1);
  if (folded == NULL)
    return NULL;
  strcpy (folded, lead);
  strcat (folded, rest);
  for (char *p = folded; *p != '\0'; p++)
    {
      if (*p == '/')
        *p = '\\';
      else if (*p >= 'A' && *p <= 'Z')
        *p = (char) (*p - 'A' + 'a');
    }
  len = strlen (folded);
  while (len > 0 && folded[len - 1] == '\\')
    folded[--len] = '\0';
  return folded;
}

static int
is_drive_letter_path (const char *folded)
{
  return folded[0] >= 'a' && folded[0] <= 'z' && folded[1] == ':';
}

static int
is_absolute (const char *folded_or_empty, const char *original)
{
  /* "\" alone, and "/" of a preview on a POSIX host, fold to "". */
  if (folded_or_empty[0] == '\0')
    return original[0] == '\\' || original[0] == '/';
  if (is_drive_letter_path (folded_or_empty))
    return folded_or_empty[2] == '\\' || folded_or_empty[2] == '\0';
  return folded_or_empty[0] == '\\';
}

/* A drive ("c:"), the root of the current drive (""), or a share (\\server\share). */
static int
is_drive_root (const char *folded)
{
  const char *p;
  int components = 0;

  if (folded[0] == '\0')
    return 1;
  if (is_drive_letter_path (folded))
    return folded[2] == '\0';
  if (strncmp (folded, "\\\\", 2) != 0)
    return 0;
  for (p = folded + 2; *p != '\0'; p++)
    {
      if (*p == '\\')
        components++;
    }
  return components <= 1;
}

/* Does the folded path have a "." or ".." component, which Windows resolves when it opens it? */
static int
has_dot_component (const char *folded)
{
  for (const char *p = folded; *p != '\0'; p++)
    {
      int at_start = p == folded || p[-1] == '\\';

      if (at_start && p[0] == '.' && (p[1] == '\0' || p[1] == '\\' ||
                                      (p[1] == '.' && (p[2] == '\0' || p[2] == '\\'))))
        return 1;
    }
  return 0;
}

/* A colon past the drive letter names a stream (C:\work:x) or a device, not a directory. */
static int
has_stray_colon (const char *folded)
{
  const char *colon = strchr (folded, ':');

  if (colon != NULL && is_drive_letter_path (folded) && colon == folded + 1)
    colon = strchr (colon + 1, ':');
  return colon != NULL;
}

/* Is folded path a equal to b or above it? */
static int
is_same_or_ancestor (const char *a, const char *b)
{
  size_t len = strlen (a);

  return strncmp (a, b, len) == 0 && (b[len] == '\0' || b[len] == '\\');
}

const char *
dsh_acl_root_refusal (const char *root, const char *profile)
{
  char *folded = fold (root);
  char *folded_profile = profile != NULL && profile[0] != '\0' ? fold (profile) : NULL;
  const char *refusal = NULL;

  if (folded == NULL || (profile != NULL && profile[0] != '\0' && folded_profile == NULL))
    refusal = "out of memory";
  else if (!is_absolute (folded, root))
    refusal = "it is not an absolute path";
  else if (has_dot_component (folded))
    refusal = "it has a . or .. component";
  else if (has_stray_colon (folded))
    refusal = "it names a stream or device, not a directory";
  else if (is_drive_root (folded))
    refusal = "it is the root of a drive or share";
  else if (folded_profile != NULL && is_same_or_ancestor (folded, folded_profile))
    refusal = strlen (folded) == strlen (folded_profile)
                ? "it is the user's profile directory"
                : "it contains the user's profile directory";
  free (folded);
  free (folded_profile);
  return refusal;
}

int
dsh_acl_same_path (const char *a, const char *b)
{
  char *fa = fold (a);
  char *fb = fold (b);
  int same = fa != NULL && fb != NULL && strcmp (fa, fb) == 0;

  free (fa);
  free (fb);
  return same;
}

char *
dsh_acl_temp_area (const char *temp_dir)
{
  const char *last = NULL;
  size_t len;
  char *area;

  for (const char *p = temp_dir; *p != '\0'; p++)
    {
      if (*p == '\\' || *p == '/')
        last = p;
    }
  if (last == NULL || last == temp_dir)
    return NULL;
  len = (size_t) (last - temp_dir);
  /* "C:" alone would open the drive's current directory, not its root. */
  if (len == 2 && temp_dir[1] == ':')
    len++;
  area = malloc (len + 1);
  if (area == NULL)
    return NULL;
  memcpy (area, temp_dir, len);
  area[len] = '\0';
  return area;
}

int
dsh_acl_is_temp_area (const char *opened_root, const char *opened_area)
{
  return opened_area != NULL && dsh_acl_same_path (opened_root, opened_area);
}

const char *
dsh_acl_opened_root_refusal (const char *root, const char *opened, const char *profile)
{
  const char *refusal = dsh_acl_root_refusal (opened, profile);

  if (refusal == NULL && !dsh_acl_same_path (root, opened))
    refusal = "it opens as another directory: a junction or link on the way leads elsewhere";
  return refusal;
}
