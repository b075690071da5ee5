/* dsh-backend-host.c — the host side of the backend ABI: the table of services a module may call
 * while the core is inside one of its functions.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-backend-host-private.h"

#include <glib/gstdio.h>
#include <string.h>

#include "dsh-child-path-private.h"
#include "dsh-error.h"
#include "dsh-module-loader-private.h"
#include "dsh-platform-private.h"
#include "dsh-root-grants-private.h"
#include "dsh-roots.h"
#include "dsh-spawn-private.h"

static DshBackendCall *
call_of (DshBackendHost *host)
{
  return host->host_data;
}

gboolean
dsh_backend_path_is_untrusted (const char *path, const char *const *roots)
{
  g_autofree char *canonical = dsh_canonical_path (path);

  for (gsize i = 0; roots != NULL && roots[i] != NULL; i++)
    {
      if (dsh_path_is_beneath (canonical, roots[i]))
        return TRUE;
    }
  /* Through a symlink (a module file that is a link, say) it leads where the directories asked
   * about before do not: that way is asked about too, beneath any directory ever granted. */
  if (!g_str_equal (canonical, path))
    {
      g_autofree char *granted = dsh_root_grants_untrusted_above (path);

      return granted != NULL;
    }
  return FALSE;
}

static const char *
keep_string (DshBackendCall *call, char *owned)
{
  if (owned != NULL)
    g_ptr_array_add (call->strings, owned);
  return owned;
}

static void
host_push_arg (DshBackendHost *host, const char *arg)
{
  DshBackendCall *call = call_of (host);

  g_ptr_array_add (call->argv, g_string_chunk_insert (call->arg_chunk, arg != NULL ? arg : ""));
}

static void
host_keep_fd (DshBackendHost *host, int fd)
{
  DshBackendCall *call = call_of (host);
  guint at = 0;

  /* 0-2 are the command's own stdin, stdout and stderr. */
  if (fd <= 2)
    return;
  if (call->kept_fds == NULL)
    call->kept_fds = g_array_new (FALSE, FALSE, sizeof (int));
  while (at < call->kept_fds->len && g_array_index (call->kept_fds, int, at) < fd)
    at++;
  if (at == call->kept_fds->len || g_array_index (call->kept_fds, int, at) != fd)
    g_array_insert_val (call->kept_fds, at, fd);
}

static void
host_set_error (DshBackendHost *host, const char *message)
{
  DshBackendCall *call = call_of (host);
  g_autofree char *text = g_utf8_make_valid (message != NULL ? message
                                                             : "unspecified backend error", -1);

  g_free (call->error);
  /* The module only saw "not found": the cause is the refused file. */
  call->error = call->lookup_refusal != NULL
                  ? g_strdup_printf ("%s (refused: %s)", text, call->lookup_refusal)
                  : g_steal_pointer (&text);
}

static void
host_set_enforcement (DshBackendHost *host, int32_t enforcement)
{
  call_of (host)->enforcement = enforcement == DSH_BACKEND_ENFORCEMENT_FULL
                                  ? DSH_ENFORCEMENT_FULL
                                  : DSH_ENFORCEMENT_PARTIAL;
}

static void
host_add_reason (DshBackendHost *host, const char *reason)
{
  if (reason != NULL)
    g_ptr_array_add (call_of (host)->reasons, g_utf8_make_valid (reason, -1));
}

/* System directories win over PATH: a confined command that can write into a directory on the
 * caller's PATH must not be able to plant a fake runner for the next call. */
static const char *const system_program_dirs[] = { "/usr/bin", "/bin", "/usr/sbin", "/sbin",
                                                   "/usr/local/bin", NULL };

char *
dsh_backend_find_program (const char *name)
{
  if (strchr (name, '/') == NULL)
    {
      for (gsize i = 0; system_program_dirs[i] != NULL; i++)
        {
          g_autofree char *path = dsh_child_path (system_program_dirs[i], name);

          if (dsh_platform_is_program_file (path))
            return g_steal_pointer (&path);
        }
    }
  return g_find_program_in_path (name);
}

