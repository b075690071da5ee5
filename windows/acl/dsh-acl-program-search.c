/* dsh-acl-program-search.c — a bare program name looked up on PATH and nowhere else, in plain C
 * so every host tests the rules; the runner supplies the file test.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-acl-program-search.h"

#include <stdlib.h>
#include <string.h>

static int
is_separator (char c)
{
  return c == '\\' || c == '/';
}

static int
is_drive_letter (char c)
{
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

int
dsh_acl_program_is_bare (const char *program)
{
  if (is_drive_letter (program[0]) && program[1] == ':')
    return 0;
  return strpbrk (program, "\\/") == NULL;
}

/* The length of the name at the start of text, up to a separator or its end. */
static size_t
name_length (const char *text)
{
  size_t len = 0;

  while (text[len] != '\0' && !is_separator (text[len]))
    len++;
  return len;
}

int
dsh_acl_path_entry_is_usable (const char *entry)
{
  size_t server;

  if (is_drive_letter (entry[0]) && entry[1] == ':')
    return is_separator (entry[2]);
  if (!is_separator (entry[0]) || !is_separator (entry[1]))
    return 0;
  /* \\?\ and \\.\ are namespaces, not shares: no PATH of a working system spells one. */
  if ((entry[2] == '?' || entry[2] == '.') && (is_separator (entry[3]) || entry[3] == '\0'))
    return 0;
  server = name_length (entry + 2);
  return server > 0 && is_separator (entry[2 + server]) && name_length (entry + 3 + server) > 0;
}

/* DIR\program[.exe], or NULL when memory ran out. */
static char *
candidate (const char *dir, size_t dir_len, const char *program, const char *suffix)
{
  int joined = dir_len > 0 && is_separator (dir[dir_len - 1]);
  char *path = malloc (dir_len + 1 + strlen (program) + strlen (suffix) + 1);

  if (path == NULL)
    return NULL;
  memcpy (path, dir, dir_len);
  strcpy (path + dir_len, joined ? "" : "\\");
  strcat (path, program);
  strcat (path, suffix);
  return path;
}

int
dsh_acl_program_search (const char *program, const char *path, DshAclIsFile is_file,
                        void *data, char **found)
{
  /* CreateProcess appends .exe to a name without any extension, and to nothing else: "tool.v2"
   * and "tool." are searched as written, ".com" and PATHEXT play no part. */
  const char *suffix = strchr (program, '.') != NULL ? "" : ".exe";
  const char *entry = path;

  *found = NULL;
  while (entry != NULL)
    {
      const char *end = strchr (entry, ';');
      size_t len = end != NULL ? (size_t) (end - entry) : strlen (entry);
      char *dir = malloc (len + 1);
      char *file;

      if (dir == NULL)
        return -1;
      memcpy (dir, entry, len);
      dir[len] = '\0';
      entry = end != NULL ? end + 1 : NULL;
      if (!dsh_acl_path_entry_is_usable (dir))
        {
          free (dir);
          continue;
        }
      file = candidate (dir, len, program, suffix);
      free (dir);
      if (file == NULL)
        return -1;
      if (is_file (file, data))
        {
          *found = file;
          return 0;
        }
      free (file);
    }
  return 1;
}
