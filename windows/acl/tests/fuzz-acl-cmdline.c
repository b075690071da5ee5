/* fuzz-acl-cmdline.c — Windows command-line quoting: the input, split at NUL bytes, is an argv;
 * quoting it and splitting the line again must give it back exactly (or the encoder must refuse a
 * program name with a quote). The input read as one command line must split without a crash, and
 * its split must survive another round trip.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dsh-acl-cmdline.h"
#include "fuzz-target.h"

#define MAX_ITEMS 64

static int
same_argv (char *const *a, char *const *b)
{
  size_t i = 0;

  for (; a[i] != NULL && b[i] != NULL; i++)
    {
      if (strcmp (a[i], b[i]) != 0)
        return 0;
    }
  return a[i] == NULL && b[i] == NULL;
}

/* encode, then decode, must be the identity (or a refusal of a quoted program name). */
static void
check_round_trip (char *const *argv)
{
  const char *error = NULL;
  char *line = dsh_acl_cmdline_encode ((const char *const *) argv, &error);
  char **split;

  if (line == NULL)
    {
      if (argv[0] == NULL || strchr (argv[0], '"') == NULL)
        {
          fprintf (stderr, "fuzz-acl-cmdline: encoding failed: %s\n", error);
          abort ();
        }
      return;
    }
  split = dsh_acl_cmdline_decode (line);
  if (split == NULL || !same_argv (argv, split))
    {
      fprintf (stderr, "fuzz-acl-cmdline: [%s] did not split back into its argv\n", line);
      abort ();
    }
  free (split);
  free (line);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  char *text = malloc (size + 1);
  char *argv[MAX_ITEMS + 1];
  size_t n = 0;
  char **split;

  if (text == NULL)
    return 0;
  memcpy (text, data, size);
  text[size] = '\0';

  /* The text up to its first NUL, as a line someone else wrote. */
  split = dsh_acl_cmdline_decode (text);
  if (split != NULL && split[0] != NULL)
    check_round_trip (split);
  free (split);

  for (size_t start = 0; start <= size && n < MAX_ITEMS;)
    {
      argv[n++] = text + start;
      start += strlen (text + start) + 1;
    }
  argv[n] = NULL;
  check_round_trip (argv);
  free (text);
  return 0;
}