static void
lookup_free (DshBackendLookup *lookup)
{
  g_free (lookup->name);
  g_free (lookup->path);
  g_free (lookup);
}

/* Hands path (taken) to the module as what the lookup of name found, and records it: a call
 * answered by remembered lookups has them kept already. NULL when the file is one someone
 * else may rewrite: checked on every call, remembered or not, since a chmod or a new owner
 * needs no new module generation. */
static const char *
found (DshBackendCall *call, gboolean helper, const char *name, char *path)
{
  g_autofree char *refusal = dsh_platform_program_refusal (path, helper);

  if (refusal != NULL)
    {
      g_free (call->lookup_refusal);
      call->lookup_refusal = g_steal_pointer (&refusal);
      g_free (path);
      return NULL;
    }
  if (call->remembered == NULL)
    {
      DshBackendLookup *lookup = g_new (DshBackendLookup, 1);

      lookup->helper = helper;
      lookup->name = g_strdup (name);
      lookup->path = g_strdup (path);
      if (call->lookups == NULL)
        call->lookups = g_ptr_array_new_with_free_func ((GDestroyNotify) lookup_free);
      g_ptr_array_add (call->lookups, lookup);
    }
  g_ptr_array_add (call->programs, (gpointer) keep_string (call, path));
  return path;
}

/* What an earlier call of this provider found for the same lookup: the runner its check and
 * probe vouched for, not a second search that could find another. */
static char *
remembered (DshBackendCall *call, gboolean helper, const char *name)
{
  for (guint i = 0; call->remembered != NULL && i < call->remembered->len; i++)
    {
      const DshBackendLookup *lookup = call->remembered->pdata[i];

      if (lookup->helper == helper && g_str_equal (lookup->name, name))
        return g_strdup (lookup->path);
    }
  return NULL;
}

/* Found on PATH beneath a directory some call granted as a writable root: that call's command
 * could have put it there. The system's own directories no call may grant. */
static gboolean
is_in_granted_dir (const char *path)
{
  g_autofree char *untrusted = NULL;

  for (gsize i = 0; system_program_dirs[i] != NULL; i++)
    {
      if (dsh_path_is_beneath (path, system_program_dirs[i]))
        return FALSE;
    }
  untrusted = dsh_root_grants_untrusted_above (path);
  return untrusted != NULL;
}

static const char *
host_find_program (DshBackendHost *host, const char *name)
{
  DshBackendCall *call = call_of (host);
  char *path = remembered (call, FALSE, name);

  if (path != NULL)
    return found (call, FALSE, name, path);
  path = dsh_backend_find_program (name);
  /* A runner a confined command could have written is no runner. */
  if (path == NULL || dsh_backend_path_is_untrusted (path, call->untrusted_roots) ||
      is_in_granted_dir (path))
    {
      g_free (path);
      return NULL;
    }
  return found (call, FALSE, name, path);
}

static const char *
host_find_helper (DshBackendHost *host, const char *name)
{
  DshBackendCall *call = call_of (host);
  char *known = remembered (call, TRUE, name);

  if (known != NULL)
    return found (call, TRUE, name, known);
  /* Helpers come only from the project's own directories, never from PATH. */
  for (gsize i = 0; call->helper_dirs != NULL && call->helper_dirs[i] != NULL; i++)
    {
      char *path = dsh_child_path (call->helper_dirs[i], name);

      if (dsh_platform_is_program_file (path) &&
          !dsh_backend_path_is_untrusted (path, call->untrusted_roots))
        return found (call, TRUE, name, path);
      g_free (path);
    }
  return NULL;
}

static const char *
host_get_env (DshBackendHost *host, const char *name)
{
  return keep_string (call_of (host), g_strdup (g_getenv (name)));
}

