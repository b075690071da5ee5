/* dsh-cli-spawn.c — runs a command with stdin and stdout passed straight through and stderr
 * streamed to ours while a copy is kept for classification; forwards the signals that would
 * have reached it from a terminal.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-cli.h"

#include <gio/gio.h>
#include <glib-unix.h>
#include <signal.h>
#include <unistd.h>

/* Classification needs the runner's first lines and any denial text; a command that floods
 * stderr still streams everything, only the copy stops growing. */
#define CAPTURE_LIMIT (1024 * 1024)
/* After the command exits, output from a straggler holding stderr open is read this long. */
#define DRAIN_AFTER_EXIT_MS 200

typedef struct {
  GMainLoop *loop;
  GSubprocess *process;
  GInputStream *stderr_stream;
  GCancellable *cancellable;
  GString *captured;
  char buffer[16384];
  gboolean stderr_closed;
  gboolean exited;
  guint drain_timeout;
} SpawnState;

static void
maybe_quit (SpawnState *state)
{
  if (state->exited && state->stderr_closed)
    g_main_loop_quit (state->loop);
}

static void read_stderr (SpawnState *state);

static void
stderr_read_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  SpawnState *state = user_data;
  gssize n = g_input_stream_read_finish (G_INPUT_STREAM (source), result, NULL);

  if (n <= 0)
    {
      state->stderr_closed = TRUE;
      maybe_quit (state);
      return;
    }

  /* Stderr is never rewritten: pass the bytes on as they came. */
  for (gssize done = 0; done < n;)
    {
      gssize w = write (STDERR_FILENO, state->buffer + done, (size_t) (n - done));

      if (w < 0)
        break;
      done += w;
    }
  if (state->captured->len < CAPTURE_LIMIT)
    g_string_append_len (state->captured, state->buffer,
                         MIN ((gsize) n, CAPTURE_LIMIT - state->captured->len));
  read_stderr (state);
}

static void
read_stderr (SpawnState *state)
{
  g_input_stream_read_async (state->stderr_stream, state->buffer, sizeof (state->buffer),
                             G_PRIORITY_DEFAULT, state->cancellable, stderr_read_done, state);
}

static gboolean
drain_timed_out (gpointer user_data)
{
  SpawnState *state = user_data;

  state->drain_timeout = 0;
  g_cancellable_cancel (state->cancellable);
  return G_SOURCE_REMOVE;
}

static void
process_exited (GObject *source, GAsyncResult *result, gpointer user_data)
{
  SpawnState *state = user_data;

  g_subprocess_wait_finish (G_SUBPROCESS (source), result, NULL);
  state->exited = TRUE;
  if (!state->stderr_closed)
    state->drain_timeout = g_timeout_add (DRAIN_AFTER_EXIT_MS, drain_timed_out, state);
  maybe_quit (state);
}

static gboolean
forward_signal (SpawnState *state, int signum)
{
  if (!state->exited)
    g_subprocess_send_signal (state->process, signum);
  return G_SOURCE_CONTINUE;
}

static gboolean
forward_sigint (gpointer user_data)
{
  return forward_signal (user_data, SIGINT);
}

static gboolean
forward_sigterm (gpointer user_data)
{
  return forward_signal (user_data, SIGTERM);
}

static gboolean
forward_sighup (gpointer user_data)
{
  return forward_signal (user_data, SIGHUP);
}

gboolean
dsh_cli_spawn_streaming (const char *const *argv,
                         int *exit_code,
                         int *term_signal,
                         GString *captured_stderr,
                         GError **error)
{
  g_autoptr (GSubprocessLauncher) launcher = NULL;
  g_autoptr (GMainLoop) loop = NULL;
  SpawnState state = { 0 };
  guint signal_sources[3];

  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDIN_INHERIT |
                                        G_SUBPROCESS_FLAGS_STDERR_PIPE);
  state.process = g_subprocess_launcher_spawnv (launcher, argv, error);
  if (state.process == NULL)
    return FALSE;

  loop = g_main_loop_new (NULL, FALSE);
  state.loop = loop;
  state.captured = captured_stderr;
  state.cancellable = g_cancellable_new ();
  state.stderr_stream = g_subprocess_get_stderr_pipe (state.process);

  signal_sources[0] = g_unix_signal_add (SIGINT, forward_sigint, &state);
  signal_sources[1] = g_unix_signal_add (SIGTERM, forward_sigterm, &state);
  signal_sources[2] = g_unix_signal_add (SIGHUP, forward_sighup, &state);

  read_stderr (&state);
  g_subprocess_wait_async (state.process, NULL, process_exited, &state);
  g_main_loop_run (loop);

  for (guint i = 0; i < G_N_ELEMENTS (signal_sources); i++)
    g_source_remove (signal_sources[i]);
  if (state.drain_timeout != 0)
    g_source_remove (state.drain_timeout);

  if (g_subprocess_get_if_signaled (state.process))
    {
      *term_signal = g_subprocess_get_term_sig (state.process);
      *exit_code = 128 + *term_signal;
    }
  else
    {
      *term_signal = 0;
      *exit_code = g_subprocess_get_exit_status (state.process);
    }

  g_object_unref (state.cancellable);
  g_object_unref (state.process);
  return TRUE;
}
