/* dsh-serve-generation.c — generations of "dsh-sandbox serve": reference-counted owners of the
 * per-workspace providers, and the module watch that retires the current one when a module
 * directory changes. A retired generation lives on while a call holds it; its modules are
 * closed when the last such call ends.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-serve-generation.h"

#include <string.h>

#include "dsh-module-watch-private.h"

typedef struct {
  DshLocalProvider *provider;
  /* This entry's link in the generation's recency queue; its data is the table's key. */
  GList *link;
} KeptProvider;

struct _DshServeGeneration {
  gatomicrefcount ref;
  guint number;
  /* Guards the table and the queue: confines run on more than one thread. */
  GMutex lock;
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
  g_mutex_init (&self->lock);
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
  g_mutex_clear (&self->lock);
  g_free (self);
}

/* Called locked. */
static DshLocalProvider *
kept_provider (DshServeGeneration *self, const DshSandboxPolicy *policy)
{
  /* One provider per set of roots a confined command may write (workspace and extra roots): its
   * trust checks depend on them. */
  g_autofree char *extra = policy != NULL && policy->extra_writable_roots != NULL
                             ? g_strjoinv ("\n", policy->extra_writable_roots)
                             : NULL;
  g_autofree char *key = policy != NULL ? g_strconcat (policy->workspace_root, "\n",
                                                       extra != NULL ? extra : "", NULL)
                                        : g_strdup ("");
  KeptProvider *kept = g_hash_table_lookup (self->providers, key);
  g_autoptr (DshSandboxPolicy) unpinned = NULL;

  if (kept != NULL)
    {
      g_queue_unlink (&self->recency, kept->link);
      g_queue_push_head_link (&self->recency, kept->link);
      return kept->provider;
    }

  /* A call still using an evicted provider holds its own reference, and results outlive their
   * provider. */
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

DshLocalProvider *
dsh_serve_generation_provider (DshServeGeneration *self, const DshSandboxPolicy *policy)
{
  DshLocalProvider *provider;

  g_mutex_lock (&self->lock);
  provider = kept_provider (self, policy);
  g_mutex_unlock (&self->lock);
  return provider;
}

DshLocalProvider *
dsh_serve_generation_dup_provider (DshServeGeneration *self, const DshSandboxPolicy *policy)
{
  DshLocalProvider *provider;

  g_mutex_lock (&self->lock);
  provider = g_object_ref (kept_provider (self, policy));
  g_mutex_unlock (&self->lock);
  return provider;
}

guint
dsh_serve_generation_number (DshServeGeneration *self)
{
  return self->number;
}

struct _DshServeGenerations {
  GMutex lock;
  DshServeGeneration *current;

  DshModuleWatch *watch;
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

static void
on_modules_changed (gpointer user_data)
{
  dsh_serve_generations_renew (user_data);
}

DshServeGenerations *
dsh_serve_generations_new (guint capacity)
{
  DshServeGenerations *self = g_new0 (DshServeGenerations, 1);
  g_autoptr (DshBackendSelector) selector = dsh_cli_new_selector (NULL);
  g_autoptr (GError) error = NULL;

  g_mutex_init (&self->lock);
  self->current = generation_new (1, capacity);
  self->watch = dsh_module_watch_new ((const char *const *) selector->backend_dirs,
                                      on_modules_changed, self, &error);
  if (self->watch == NULL)
    g_printerr ("dsh-sandbox warning: module changes will need a reload: %s\n", error->message);
  return self;
}

void
dsh_serve_generations_free (DshServeGenerations *self)
{
  if (self == NULL)
    return;
  /* First the watch, which may be renewing on its own thread. */
  dsh_module_watch_free (self->watch);
  dsh_serve_generation_unref (self->current);
  g_mutex_clear (&self->lock);
  g_free (self);
}
