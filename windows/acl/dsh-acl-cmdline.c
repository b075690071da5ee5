/* dsh-acl-cmdline.c — quoting argv into one Windows command line and splitting it again.
 *
 * The split the C runtime makes: the program name runs to the first space or tab outside quotes,
 * quotes dropped and backslashes taken literally. After it, arguments are
 * separated by spaces and tabs outside quotes; 2n backslashes before a quote are n backslashes
 * and the quote opens or closes quoting, 2n+1 are n backslashes and a literal quote; inside
 * quotes "" is a literal quote; other backslashes are literal.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-acl-cmdline.h"

#include <stdlib.h>
#include <string.h>

static int
is_blank (char c)
{
  return c == ' ' || c == '\t';
}

static int
needs_quotes (const char *arg)
{
  return arg[0] == '\0' || strpbrk (arg, " \t\n\v\"") != NULL;
}

/* Upper bound of one argument's encoded size: every character doubled, two quotes, a blank. */
static size_t
encoded_bound (const char *arg)
{
  return 2 * strlen (arg) + 3;
}

static char *
append_program (char *out, const char *program)
{
  int quote = program[0] == '\0' || strpbrk (program, " \t") != NULL;
  size_t len = strlen (program);

  if (quote)
    *out++ = '"';
  memcpy (out, program, len);
  out += len;
  if (quote)
    *out++ = '"';
  return out;
}

static char *
append_argument (char *out, const char *arg)
{
  size_t backslashes = 0;

  if (!needs_quotes (arg))
    {
      size_t len = strlen (arg);

      memcpy (out, arg, len);
      return out + len;
    }
  *out++ = '"';
  for (const char *p = arg;; p++)
    {
      if (*p == '\\')
        {
          backslashes++;
          continue;
        }
      /* Backslashes count only before a quote: ours, or the closing one. */
      if (*p == '"' || *p == '\0')
        backslashes *= 2;
      for (; backslashes > 0; backslashes--)
        *out++ = '\\';
      if (*p == '\0')
        break;
      if (*p == '"')
        *out++ = '\\';
      *out++ = *p;
    }
  *out++ = '"';
  return out;
}

char *
dsh_acl_cmdline_encode (const char *const *argv, const char **error)
{
  size_t size = 1;
  char *line, *out;

  if (argv == NULL || argv[0] == NULL)
    {
      *error = "there is no program to run";
      return NULL;
    }
  /* The program name is split without escapes: a quote in it cannot be written at all. */
  if (strchr (argv[0], '"') != NULL)
    {
      *error = "the program name contains a double quote, which no Windows command line can carry";
      return NULL;
    }
  for (size_t i = 0; argv[i] != NULL; i++)
    size += encoded_bound (argv[i]);
  line = malloc (size);
  if (line == NULL)
    {
      *error = "out of memory";
      return NULL;
    }
  out = append_program (line, argv[0]);
  for (size_t i = 1; argv[i] != NULL; i++)
    {
      *out++ = ' ';
      out = append_argument (out, argv[i]);
    }
  *out = '\0';
  return line;
}

/* The program name, as the runtime splits it: quotes toggle quoting and are dropped, and
 * backslashes are plain characters. Returns where the arguments start. */
static const char *
split_program (const char *p, char *out, char **end)
{
  int quoted = 0;

  for (; *p != '\0' && (quoted || !is_blank (*p)); p++)
    {
      if (*p == '"')
        quoted = !quoted;
      else
        *out++ = *p;
    }
  *out++ = '\0';
  *end = out;
  return p;
}

/* One argument starting at p (not blank); returns where it ended. */
static const char *
split_argument (const char *p, char *out, char **end)
{
  int quoted = 0;

  while (*p != '\0' && (quoted || !is_blank (*p)))
    {
      size_t backslashes = 0;

      while (p[backslashes] == '\\')
        backslashes++;
      if (p[backslashes] == '"')
        {
          for (size_t i = 0; i < backslashes / 2; i++)
            *out++ = '\\';
          p += backslashes;
          if (backslashes % 2 == 1)
            *out++ = '"';
          else if (quoted && p[1] == '"')
            {
              *out++ = '"';
              p++;
            }
          else
            quoted = !quoted;
          p++;
        }
      else if (backslashes > 0)
        {
          for (size_t i = 0; i < backslashes; i++)
            *out++ = '\\';
          p += backslashes;
        }
      else
        *out++ = *p++;
    }
  *out++ = '\0';
  *end = out;
  return p;
}

char **
dsh_acl_cmdline_decode (const char *cmdline)
{
  size_t len = strlen (cmdline);
  /* Every item takes at least one character of the line, and its text no more than it took. */
  size_t max_items = len + 1;
  char **argv = malloc ((max_items + 1) * sizeof (char *) + 2 * len + 2);
  char *text;
  size_t n = 0;
  const char *p = cmdline;

  if (argv == NULL)
    return NULL;
  text = (char *) (argv + max_items + 1);
  if (*p != '\0')
    {
      argv[n++] = text;
      p = split_program (p, text, &text);
    }
  for (;;)
    {
      while (is_blank (*p))
        p++;
      if (*p == '\0')
        break;
      argv[n++] = text;
      p = split_argument (p, text, &text);
    }
  argv[n] = NULL;
  return argv;
}

size_t
dsh_acl_utf16_length (const char *text)
{
  size_t units = 0;

  for (const unsigned char *p = (const unsigned char *) text; *p != '\0'; p++)
    {
      /* Lead bytes start a character; a four-byte one needs a surrogate pair. */
      if ((*p & 0xc0) != 0x80)
        units += *p >= 0xf0 ? 2 : 1;
    }
  return units;
}
