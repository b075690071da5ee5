/* dsh-local-provider-watch.c — a local provider that reloads by itself: its module directories
 * are watched (dsh-module-watch.c, on GIO, so kept out of the sandbox layer), and each change
 * starts a new generation of the provider.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-local-provider-private.h"

#include "dsh-module-watch-private.h"

static void
on_modules_changed (gpointer user_data)
{
  dsh_local_provider_reload (user_data);
}

/**
 * dsh_local_provider_watch_modules:
 * @self: a #DshLocalProvider
 * @error: return location for a #GError
 *
 * Opts in to hot reload. A thread of the provider's own watches the directories its modules are
 * loaded from, and whenever a module file there is added, rewritten, replaced, renamed, made
 * untrusted or removed, it starts a new generation (see dsh_local_provider_reload()): the next
 * call scans and selects again, while calls in flight finish on the generation they started on,
 * whose modules are closed when the last of them ends. Without it a provider keeps the modules
 * it loaded first for its whole lifetime. Calling it again does nothing.
 *
 * The watching is asynchronous: a call made right after a change may still be answered by the
 * generation before it.
 *
 * Returns: %TRUE when watching; %FALSE, with @error naming the directory, when one cannot be
 *   watched (then nothing is)
 *
 * Since: 0.2
 */
gboolean
dsh_local_provider_watch_modules (DshLocalProvider *self, GError **error)
{
  g_autoptr (DshProviderGeneration) generation = NULL;
  DshModuleWatch *watch;
  gboolean ok = TRUE;

  g_return_val_if_fail (DSH_IS_LOCAL_PROVIDER (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  generation = dsh_local_provider_acquire (self);
  g_mutex_lock (&self->lock);
  if (self->watch == NULL)
    {
      /* Every generation has the first one's directories. */
      watch = dsh_module_watch_new ((const char *const *) generation->selector->backend_dirs,
                                    on_modules_changed, self, error);
      if (watch != NULL)
        {
          self->watch = watch;
          self->watch_free = (GDestroyNotify) dsh_module_watch_free;
        }
      ok = watch != NULL;
    }
  g_mutex_unlock (&self->lock);
  return ok;
}
