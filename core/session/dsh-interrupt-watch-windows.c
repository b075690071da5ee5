/* dsh-interrupt-watch-windows.c — the interrupt watch on console control events: ^C and
 * ^Break stand for SIGINT, closing the console, logging off and shutting down for SIGTERM and
 * SIGHUP. Windows runs a control handler on a thread of its own, so the handler only marks each
 * watch and wakes its main context; the callback runs there, as a signal source's does.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-interrupt-watch-private.h"

#include <windows.h>

/* After a close, log-off or shutdown event Windows ends the process once the handler returns:
 * the handler waits this long for the callbacks to withdraw what they were asking. */
#define CLOSE_GRACE_MS 3000

typedef struct {
  GSource source;
  GMainContext *context;
  gint pending;
} InterruptSource;

struct _DshInterruptWatch {
  InterruptSource *source;
};

/* The live watches, for the handler thread; the handler is installed while there are any. */
static GMutex watches_lock;
static GPtrArray *watches;
/* Set whenever a callback has run, for the grace wait after a closing event. */
static HANDLE dispatched_event;

static gboolean
interrupt_prepare (GSource *source, gint *timeout)
{
  *timeout = -1;
  return g_atomic_int_get (&((InterruptSource *) source)->pending) != 0;
}

static gboolean
interrupt_check (GSource *source)
{
  return g_atomic_int_get (&((InterruptSource *) source)->pending) != 0;
}

static gboolean
interrupt_dispatch (GSource *source, GSourceFunc callback, gpointer user_data)
{
  gboolean again;

  g_atomic_int_set (&((InterruptSource *) source)->pending, 0);
  again = callback != NULL ? callback (user_data) : G_SOURCE_REMOVE;
  SetEvent (dispatched_event);
  return again;
}

static void
interrupt_finalize (GSource *source)
{
  g_main_context_unref (((InterruptSource *) source)->context);
}

static GSourceFuncs interrupt_funcs = {
  interrupt_prepare,
  interrupt_check,
  interrupt_dispatch,
  interrupt_finalize,
  NULL,
  NULL,
};

static BOOL WINAPI
on_console_event (DWORD type)
{
  gboolean closing = type == CTRL_CLOSE_EVENT || type == CTRL_LOGOFF_EVENT ||
                     type == CTRL_SHUTDOWN_EVENT;
  gboolean handled;

  if (type != CTRL_C_EVENT && type != CTRL_BREAK_EVENT && !closing)
    return FALSE;
  g_mutex_lock (&watches_lock);
  handled = watches != NULL && watches->len > 0;
  if (handled)
    ResetEvent (dispatched_event);
  for (guint i = 0; watches != NULL && i < watches->len; i++)
    {
      InterruptSource *source = g_ptr_array_index (watches, i);

      g_atomic_int_set (&source->pending, 1);
      g_main_context_wakeup (source->context);
    }
  g_mutex_unlock (&watches_lock);
  /* Handled: ^C no longer ends the process; the callbacks decide what it means. */
  if (handled && closing)
    WaitForSingleObject (dispatched_event, CLOSE_GRACE_MS);
  return handled;
}

DshInterruptWatch *
dsh_interrupt_watch_new (GMainContext *context, GSourceFunc callback, gpointer user_data)
{
  DshInterruptWatch *watch = g_new0 (DshInterruptWatch, 1);
  GSource *source = g_source_new (&interrupt_funcs, sizeof (InterruptSource));

  watch->source = (InterruptSource *) source;
  watch->source->context = g_main_context_ref (context != NULL ? context
                                                               : g_main_context_default ());
  g_source_set_callback (source, callback, user_data, NULL);
  g_source_attach (source, context);

  g_mutex_lock (&watches_lock);
  if (dispatched_event == NULL)
    dispatched_event = CreateEventW (NULL, TRUE, FALSE, NULL);
  if (watches == NULL)
    watches = g_ptr_array_new ();
  /* Without the handler, ^C would end the process with the question still open: that is the
   * one failure the watch exists to prevent, so it is loud. */
  if (watches->len == 0 && !SetConsoleCtrlHandler (on_console_event, TRUE))
    g_warning ("cannot watch for ^C (SetConsoleCtrlHandler failed with error %lu)",
               (gulong) GetLastError ());
  g_ptr_array_add (watches, g_source_ref (source));
  g_mutex_unlock (&watches_lock);
  return watch;
}

void
dsh_interrupt_watch_free (DshInterruptWatch *watch)
{
  GSource *source = (GSource *) watch->source;

  g_mutex_lock (&watches_lock);
  if (g_ptr_array_remove (watches, source))
    g_source_unref (source);
  if (watches->len == 0)
    SetConsoleCtrlHandler (on_console_event, FALSE);
  g_mutex_unlock (&watches_lock);
  g_source_destroy (source);
  g_source_unref (source);
  g_free (watch);
}
