/* dsh-backend-host.c — the host side of the backend ABI: the table of services a module may call
 * while the core is inside one of its functions.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-backend-host-private.h"

#include <gio/gio.h>
#include <string.h>

#define PROBE_TIMEOUT_MS 10000

static DshBackendCall *
call_of (DshBackendHost *host)
{
  return host->host_data;
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
  g_ptr_array_add (call_of (host)->argv, g_strdup (arg != NULL ? arg : ""));
}

static void
host_set_error (DshBackendHost *host, const char *message)
{
  DshBackendCall *call = call_of (host);

  g_free (call->error);
  call->error = g_utf8_make_valid (message != NULL ? message : "unspecified backend error", -1);
}

static void
host_set_enforcement (DshBackendHost *host, DshBackendEnforcement enforcement)
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
          g_autofree char *path = g_build_filename (system_program_dirs[i], name, NULL);

          if (g_file_test (path, G_FILE_TEST_IS_EXECUTABLE) &&
              !g_file_test (path, G_FILE_TEST_IS_DIR))
            return g_steal_pointer (&path);
        }
    }
  return g_find_program_in_path (name);
}

static const char *
host_find_program (DshBackendHost *host, const char *name)
{
  return keep_string (call_of (host), dsh_backend_find_program (name));
}

static const char *
host_find_helper (DshBackendHost *host, const char *name)
{
  DshBackendCall *call = call_of (host);

  /* Helpers come only from the project's own directories, never from PATH. */
  for (gsize i = 0; call->helper_dirs != NULL && call->helper_dirs[i] != NULL; i++)
    {
      g_autofree char *path = g_build_filename (call->helper_dirs[i], name, NULL);

      if (g_file_test (path, G_FILE_TEST_IS_EXECUTABLE) &&
          !g_file_test (path, G_FILE_TEST_IS_DIR))
        return keep_string (call, g_steal_pointer (&path));
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

  if (!dsh_backend_run_probe (argv, PROBE_TIMEOUT_MS, &status, &stderr_text, NULL))
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
dsh_backend_call_init (DshBackendCall *call, const char *const *helper_dirs)
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

  call->helper_dirs = helper_dirs;
  call->argv = g_ptr_array_new_with_free_func (g_free);
  call->enforcement = DSH_ENFORCEMENT_FULL;
  call->reasons = g_ptr_array_new_with_free_func (g_free);
  call->strings = g_ptr_array_new_with_free_func (g_free);
}

void
dsh_backend_call_clear (DshBackendCall *call)
{
  g_clear_pointer (&call->argv, g_ptr_array_unref);
  g_clear_pointer (&call->error, g_free);
  g_clear_pointer (&call->reasons, g_ptr_array_unref);
  g_clear_pointer (&call->strings, g_ptr_array_unref);
}

typedef struct {
  GBytes *stderr_bytes;
  GError *error;
  gboolean done;
  gboolean timed_out;
} ProbeWait;

static void
probe_communicated (GObject *source, GAsyncResult *result, gpointer user_data)
{
  ProbeWait *wait = user_data;

  g_subprocess_communicate_finish (G_SUBPROCESS (source), result, NULL, &wait->stderr_bytes,
                                   &wait->error);
  wait->done = TRUE;
}

static gboolean
probe_timed_out (gpointer user_data)
{
  GSubprocess *process = user_data;

  g_subprocess_force_exit (process);
  return G_SOURCE_REMOVE;
}

gboolean
dsh_backend_run_probe (const char *const *argv,
                       guint timeout_ms,
                       int *exit_code,
                       char **stderr_text,
                       GError **error)
{
  g_autoptr (GMainContext) context = g_main_context_new ();
  g_autoptr (GSubprocessLauncher) launcher = NULL;
  g_autoptr (GSubprocess) process = NULL;
  g_autoptr (GSource) timeout = NULL;
  ProbeWait wait = { 0 };

  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_SILENCE |
                                        G_SUBPROCESS_FLAGS_STDERR_PIPE);
  g_subprocess_launcher_set_cwd (launcher, "/");
  process = g_subprocess_launcher_spawnv (launcher, argv, error);
  if (process == NULL)
    return FALSE;

  g_main_context_push_thread_default (context);
  timeout = g_timeout_source_new (timeout_ms);
  g_source_set_callback (timeout, probe_timed_out, process, NULL);
  g_source_attach (timeout, context);
  g_subprocess_communicate_async (process, NULL, NULL, probe_communicated, &wait);
  while (!wait.done)
    g_main_context_iteration (context, TRUE);
  g_source_destroy (timeout);
  /* communicate() returns once stderr closes; the exit status may come a little later. */
  g_subprocess_wait (process, NULL, NULL);
  g_main_context_pop_thread_default (context);

  if (wait.error != NULL)
    {
      g_propagate_error (error, wait.error);
      g_clear_pointer (&wait.stderr_bytes, g_bytes_unref);
      return FALSE;
    }

  if (g_subprocess_get_if_exited (process))
    *exit_code = g_subprocess_get_exit_status (process);
  else
    *exit_code = 128 + g_subprocess_get_term_sig (process);

  if (stderr_text != NULL)
    {
      gsize len = 0;
      const char *data = wait.stderr_bytes != NULL ? g_bytes_get_data (wait.stderr_bytes, &len)
                                                   : NULL;

      *stderr_text = g_utf8_make_valid (data != NULL ? data : "", len);
    }
  g_clear_pointer (&wait.stderr_bytes, g_bytes_unref);
  return TRUE;
}
