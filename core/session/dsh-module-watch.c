/* dsh-module-watch.c — a thread with a main context of its own, holding one directory monitor
 * per module directory, so that a process with no main loop (a harness in any language, serve
 * reading its stdin) still notices module changes as they happen.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-module-watch-private.h"

#include <gio/gio.h>

/* The loader only looks at files named like this; temporary files beside them do not count. */
#define MODULE_PREFIX "libdsh-backend-"

struct _DshModuleWatch {
  DshModuleWatchFunc func;
  gpointer user_data;

  GMainContext *context;
  GMainLoop *loop;
  GPtrArray *monitors;
  GThread *thread;
};

static gboolean
names_module (GFile *file)
{
  g_autofree char *name = file != NULL ? g_file_get_basename (file) : NULL;

  return name != NULL && g_str_has_prefix (name, MODULE_PREFIX);
}

static void
on_directory_changed (GFileMonitor *monitor,
                      GFile *file,
                      GFile *other_file,
                      GFileMonitorEvent event,
                      gpointer user_data)
{
  DshModuleWatch *self = user_data;
  GFile *watched = g_object_get_data (G_OBJECT (monitor), "dsh-module-dir");

  /* Every kind of change counts: a rewrite, a rename over or away, a chmod that makes a module
   * untrusted, a removal. Once more is harmless: a generation costs nothing until it is used.
   * So do changes of the directory itself: the loader refuses every module of one that is
   * writable by others or owned by someone else, and a chmod of it touches no module file. */
  if (names_module (file) || names_module (other_file) ||
      (file != NULL && watched != NULL && g_file_equal (file, watched)))
    self->func (self->user_data);
}

static gpointer
watch_thread (gpointer user_data)
{
  DshModuleWatch *self = user_data;

  g_main_context_push_thread_default (self->context);
  g_main_loop_run (self->loop);
  g_main_context_pop_thread_default (self->context);
  return NULL;
}

/* Made in the watch's context, before its thread runs, so that their signals arrive there. */
static gboolean
watch_directories (DshModuleWatch *self, const char *const *dirs, GError **error)
{
  gboolean ok = TRUE;

  g_main_context_push_thread_default (self->context);
  for (gsize i = 0; ok && dirs != NULL && dirs[i] != NULL; i++)
    {
      g_autoptr (GFile) dir = g_file_new_for_path (dirs[i]);
      g_autoptr (GError) local_error = NULL;
      GFileMonitor *monitor = g_file_monitor_directory (dir, G_FILE_MONITOR_WATCH_MOVES, NULL,
                                                        &local_error);

      if (monitor == NULL)
        {
          g_set_error (error, local_error->domain, local_error->code,
                       "cannot watch the module directory %s: %s", dirs[i],
                       local_error->message);
          ok = FALSE;
          continue;
        }
      g_object_set_data_full (G_OBJECT (monitor), "dsh-module-dir", g_object_ref (dir),
                              g_object_unref);
      g_signal_connect (monitor, "changed", G_CALLBACK (on_directory_changed), self);
      g_ptr_array_add (self->monitors, monitor);
    }
  g_main_context_pop_thread_default (self->context);
  return ok;
}

static gboolean
quit_loop (gpointer user_data)
{
  g_main_loop_quit (user_data);
  return G_SOURCE_REMOVE;
}

void
dsh_module_watch_free (DshModuleWatch *self)
{
  if (self == NULL)
    return;
  if (self->thread != NULL)
    {
      g_main_context_invoke (self->context, quit_loop, self->loop);
      g_thread_join (self->thread);
    }
  /* The thread is gone: no callback can run any more. */
  for (guint i = 0; i < self->monitors->len; i++)
    {
      g_signal_handlers_disconnect_by_data (self->monitors->pdata[i], self);
      g_file_monitor_cancel (self->monitors->pdata[i]);
    }
  g_ptr_array_unref (self->monitors);
  g_main_loop_unref (self->loop);
  g_main_context_unref (self->context);
  g_free (self);
}

DshModuleWatch *
dsh_module_watch_new (const char *const *dirs,
                      DshModuleWatchFunc func,
                      gpointer user_data,
                      GError **error)
{
  g_autoptr (DshModuleWatch) self = g_new0 (DshModuleWatch, 1);

  self->func = func;
  self->user_data = user_data;
  self->context = g_main_context_new ();
  self->loop = g_main_loop_new (self->context, FALSE);
  self->monitors = g_ptr_array_new_with_free_func (g_object_unref);
  if (!watch_directories (self, dirs, error))
    return NULL;
  self->thread = g_thread_new ("dsh-module-watch", watch_thread, self);
  return g_steal_pointer (&self);
}