static int
host_spawn_probe (DshBackendHost *host,
                  const char *const *argv,
                  int *exit_status,
                  char *stderr_buf,
                  size_t stderr_buf_len)
{
  g_autofree char *stderr_text = NULL;
  int status = -1;

  if (!dsh_backend_run_probe (argv, DSH_PROBE_TIMEOUT_MS, &status, &stderr_text, NULL))
    return -1;

  if (exit_status != NULL)
    *exit_status = status;
  if (stderr_buf != NULL && stderr_buf_len > 0)
    {
      gsize len = strcspn (stderr_text, "\n");

      len = MIN (len, stderr_buf_len - 1);
      memcpy (stderr_buf, stderr_text, len);
      stderr_buf[len] = '\0';
    }
  return 0;
}

void
dsh_backend_call_init (DshBackendCall *call,
                       const char *const *helper_dirs,
                       const char *const *untrusted_roots)
{
  memset (call, 0, sizeof (*call));
  call->host.abi_major = DSH_BACKEND_ABI_MAJOR;
  call->host.abi_minor = DSH_BACKEND_ABI_MINOR;
  call->host.host_data = call;
  call->host.push_arg = host_push_arg;
  call->host.set_error = host_set_error;
  call->host.set_enforcement = host_set_enforcement;
  call->host.add_reason = host_add_reason;
  call->host.find_program = host_find_program;
  call->host.find_helper = host_find_helper;
  call->host.get_env = host_get_env;
  call->host.spawn_probe = host_spawn_probe;
  call->host.keep_fd = host_keep_fd;

  call->helper_dirs = helper_dirs;
  call->untrusted_roots = untrusted_roots;
  /* A runner's argv has some thirty strings: copied into one chunk, not one allocation each. */
  call->arg_chunk = g_string_chunk_new (1024);
  call->argv = g_ptr_array_sized_new (48);
  call->enforcement = DSH_ENFORCEMENT_FULL;
  call->reasons = g_ptr_array_new_with_free_func (g_free);
  call->strings = g_ptr_array_new_with_free_func (g_free);
  call->programs = g_ptr_array_new ();
}

void
dsh_backend_call_clear (DshBackendCall *call)
{
  g_clear_pointer (&call->argv, g_ptr_array_unref);
  g_clear_pointer (&call->arg_chunk, g_string_chunk_free);
  g_clear_pointer (&call->error, g_free);
  g_clear_pointer (&call->reasons, g_ptr_array_unref);
  g_clear_pointer (&call->strings, g_ptr_array_unref);
  g_clear_pointer (&call->programs, g_ptr_array_unref);
  g_clear_pointer (&call->lookups, g_ptr_array_unref);
  for (guint i = 0; call->kept_fds != NULL && i < call->kept_fds->len; i++)
    g_close (g_array_index (call->kept_fds, int, i), NULL);
  g_clear_pointer (&call->kept_fds, g_array_unref);
  g_clear_pointer (&call->lookup_refusal, g_free);
}

gboolean
dsh_backend_run_probe (const char *const *argv,
                       guint timeout_ms,
                       int *exit_code,
                       char **stderr_text,
                       GError **error)
{
  const DshSpawnOptions options = { .cwd = "/", .quiet = TRUE, .timeout_ms = timeout_ms,
                                    .close_inherited_fds = TRUE };
  g_autoptr (GString) captured = g_string_new (NULL);
  int term_signal = 0;

  if (!dsh_spawn_run (argv, &options, exit_code, &term_signal, captured, error))
    return FALSE;
  if (stderr_text != NULL)
    *stderr_text = g_utf8_make_valid (captured->str, (gssize) captured->len);
  return TRUE;
}

