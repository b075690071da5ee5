/* dsh-session-log-lock.c — how long a writer of a session log waits for its lock. The lock is
 * taken on the log itself, and whoever can read the log can take it: a command confined in the
 * session reads it like any file. A wait without end would let such a command hold every later
 * call of the session, and serve with them, for as long as it runs; so the wait ends, and the
 * append it guards fails as any failed append does (the call does not run).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-session-log-private.h"
#include "dsh-session-fold-cache-private.h"

#include "dsh-error.h"

/* Far longer than any writer keeps it: an append with its catch-up is a few milliseconds, a
 * first fold of a long log well under a second. */
#define DEFAULT_PATIENCE_USEC (10 * G_USEC_PER_SEC)

static gint64 patience_for_testing;

void
dsh_session_file_set_lock_patience_for_testing (gint64 usec)
{
  patience_for_testing = usec;
}

static gint64
lock_patience (void)
{
  return patience_for_testing > 0 ? patience_for_testing : DEFAULT_PATIENCE_USEC;
}

gboolean
dsh_session_file_lock_patiently (DshSessionFile *file,
                                 const char *path,
                                 DshSessionFileTryLock try_lock,
                                 GError **error)
{
  gint64 patience = lock_patience ();
  gint64 deadline = g_get_monotonic_time () + patience;
  gulong pause = 100;
  int taken;

  while ((taken = try_lock (file, error)) == 0)
    {
      if (g_get_monotonic_time () >= deadline)
        {
          g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_SESSION_LOG,
                       "%s: cannot lock the session log: another process has held its lock for "
                       "%.0f s (any process that can read the log can take it, a command "
                       "confined in this session too)",
                       path, (double) patience / G_USEC_PER_SEC);
          return FALSE;
        }
      /* Short pauses: a writer holds it for an append's few milliseconds. */
      g_usleep (pause);
      pause = MIN (pause * 2, 5000);
    }
  return taken > 0;
}
