/* dsh-approver-tty.c — the interactive answerer: shows the command, the requested mode and
 * the justification on the controlling terminal and reads y/n from it.
 *
 * The prompt goes to /dev/tty, never to stdout or stderr, so the command's streams and the
 * one "dsh-sandbox:" line stay exactly what other programs parse.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-approver.h"
#include "dsh-approver-tty-text.h"

#include <errno.h>
#include <fcntl.h>
#include <glib-unix.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

struct _DshTtyApprover {
  GObject parent_instance;

  int fd;
};

static void dsh_tty_approver_answerer_init (DshApprovalAnswererInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (DshTtyApprover, dsh_tty_approver, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (DSH_TYPE_APPROVAL_ANSWERER,
                                                      dsh_tty_approver_answerer_init))

static int
open_tty (GError **error)
{
  int fd = open ("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);

  if (fd < 0)
    {
      int saved = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   "no controlling terminal to ask: %s", g_strerror (saved));
    }
  return fd;
}

gboolean
dsh_tty_approver_available (void)
{
  int fd = open_tty (NULL);

  if (fd < 0)
    return FALSE;
  close (fd);
  return TRUE;
}

/* ---- one question -------------------------------------------------------------------------- */

typedef struct {
  int fd;
  GSource *source;
  GCancellable *cancellable;
  gulong cancelled_id;
  GString *line;
  gboolean overlong;
} PromptRun;

static void
prompt_run_free (gpointer data)
{
  PromptRun *run = data;

  if (run->cancelled_id != 0)
    g_cancellable_disconnect (run->cancellable, run->cancelled_id);
  g_clear_object (&run->cancellable);
  if (run->source != NULL)
    {
      g_source_destroy (run->source);
      g_source_unref (run->source);
    }
  g_string_free (run->line, TRUE);
  g_free (run);
}

static void
write_tty (int fd, const char *text)
{
  gsize length = strlen (text);

  for (gsize done = 0; done < length;)
    {
      gssize n = write (fd, text + done, length - done);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return;
      done += (gsize) n;
    }
}

/* Stops listening and finishes the task once. */
static void
finish_prompt (GTask *task, gboolean answered, DshApprovalOutcome outcome, GError *error)
{
  PromptRun *run = g_task_get_task_data (task);

  if (run->source == NULL)
    {
      g_clear_error (&error);
      return;
    }
  g_source_destroy (run->source);
  g_clear_pointer (&run->source, g_source_unref);

  if (answered)
    dsh_approval_task_return_outcome (task, outcome);
  else
    g_task_return_error (task, error);
}

/* TRUE when the line settled the question. */
static gboolean
take_line (GTask *task)
{
  PromptRun *run = g_task_get_task_data (task);
  DshApprovalOutcome outcome;
  gboolean settled = dsh_tty_answer_from_line (run->line->str, run->line->len, run->overlong,
                                               &outcome);

  g_string_truncate (run->line, 0);
  if (settled)
    {
      finish_prompt (task, TRUE, outcome, NULL);
      return TRUE;
    }
  /* Anything else is neither consent nor refusal: ask again. */
  write_tty (run->fd, "Please answer y or n: ");
  return FALSE;
}

static gboolean
on_tty_readable (int fd, GIOCondition condition, gpointer user_data)
{
  GTask *task = G_TASK (user_data);
  PromptRun *run = g_task_get_task_data (task);
  char buffer[256];
  gssize n;

  n = read (fd, buffer, sizeof (buffer));
  if (n < 0 && (errno == EINTR || errno == EAGAIN))
    return G_SOURCE_CONTINUE;
  if (n <= 0)
    {
      /* End of input (^D) or a hung-up terminal: the person walked away. */
      write_tty (run->fd, "\n");
      finish_prompt (task, TRUE, DSH_APPROVAL_OUTCOME_CANCELLED, NULL);
      return G_SOURCE_REMOVE;
    }

  for (gssize i = 0; i < n; i++)
    {
      char c = buffer[i];

      /* ^C or ^D arriving as bytes (a terminal not in canonical mode) mean the same. */
      if (c == '\003' || c == '\004')
        {
          write_tty (run->fd, "\n");
          finish_prompt (task, TRUE, DSH_APPROVAL_OUTCOME_CANCELLED, NULL);
          return G_SOURCE_REMOVE;
        }
      if (c == '\n' || c == '\r')
        {
          if (take_line (task))
            return G_SOURCE_REMOVE;
          run->overlong = FALSE;
          continue;
        }
      if (run->line->len < DSH_TTY_LINE_LIMIT)
        g_string_append_c (run->line, c);
      else
        run->overlong = TRUE;
    }
  return G_SOURCE_CONTINUE;
}