gboolean
dsh_backend_call_confine (DshBackendCall *call,
                          const char *name,
                          const DshBackendDescriptor *descriptor,
                          const char *const *argv,
                          const DshSandboxPolicy *policy,
                          GError **error)
{
  /* Pinned roots are handed down as they are; only unpinned ones are worked out here. */
  g_auto (GStrv) unpinned = policy->mode == DSH_SANDBOX_MODE_WORKSPACE_WRITE &&
                                policy->writable_roots != NULL
                              ? NULL
                              : dsh_writable_roots (policy);
  const char *const *roots = unpinned != NULL ? (const char *const *) unpinned
                                              : (const char *const *) policy->writable_roots;
  DshBackendPolicy backend_policy = { 0 };
  guint n_argv = g_strv_length ((char **) argv);
  int rc;

  backend_policy.mode = policy->mode == DSH_SANDBOX_MODE_WORKSPACE_WRITE
                          ? DSH_BACKEND_MODE_WORKSPACE_WRITE
                          : DSH_BACKEND_MODE_READ_ONLY;
  backend_policy.workspace_root = policy->workspace_root;
  backend_policy.session_id = policy->session_id;
  backend_policy.writable_roots = roots;

  rc = descriptor->confine (&call->host, &backend_policy, argv);
  if (rc != 0 || call->error != NULL)
    {
      g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_UNAVAILABLE,
                   "backend \"%s\" could not confine the command: %s", name,
                   call->error != NULL ? call->error : "no reason given");
      return FALSE;
    }

  /* The caller's argv must come last, after at least the runner itself. */
  if (call->argv->len <= n_argv)
    {
      g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_UNAVAILABLE,
                   "backend \"%s\" returned an argv that does not wrap the command", name);
      return FALSE;
    }
  for (guint i = 0; i < n_argv; i++)
    {
      if (g_strcmp0 (call->argv->pdata[call->argv->len - n_argv + i], argv[i]) != 0)
        {
          g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_UNAVAILABLE,
                       "backend \"%s\" returned an argv that does not end with the command", name);
          return FALSE;
        }
    }
  if (call->enforcement == DSH_ENFORCEMENT_PARTIAL && call->reasons->len == 0)
    g_ptr_array_add (call->reasons,
                     g_strdup ("the backend reported partial enforcement without a reason"));
  g_ptr_array_add (call->argv, NULL);
  g_ptr_array_add (call->reasons, NULL);
  return TRUE;
}

DshDialect *
dsh_backend_descriptor_dialect_new (const DshBackendDescriptor *descriptor)
{
  DshDialect *dialect = dsh_dialect_new (descriptor->denial_signatures,
                                         dsh_backend_descriptor_denial_exclusions (descriptor));

  /* Copied out of the module: a result outlives the module it came from. */
  for (size_t i = 0; i < descriptor->n_runner_failure_rules; i++)
    {
      const DshBackendFailureRule *r = &descriptor->runner_failure_rules[i];

      g_ptr_array_add (dialect->runner_failure_rules,
                       dsh_runner_failure_rule_new (r->allowed_exit_codes,
                                                    r->n_allowed_exit_codes,
                                                    r->fatal_signatures,
                                                    r->informational_lines));
    }
  return dialect;
}

DshConfinement *
dsh_backend_call_to_confinement (DshBackendCall *call,
                                 const char *name,
                                 const DshBackendDescriptor *descriptor)
{
  g_autoptr (DshDialect) dialect = dsh_backend_descriptor_dialect_new (descriptor);

  return dsh_backend_call_to_confinement_in (call, name, dialect);
}

DshConfinement *
dsh_backend_call_to_confinement_in (DshBackendCall *call, const char *name, DshDialect *dialect)
{
  /* The module's argv and reasons move into the result as they are, strings and all: nothing
   * is copied. */
  GStrv argv = (GStrv) g_ptr_array_free (g_steal_pointer (&call->argv), FALSE);
  GStrv reasons = (GStrv) g_ptr_array_free (g_steal_pointer (&call->reasons), FALSE);

  return dsh_confinement_new_taking (argv, g_steal_pointer (&call->arg_chunk), name,
                                     call->enforcement, reasons, dialect);
}
