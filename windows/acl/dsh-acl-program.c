/* dsh-acl-program.c — batch files are not started: the core's spawn refuses them, and a
 * confined call's program reaches CreateProcess in the runner instead, so the same rule is kept
 * here, in plain C for the planner and the runner alike.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-acl-program.h"

#include <string.h>

/* Does text begin with the lower-case ASCII word, in any letter case? */
static int
starts_with_folded (const char *text, const char *word)
{
  for (; *word != '\0'; text++, word++)
    {
      char c = *text >= 'A' && *text <= 'Z' ? (char) (*text - 'A' + 'a') : *text;

      if (c != *word)
        return 0;
    }
  return 1;
}

/* Does this one colon-separated part of a name have a batch file's extension, as Win32 opens
 * it (trailing dots and spaces dropped: "run.bat. " is run.bat)? */
static int
part_is_batch (const char *part, size_t len)
{
  const char *dot = NULL;

  while (len > 0 && (part[len - 1] == '.' || part[len - 1] == ' '))
    len--;
  for (size_t i = 0; i < len; i++)
    {
      if (part[i] == '.')
        dot = part + i;
    }
  /* Only the first four characters: the loader may compare no more (".batx" too), and no
   * program anyone means to run directly has such an extension. */
  return dot != NULL && (size_t) (part + len - dot) >= 4 &&
         (starts_with_folded (dot, ".bat") || starts_with_folded (dot, ".cmd"));
}

int
dsh_acl_program_is_batch (const char *program)
{
  const char *base = program;

  /* "C:run.bat" is run.bat in drive C's current directory: that colon is the drive's. */
  if (((program[0] >= 'A' && program[0] <= 'Z') || (program[0] >= 'a' && program[0] <= 'z')) &&
      program[1] == ':')
    base = program + 2;
  for (const char *p = base; *p != '\0'; p++)
    {
      if (*p == '\\' || *p == '/')
        base = p + 1;
    }
  /* The file's name, then its stream's ("run.bat:x" is run.bat for CreateProcess): a stream
   * named like a batch file ("run:x.bat") is refused too, as nobody means to run one. */
  for (const char *part = base;; part++)
    {
      size_t len = strcspn (part, ":");

      if (part_is_batch (part, len))
        return 1;
      part += len;
      if (*part == '\0')
        return 0;
    }
}
