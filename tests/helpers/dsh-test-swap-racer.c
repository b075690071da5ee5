/* dsh-test-swap-racer — swaps a directory for a symlink and back as fast as it can, for a bounded
 * time: what a confined command racing another call does to a component of that call's roots.
 *
 *   dsh-test-swap-racer DIR TARGET SECONDS
 *
 * Each round exchanges DIR with a symlink to TARGET (renameat2 RENAME_EXCHANGE), so DIR is always
 * either the directory or the symlink, then exchanges them back. DIR is the directory again when
 * it exits; it prints the number of rounds.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double
now (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

static int
exchange (const char *a, const char *b)
{
  return renameat2 (AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE);
}

int
main (int argc, char **argv)
{
  char link[4096];
  double until;
  unsigned long rounds = 0;

  if (argc != 4)
    {
      fprintf (stderr, "usage: dsh-test-swap-racer DIR TARGET SECONDS\n");
      return 2;
    }
  snprintf (link, sizeof link, "%s.link", argv[1]);
  unlink (link);
  if (symlink (argv[2], link) != 0)
    {
      perror ("symlink");
      return 1;
    }
  until = now () + atof (argv[3]);

  while (now () < until)
    {
      if (exchange (argv[1], link) != 0)
        {
          perror ("renameat2");
          return 1;
        }
      /* The symlink stands for a moment, as long as the directory does. */
      for (volatile int spin = 0; spin < 2000; spin++)
        ;
      if (exchange (argv[1], link) != 0)
        {
          perror ("renameat2");
          return 1;
        }
      for (volatile int spin = 0; spin < 2000; spin++)
        ;
      rounds++;
    }
  unlink (link);
  printf ("%lu\n", rounds);
  return 0;
}
