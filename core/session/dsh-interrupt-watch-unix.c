/* dsh-interrupt-watch-unix.c — the interrupt watch on POSIX signals, through GLib's signal
 * sources (safe to attach to any main context, unlike a handler of our own).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-interrupt-watch-private.h"

#include <glib-unix.h>
#include <signal.h>

static const int interrupting_signals[] = { SIGINT, SIGTERM, SIGHUP };

struct _DshInterruptWatch {
  GSource *sources[G_N_ELEMENTS (interrupting_signals)];
};

DshInterruptWatch *
dsh_interrupt_watch_new (GMainContext *context, GSourceFunc callback, gpointer user_data)
{
  DshInterruptWatch *watch = g_new0 (DshInterruptWatch, 1);

  for (guint i = 0; i < G_N_ELEMENTS (interrupting_signals); i++)
    {
      watch->sources[i] = g_unix_signal_source_new (interrupting_signals[i]);
      g_source_set_callback (watch->sources[i], callback, user_data, NULL);
      g_source_attach (watch->sources[i], context);
    }
  return watch;
}

void
dsh_interrupt_watch_free (DshInterruptWatch *watch)
{
  for (guint i = 0; i < G_N_ELEMENTS (watch->sources); i++)
    {
      g_source_destroy (watch->sources[i]);
      g_source_unref (watch->sources[i]);
    }
  g_free (watch);
}
