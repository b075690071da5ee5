/* dsh-backend-fake-host.c — a backend host answering from tables set in advance.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-backend-fake-host-private.h"

static DshBackendFakeHost *
fake_of (DshBackendHost *host)
{
  /* host is the first member of call, which is the first member of the fake host. */
  return (DshBackendFakeHost *) host->host_data;
}

static const char *
fake_find_program (DshBackendHost *host, const char *name)
{
  return g_hash_table_lookup (fake_of (host)->programs, name);
}

static const char *
fake_find_helper (DshBackendHost *host, const char *name)
{
  return g_hash_table_lookup (fake_of (host)->helpers, name);
}

static const char *
fake_get_env (DshBackendHost *host, const char *name)
{
  return g_hash_table_lookup (fake_of (host)->environment, name);
}

static int
fake_spawn_probe (DshBackendHost *host,
                  const char *const *argv,
                  int *exit_status,
                  char *stderr_buf,
                  size_t stderr_buf_len)
{
  DshBackendFakeHost *self = fake_of (host);

  g_ptr_array_add (self->probes, g_strdupv ((char **) argv));
  if (!self->probe_starts)
    return -1;
  if (exit_status != NULL)
    *exit_status = self->probe_exit_status;
  if (stderr_buf != NULL && stderr_buf_len > 0)
    g_strlcpy (stderr_buf, self->probe_stderr != NULL ? self->probe_stderr : "", stderr_buf_len);
  return 0;
}

static void
fake_set_enforcement (DshBackendHost *host, int32_t enforcement)
{
  DshBackendFakeHost *self = fake_of (host);

  self->enforcement_set = TRUE;
  self->backend_enforcement = enforcement;
  self->call_set_enforcement (host, enforcement);
}

static void
init_call (DshBackendFakeHost *self)
{
  dsh_backend_call_init (&self->call, NULL, NULL);
  self->enforcement_set = FALSE;
  self->backend_enforcement = -1;
  self->call_set_enforcement = self->call.host.set_enforcement;
  self->call.host.set_enforcement = fake_set_enforcement;
  self->call.host.find_program = fake_find_program;
  self->call.host.find_helper = fake_find_helper;
  self->call.host.get_env = fake_get_env;
  self->call.host.spawn_probe = fake_spawn_probe;
}

DshBackendFakeHost *
dsh_backend_fake_host_new (void)
{
  DshBackendFakeHost *self = g_new0 (DshBackendFakeHost, 1);

  init_call (self);
  self->programs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->helpers = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->environment = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->probes = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);
  return self;
}

void
dsh_backend_fake_host_free (DshBackendFakeHost *self)
{
  dsh_backend_call_clear (&self->call);
  g_hash_table_unref (self->programs);
  g_hash_table_unref (self->helpers);
  g_hash_table_unref (self->environment);
  g_ptr_array_unref (self->probes);
  g_free (self->probe_stderr);
  g_free (self);
}

static void
set_answer (GHashTable *table, const char *name, const char *value)
{
  if (value == NULL)
    g_hash_table_remove (table, name);
  else
    g_hash_table_insert (table, g_strdup (name), g_strdup (value));
}

void
dsh_backend_fake_host_set_program (DshBackendFakeHost *self, const char *name, const char *path)
{
  set_answer (self->programs, name, path);
}

void
dsh_backend_fake_host_set_helper (DshBackendFakeHost *self, const char *name, const char *path)
{
  set_answer (self->helpers, name, path);
}

void
dsh_backend_fake_host_set_env (DshBackendFakeHost *self, const char *name, const char *value)
{
  set_answer (self->environment, name, value);
}

void
dsh_backend_fake_host_set_probe (DshBackendFakeHost *self,
                                 gboolean starts,
                                 int exit_status,
                                 const char *stderr_text)
{
  self->probe_starts = starts;
  self->probe_exit_status = exit_status;
  g_free (self->probe_stderr);
  self->probe_stderr = g_strdup (stderr_text);
}

void
dsh_backend_fake_host_reset (DshBackendFakeHost *self)
{
  dsh_backend_call_clear (&self->call);
  init_call (self);
  g_ptr_array_set_size (self->probes, 0);
}

DshBackendHost *
dsh_backend_fake_host_get_host (DshBackendFakeHost *self)
{
  return &self->call.host;
}
