/* dsh-serve-generation.c — generations of "dsh-sandbox serve": reference-counted owners of the
 * per-workspace providers, and the watcher thread that retires the current one when a module
 * directory changes. A retired generation lives on while a call holds it; its modules are
 * closed when the last such call ends.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-serve-generation.h"

#include <string.h>

typedef struct {
  DshLocalProvider *provider;
  /* This entry's link in the generation's recency queue; its data is the table's key. */
  GList *link;
} KeptProvider;

struct _DshServeGeneration {
  gatomicrefcount ref;
  guint number;
  /* workspace root and extra roots ("" for probe) -> KeptProvider */
  GHashTable *providers;
  /* The keys, most recently used first; the links own nothing (the table owns the keys). */
  GQueue recency;
  guint capacity;
};

static void
kept_provider_free (KeptProvider *kept)
{
  g_object_unref (kept->provider);
  g_free (kept);
}

static DshServeGeneration *
generation_new (guint number, guint capacity)
{
  DshServeGeneration *self = g_new0 (DshServeGeneration, 1);

  g_atomic_ref_count_init (&self->ref);
  self->number = number;
  self->capacity = capacity;
  self->providers = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                           (GDestroyNotify) kept_provider_free);
  return self;
}

DshServeGeneration *
dsh_serve_generation_ref (DshServeGeneration *self)
{
  g_atomic_ref_count_inc (&self->ref);
  return self;
}

void
dsh_serve_generation_unref (DshServeGeneration *self)
{
  if (!g_atomic_ref_count_dec (&self->ref))
    return;
  g_queue_clear (&self->recency);
  g_hash_table_unref (self->providers);
  g_free (self);
}

DshLocalProvider *
dsh_serve_generation_provider (DshServeGeneration *self, const DshSandboxPolicy *policy)
{
  /* One provider per set of roots a confined command may write (workspace and extra roots): its
   * trust checks depend on them. */
  g_autofree char *extra = policy != NULL && policy->extra_writable_roots != NULL
                             ? g_strjoinv ("\n", policy->extra_writable_roots)
                             : NULL;
  g_autofree char *key = policy != NULL ? g_strdup_printf ("%s\n%s", policy->workspace_root,
                                                           extra != NULL ? extra : "")
                                        : g_strdup ("");
  KeptProvider *kept = g_hash_table_lookup (self->providers, key);
  g_autoptr (DshSandboxPolicy) unpinned = NULL;

  if (kept != NULL)
    {
      g_queue_unlink (&self->recency, kept->link);
      g_queue_push_head_link (&self->recency, kept->link);
      return kept->provider;
    }

  /* Calls answered so far are done with an evicted provider (one call at a time), and results
   * outlive their provider. */
  while (g_hash_table_size (self->providers) >= self->capacity)
    g_hash_table_remove (self->providers, g_queue_pop_tail (&self->recency));

  if (policy != NULL)
    {
      /* Trust must not depend on one call's pinned strings: the provider outlives it. */
      unpinned = dsh_sandbox_policy_copy (policy);
      g_clear_pointer (&unpinned->writable_roots, g_strfreev);
    }
  kept = g_new0 (KeptProvider, 1);
  kept->provider = dsh_cli_new_provider_for_policy (unpinned);
  g_queue_push_head (&self->recency, key);
  kept->link = self->recency.head;
  g_hash_table_insert (self->providers, g_steal_pointer (&key), kept);
  return kept->provider;
}

guint
dsh_serve_generation_number (DshServeGeneration *self)
{
  return self->number;
}

struct _DshServeGenerations {
  GMutex lock;
  DshServeGeneration *current;

  GMainContext *context;
  GMainLoop *loop;
  GPtrArray *monitors;
  GThread *thread;
};

void
dsh_serve_generations_renew (DshServeGenerations *self)
{
  DshServeGeneration *old;

  g_mutex_lock (&self->lock);
  old = self->current;
  self->current = generation_new (old->number + 1, old->capacity);
  g_mutex_unlock (&self->lock);
  dsh_serve_generation_unref (old);
}

DshServeGeneration *
dsh_serve_generations_acquire (DshServeGenerations *self)
{
  DshServeGeneration *generation;

  g_mutex_lock (&self->lock);
  generation = dsh_serve_generation_ref (self->current);
  g_mutex_unlock (&self->lock);
  return generation;
}

static gboolean
names_module (GFile *file)
{
  g_autofree char *name = file != NULL ? g_file_get_basename (file) : NULL;

  return name != NULL && g_str_has_prefix (name, "libdsh-backend-");
}

static void
on_directory_changed (GFileMonitor *monitor,
                      GFile *file,
                      GFile *other_file,
                      GFileMonitorEvent event,
                      gpointer user_data)
{
  DshServeGenerations *self = user_data;

  /* Every kind of change counts: a rewrite, a rename over, a chmod that makes a module
   * untrusted, a removal. Temporary files beside the modules do not. */
  if (names_module (file) || names_module (other_file))
    dsh_serve_generations_renew (self);
}

static gpointer
watch_thread (gpointer user_data)
{
  DshServeGenerations *self = user_data;

  g_main_context_push_thread_default (self->context);
  g_main_loop_run (self->loop);
  g_main_context_pop_thread_default (self->context);
  return NULL;
}

/* Monitors are made in the watcher's context, so their signals arrive on its thread. */
static void
watch_directories (DshServeGenerations *self)
{
  g_autoptr (DshBackendSelector) selector = dsh_cli_new_selector (NULL);

  g_main_context_push_thread_default (self->context);
  for (gsize i = 0; selector->backend_dirs != NULL && selector->backend_dirs[i] != NULL; i++)
    {
      g_autoptr (GFile) dir = g_file_new_for_path (selector->backend_dirs[i]);
      g_autoptr (GError) error = NULL;
      GFileMonitor *monitor = g_file_monitor_directory (dir, G_FILE_MONITOR_WATCH_MOVES, NULL,
                                                        &error);

      if (monitor == NULL)
        {
          g_printerr ("dsh-sandbox warning: module changes in %s will need a reload: %s\n",
                      selector->backend_dirs[i], error->message);
          continue;
        }
      g_signal_connect (monitor, "changed", G_CALLBACK (on_directory_changed), self);
      g_ptr_array_add (self->monitors, monitor);
    }
  g_main_context_pop_thread_default (self->context);
}

DshServeGenerations *
dsh_serve_generations_new (guint capacity)
{
  DshServeGenerations *self = g_new0 (DshServeGenerations, 1);

  g_mutex_init (&self->lock);
  self->current = generation_new (1, capacity);
  self->context = g_main_context_new ();
  self->loop = g_main_loop_new (self->context, FALSE);
  self->monitors = g_ptr_array_new_with_free_func (g_object_unref);
  watch_directories (self);
  self->thread = g_thread_new ("dsh-module-watch", watch_thread, self);
  return self;
}

static gboolean
quit_loop (gpointer user_data)
{
  g_main_loop_quit (user_data);
  return G_SOURCE_REMOVE;
}

void
dsh_serve_generations_free (DshServeGenerations *self)
{
  if (self == NULL)
    return;
  g_main_context_invoke (self->context, quit_loop, self->loop);
  g_thread_join (self->thread);
  for (guint i = 0; i < self->monitors->len; i++)
    g_file_monitor_cancel (self->monitors->pdata[i]);
  g_ptr_array_unref (self->monitors);
  g_main_loop_unref (self->loop);
  g_main_context_unref (self->context);
  dsh_serve_generation_unref (self->current);
  g_mutex_clear (&self->lock);
  g_free (self);
}
