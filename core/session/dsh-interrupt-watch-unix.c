/* dsh-interrupt-watch-unix.c — the interrupt watch on POSIX signals, through GLib's signal
 * sources (safe to attach to any main context, unlike a handler of our own).
 *
 * GLib leaves a signal at SIG_DFL once its last source for it is gone, whatever was there
 * before: the caller's own handler (Python's SIGINT, a service's SIGTERM) would be lost, and
 * its next Ctrl-C would kill it. The first watch keeps what it found and the last one puts it
 * back, unless GLib still watches the signal for someone else.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-interrupt-watch-private.h"

#include <glib-unix.h>
#include <signal.h>

static const int interrupting_signals[] = { SIGINT, SIGTERM, SIGHUP };

static GMutex dispositions_lock;
static guint watches;
static struct sigaction found[G_N_ELEMENTS (interrupting_signals)];

struct _DshInterruptWatch {
  GSource *sources[G_N_ELEMENTS (interrupting_signals)];
};

DshInterruptWatch *
dsh_interrupt_watch_new (GMainContext *context, GSourceFunc callback, gpointer user_data)
{
  DshInterruptWatch *watch = g_new0 (DshInterruptWatch, 1);

  g_mutex_lock (&dispositions_lock);
  for (guint i = 0; watches == 0 && i < G_N_ELEMENTS (interrupting_signals); i++)
    sigaction (interrupting_signals[i], NULL, &found[i]);
  watches++;
  for (guint i = 0; i < G_N_ELEMENTS (interrupting_signals); i++)
    {
      watch->sources[i] = g_unix_signal_source_new (interrupting_signals[i]);
      g_source_set_callback (watch->sources[i], callback, user_data, NULL);
      g_source_attach (watch->sources[i], context);
    }
  g_mutex_unlock (&dispositions_lock);
  return watch;
}

void
dsh_interrupt_watch_free (DshInterruptWatch *watch)
{
  g_mutex_lock (&dispositions_lock);
  for (guint i = 0; i < G_N_ELEMENTS (watch->sources); i++)
    {
      g_source_destroy (watch->sources[i]);
      g_source_unref (watch->sources[i]);
    }
  watches--;
  for (guint i = 0; watches == 0 && i < G_N_ELEMENTS (interrupting_signals); i++)
    {
      struct sigaction now;

      /* Anything but SIG_DFL is still GLib's handler: a source of the caller's watches it. */
      if (sigaction (interrupting_signals[i], NULL, &now) == 0 &&
          (now.sa_flags & SA_SIGINFO) == 0 && now.sa_handler == SIG_DFL)
        sigaction (interrupting_signals[i], &found[i], NULL);
    }
  g_mutex_unlock (&dispositions_lock);
  g_free (watch);
}
