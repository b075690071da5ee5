/* dsh-test-swapper.c — a thread exchanging two paths as fast as it can, for the race tests.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#define _GNU_SOURCE /* renameat2, RENAME_EXCHANGE */

#include "dsh-test-swapper.h"

#include <fcntl.h>
#include <stdio.h>

struct _DshTestSwapper {
  char *a;
  char *b;
  gint stop;
  guint swaps;
  GThread *thread;
};

static gpointer
swap (gpointer data)
{
  DshTestSwapper *swapper = data;

  while (!g_atomic_int_get (&swapper->stop))
    {
      if (renameat2 (AT_FDCWD, swapper->a, AT_FDCWD, swapper->b, RENAME_EXCHANGE) == 0)
        swapper->swaps++;
    }
  return NULL;
}

DshTestSwapper *
dsh_test_swapper_start (const char *a, const char *b)
{
  DshTestSwapper *swapper = g_new0 (DshTestSwapper, 1);

  swapper->a = g_strdup (a);
  swapper->b = g_strdup (b);
  swapper->thread = g_thread_new ("swapper", swap, swapper);
  return swapper;
}

guint
dsh_test_swapper_stop (DshTestSwapper *swapper)
{
  guint swaps;

  g_atomic_int_set (&swapper->stop, 1);
  g_thread_join (swapper->thread);
  swaps = swapper->swaps;
  g_test_message ("the swapper exchanged %s and %s %u times", swapper->a, swapper->b, swaps);
  g_assert_cmpuint (swaps, >, 0);
  g_free (swapper->a);
  g_free (swapper->b);
  g_free (swapper);
  return swaps;
}
