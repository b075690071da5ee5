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

int
dsh_acl_program_is_batch (const char *program)
{
  const char *base = program;
  const char *dot = NULL;
  size_t len;

  for (const char *p = program; *p != '\0'; p++)
    {
      if (*p == '\\' || *p == '/')
        base = p + 1;
    }
  /* A stream of the file is the file for CreateProcess's purposes. */
  len = strcspn (base, ":");
  /* Win32 drops trailing dots and spaces before it opens the name: "run.bat. " is run.bat. */
  while (len > 0 && (base[len - 1] == '.' || base[len - 1] == ' '))
    len--;
  for (size_t i = 0; i < len; i++)
    {
      if (base[i] == '.')
        dot = base + i;
    }
  /* Only the first four characters: the loader may compare no more (".batx" too), and no
   * program anyone means to run directly has such an extension. */
  return dot != NULL && (size_t) (base + len - dot) >= 4 &&
         (starts_with_folded (dot, ".bat") || starts_with_folded (dot, ".cmd"));
}
