/* dsh-windows-command-line.c — a Windows program receives one string and splits it itself; the
 * Microsoft C runtime and CommandLineToArgvW split it the same way, so that is the spelling
 * written here: an argument is quoted when it is empty or holds blanks or quotes, a quote inside
 * is escaped with a backslash, and backslashes are doubled only where a quote follows them.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-windows-command-line-private.h"

#include <string.h>

static void
append_backslashes (GString *out, gsize n)
{
  for (gsize i = 0; i < n; i++)
    g_string_append_c (out, '\\');
}

static void
append_argument (GString *out, const char *arg)
{
  if (arg[0] != '\0' && strpbrk (arg, " \t\n\v\"") == NULL)
    {
      g_string_append (out, arg);
      return;
    }
  g_string_append_c (out, '"');
  for (const char *p = arg;; p++)
    {
      gsize backslashes = 0;

      while (*p == '\\')
        {
          backslashes++;
          p++;
        }
      if (*p == '\0')
        {
          /* The closing quote follows: each backslash before it is doubled. */
          append_backslashes (out, backslashes * 2);
          break;
        }
      if (*p == '"')
        {
          append_backslashes (out, backslashes * 2 + 1);
          g_string_append_c (out, '"');
        }
      else
        {
          append_backslashes (out, backslashes);
          g_string_append_c (out, *p);
        }
    }
  g_string_append_c (out, '"');
}

char *
dsh_windows_command_line (const char *const *argv, GError **error)
{
  g_autoptr (GString) line = NULL;

  if (argv == NULL || argv[0] == NULL || argv[0][0] == '\0')
    {
      g_set_error_literal (error, G_SPAWN_ERROR, G_SPAWN_ERROR_FAILED,
                           "cannot spell an empty program name on a Windows command line");
      return NULL;
    }
  /* The program's own name is split without escapes: up to the next quote when it starts with
   * one, else up to the first blank. */
  if (strchr (argv[0], '"') != NULL)
    {
      g_autofree char *shown = g_utf8_make_valid (argv[0], -1);

      g_set_error (error, G_SPAWN_ERROR, G_SPAWN_ERROR_FAILED,
                   "cannot spell the program name %s on a Windows command line: it holds a "
                   "quote",
                   shown);
      return NULL;
    }
  line = g_string_new (NULL);
  if (strpbrk (argv[0], " \t") != NULL)
    g_string_append_printf (line, "\"%s\"", argv[0]);
  else
    g_string_append (line, argv[0]);
  for (gsize i = 1; argv[i] != NULL; i++)
    {
      g_string_append_c (line, ' ');
      append_argument (line, argv[i]);
    }
  return g_string_free (g_steal_pointer (&line), FALSE);
}