static gboolean
on_withdrawn (gpointer user_data)
{
  GTask *task = G_TASK (user_data);
  PromptRun *run = g_task_get_task_data (task);

  if (run->source != NULL)
    write_tty (run->fd, "\n");
  finish_prompt (task, FALSE, DSH_APPROVAL_OUTCOME_CANCELLED,
                 g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED,
                                      "the approval request was withdrawn"));
  return G_SOURCE_REMOVE;
}

static void
on_cancelled (GCancellable *cancellable, gpointer user_data)
{
  GTask *task = G_TASK (user_data);
  g_autoptr (GSource) idle = g_idle_source_new ();

  /* cancel() may come from any thread: finish in the task's own context. */
  g_source_set_callback (idle, on_withdrawn, g_object_ref (task), g_object_unref);
  g_source_attach (idle, g_task_get_context (task));
}

static void
tty_approver_answer_async (DshApprovalAnswerer *answerer,
                           DshApprovalRequest *request,
                           GCancellable *cancellable,
                           GAsyncReadyCallback callback,
                           gpointer user_data)
{
  DshTtyApprover *self = DSH_TTY_APPROVER (answerer);
  g_autoptr (GTask) task = g_task_new (self, NULL, callback, user_data);
  g_autofree char *prompt = dsh_tty_format_prompt (request);
  PromptRun *run;

  g_task_set_check_cancellable (task, FALSE);

  run = g_new0 (PromptRun, 1);
  run->fd = self->fd;
  run->line = g_string_new (NULL);
  run->cancellable = cancellable != NULL ? g_object_ref (cancellable) : g_cancellable_new ();
  g_task_set_task_data (task, run, prompt_run_free);

  /* Whatever was typed ahead was typed before the question existed: it is not an answer. */
  tcflush (self->fd, TCIFLUSH);
  /* Before any question, since commands write to this terminal too: with autowrap turned
   * off, say, the end of a long command line would not be shown at all. */
  write_tty (self->fd, DSH_TTY_PROMPT_RESET);
  write_tty (self->fd, prompt);

  run->source = g_unix_fd_source_new (self->fd, G_IO_IN | G_IO_HUP | G_IO_ERR);
  g_source_set_callback (run->source, G_SOURCE_FUNC (on_tty_readable), g_object_ref (task),
                         g_object_unref);
  g_source_attach (run->source, g_task_get_context (task));

  run->cancelled_id = g_cancellable_connect (run->cancellable, G_CALLBACK (on_cancelled), task,
                                             NULL);
}

static void
dsh_tty_approver_answerer_init (DshApprovalAnswererInterface *iface)
{
  iface->answer_async = tty_approver_answer_async;
}

static void
dsh_tty_approver_finalize (GObject *object)
{
  DshTtyApprover *self = DSH_TTY_APPROVER (object);

  if (self->fd >= 0)
    close (self->fd);
  G_OBJECT_CLASS (dsh_tty_approver_parent_class)->finalize (object);
}

static void
dsh_tty_approver_class_init (DshTtyApproverClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = dsh_tty_approver_finalize;
}

static void
dsh_tty_approver_init (DshTtyApprover *self)
{
  self->fd = -1;
}

DshTtyApprover *
dsh_tty_approver_new (GError **error)
{
  g_autoptr (DshTtyApprover) self = g_object_new (DSH_TYPE_TTY_APPROVER, NULL);

  self->fd = open_tty (error);
  if (self->fd < 0)
    return NULL;
  return g_steal_pointer (&self);
}
