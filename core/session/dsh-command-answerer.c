/* dsh-command-answerer.c — the approver command as an answerer: the request goes to its stdin
 * as JSON, one outcome word comes back on its stdout, and anything else fails closed; and the
 * check that nothing it runs lies where a confined command could rewrite it.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-command-answerer.h"
#include "dsh-command-answerer-private.h"

#include <string.h>

#include "dsh-error.h"
#include "dsh-json-strict-private.h"
#include "dsh-root-grants-private.h"
#include "dsh-roots.h"

/* A "#!" line longer than this names no interpreter we would trust anyway. */
#define SHEBANG_LIMIT 256
/* An outcome word is short; more output than this is not an answer. */
#define ANSWER_LIMIT 256
/* After the approver exits, a straggler still holding its stdout gets this long. */
#define DRAIN_AFTER_EXIT_MS 200

struct _DshCommandAnswerer {
  GObject parent_instance;

  char **argv;
  guint timeout_seconds;
  /* Where it runs: NULL for the caller's directory; "/" once the trust check found that one
   * within a confined command's reach (a program resolving names there, as "python3 -m" does,
   * would otherwise load what a command planted). */
  char *cwd;
};

static void dsh_command_answerer_answerer_init (DshApprovalAnswererInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (DshCommandAnswerer, dsh_command_answerer, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (DSH_TYPE_APPROVAL_ANSWERER,
                                                      dsh_command_answerer_answerer_init))

/**
 * DshCommandAnswerer:
 *
 * An approval answerer that asks a program: the approver command a harness or a person
 * configured. The request goes to its stdin as one JSON document and one outcome word comes back
 * on its stdout; anything else (a spawn failure, a crash, a nonzero exit, a timeout, more or
 * other output) fails the answer, which the approval service turns into `unavailable`.
 *
 * Since: 0.1
 */

/**
 * dsh_command_answerer_timeout_from_env:
 * @out_seconds: (out): how long an approver command may take
 * @error: return location for a #GError
 *
 * Reads `DSH_SANDBOX_APPROVER_TIMEOUT` (whole seconds, 1 to 86400), else the default of 300
 * seconds. A malformed value is an error, not a silent default.
 *
 * Returns: %TRUE with *@out_seconds set
 *
 * Since: 0.1
 */
gboolean
dsh_command_answerer_timeout_from_env (guint *out_seconds, GError **error)
{
  const char *text = g_getenv (DSH_COMMAND_ANSWERER_TIMEOUT_ENV);
  guint64 value = 0;

  if (text == NULL)
    {
      *out_seconds = DSH_COMMAND_ANSWERER_DEFAULT_TIMEOUT;
      return TRUE;
    }
  if (!g_ascii_string_to_unsigned (text, 10, 1, 86400, &value, NULL))
    {
      g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT,
                   "%s must be a whole number of seconds between 1 and 86400 (not \"%s\")",
                   DSH_COMMAND_ANSWERER_TIMEOUT_ENV, text);
      return FALSE;
    }
  *out_seconds = (guint) value;
  return TRUE;
}

/* A path or word from the command line, safe to put in a one-line error message. */
static const char *
printable (const char *text)
{
  return g_utf8_validate (text, -1, NULL) ? text : "(not UTF-8)";
}

/* ---- one run of the approver --------------------------------------------------------------- */

typedef struct {
  GSubprocess *process;
  GInputStream *stdout_stream;
  /* Stops the stdout reads: on a timeout, a cancellation, or a straggler after exit. */
  GCancellable *stop;
  GCancellable *cancellable;
  gulong cancelled_id;
  GSource *timeout_source;
  GSource *drain_source;
  GString *answer;
  char buffer[128];
  gboolean stdout_done;
  gboolean exited;
  gboolean timed_out;
  gboolean too_long;
  guint timeout_seconds;
} ApproverRun;

static void
clear_source (GSource **source)
{
  if (*source != NULL)
    {
      g_source_destroy (*source);
      g_clear_pointer (source, g_source_unref);
    }
}

static void
approver_run_free (gpointer data)
{
  ApproverRun *run = data;

  if (run->cancelled_id != 0)
    g_cancellable_disconnect (run->cancellable, run->cancelled_id);
  g_clear_object (&run->cancellable);
  clear_source (&run->timeout_source);
  clear_source (&run->drain_source);
  g_clear_object (&run->stop);
  g_clear_object (&run->process);
  if (run->answer != NULL)
    g_string_free (run->answer, TRUE);
  g_free (run);
}

static void
finish_run (GTask *task)
{
  ApproverRun *run = g_task_get_task_data (task);
  DshApprovalOutcome outcome;
  g_autofree char *word = NULL;

  if (!run->stdout_done || !run->exited)
    return;
  clear_source (&run->timeout_source);
  clear_source (&run->drain_source);

  if (run->timed_out)
    {
      g_task_return_new_error (task, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_APPROVAL,
                               "the approver did not answer within %u s", run->timeout_seconds);
      return;
    }
  if (g_cancellable_is_cancelled (run->cancellable))
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CANCELLED,
                               "the approval request was withdrawn");
      return;
    }
  if (g_subprocess_get_if_signaled (run->process))
    {
      g_task_return_new_error (task, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_APPROVAL,
                               "the approver was killed by signal %d",
                               g_subprocess_get_term_sig (run->process));
      return;
    }
  if (g_subprocess_get_exit_status (run->process) != 0)
    {
      g_task_return_new_error (task, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_APPROVAL,
                               "the approver exited with status %d",
                               g_subprocess_get_exit_status (run->process));
      return;
    }
  if (run->too_long)
    {
      g_task_return_new_error (task, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_APPROVAL,
                               "the approver wrote more than one outcome word");
      return;
    }

  /* Exactly one word, optionally surrounded by white space (a trailing newline). */
  word = g_strstrip (g_strndup (run->answer->str, run->answer->len));
  if (memchr (run->answer->str, '\0', run->answer->len) != NULL ||
      !dsh_approval_outcome_from_string (word, &outcome, NULL))
    {
      g_task_return_new_error (task, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_APPROVAL,
                               "the approver's answer is not one of allowed-once, rejected, "
                               "cancelled, unavailable");
      return;
    }
  dsh_approval_task_return_outcome (task, outcome);
}

/* Ends the run early: the process is killed and its stdout no longer waited for. */
static void
stop_run (ApproverRun *run)
{
  if (!run->exited)
    {
      dsh_approver_stop_descendants (run->process);
      g_subprocess_force_exit (run->process);
    }
  g_cancellable_cancel (run->stop);
}

static void read_more (GTask *task);

static void
on_read (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  ApproverRun *run = g_task_get_task_data (task);
  gssize n = g_input_stream_read_finish (G_INPUT_STREAM (source), result, NULL);

  if (n <= 0)
    {
      run->stdout_done = TRUE;
      finish_run (task);
      return;
    }
  if (run->answer->len + (gsize) n > ANSWER_LIMIT)
    {
      /* Keep draining so the approver is not blocked on a full pipe; the answer is void. */
      run->too_long = TRUE;
    }
  else
    g_string_append_len (run->answer, run->buffer, n);
  read_more (task);
}

static void
read_more (GTask *task)
{
  ApproverRun *run = g_task_get_task_data (task);

  g_input_stream_read_async (run->stdout_stream, run->buffer, sizeof (run->buffer),
                             G_PRIORITY_DEFAULT, run->stop, on_read, g_object_ref (task));
}

static gboolean
on_drain_timeout (gpointer user_data)
{
  ApproverRun *run = g_task_get_task_data (G_TASK (user_data));

  g_clear_pointer (&run->drain_source, g_source_unref);
  g_cancellable_cancel (run->stop);
  return G_SOURCE_REMOVE;
}

static void
on_exited (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  ApproverRun *run = g_task_get_task_data (task);

  g_subprocess_wait_finish (G_SUBPROCESS (source), result, NULL);
  run->exited = TRUE;
  if (!run->stdout_done && run->drain_source == NULL)
    {
      run->drain_source = g_timeout_source_new (DRAIN_AFTER_EXIT_MS);
      g_source_set_callback (run->drain_source, on_drain_timeout, task, NULL);
      g_source_attach (run->drain_source, g_task_get_context (task));
    }
  finish_run (task);
}

static gboolean
on_timeout (gpointer user_data)
{
  ApproverRun *run = g_task_get_task_data (G_TASK (user_data));

  g_clear_pointer (&run->timeout_source, g_source_unref);
  run->timed_out = TRUE;
  stop_run (run);
  return G_SOURCE_REMOVE;
}

static void
on_cancelled (GCancellable *cancellable, gpointer user_data)
{
  ApproverRun *run = user_data;

  /* The question is gone (decided, or withdrawn by the caller): stop asking. Safe from any
   * thread: every call stop_run makes is. */
  stop_run (run);
}

/* The request as the approver reads it: one JSON document and a newline. */
static char *
request_text (DshApprovalRequest *request)
{
  g_autoptr (JsonNode) node = dsh_approval_request_to_json (request);
  g_autofree char *json = dsh_json_strict_to_string (node, FALSE);

  return g_strconcat (json, "\n", NULL);
}

static void
command_answerer_answer_async (DshApprovalAnswerer *answerer,
                               DshApprovalRequest *request,
                               GCancellable *cancellable,
                               GAsyncReadyCallback callback,
                               gpointer user_data)
{
  DshCommandAnswerer *self = DSH_COMMAND_ANSWERER (answerer);
  g_autoptr (GTask) task = g_task_new (self, NULL, callback, user_data);
  g_autoptr (GSubprocessLauncher) launcher = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *text = request_text (request);
  ApproverRun *run;

  /* Cancellation is handled here (kill the approver, then finish), not by GTask. */
  g_task_set_check_cancellable (task, FALSE);

  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE);
  if (self->cwd != NULL)
    g_subprocess_launcher_set_cwd (launcher, self->cwd);
  if (!dsh_approver_stdin_prepare (launcher, text, &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  run = g_new0 (ApproverRun, 1);
  run->answer = g_string_new (NULL);
  run->stop = g_cancellable_new ();
  run->timeout_seconds = self->timeout_seconds;
  run->cancellable = cancellable != NULL ? g_object_ref (cancellable) : g_cancellable_new ();
  g_task_set_task_data (task, run, approver_run_free);

  run->process = g_subprocess_launcher_spawnv (launcher, (const char *const *) self->argv,
                                               &error);
  if (run->process == NULL)
    {
      g_prefix_error (&error, "cannot run the approver: ");
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  run->stdout_stream = g_subprocess_get_stdout_pipe (run->process);
  dsh_approver_stdin_deliver (run->process, text);

  run->timeout_source = g_timeout_source_new_seconds (self->timeout_seconds);
  g_source_set_callback (run->timeout_source, on_timeout, task, NULL);
  g_source_attach (run->timeout_source, g_task_get_context (task));

  read_more (task);
  g_subprocess_wait_async (run->process, NULL, on_exited, g_object_ref (task));
  /* Connected last: if already cancelled this kills the process right away, and the reads
   * and the wait above still finish the task. */
  run->cancelled_id = g_cancellable_connect (run->cancellable, G_CALLBACK (on_cancelled), run,
                                             NULL);
}

static void
dsh_command_answerer_answerer_init (DshApprovalAnswererInterface *iface)
{
  iface->answer_async = command_answerer_answer_async;
}

static void
dsh_command_answerer_finalize (GObject *object)
{
  DshCommandAnswerer *self = DSH_COMMAND_ANSWERER (object);

  g_strfreev (self->argv);
  g_free (self->cwd);
  G_OBJECT_CLASS (dsh_command_answerer_parent_class)->finalize (object);
}

static void
dsh_command_answerer_class_init (DshCommandAnswererClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = dsh_command_answerer_finalize;
}

static void
dsh_command_answerer_init (DshCommandAnswerer *self)
{
}

/**
 * dsh_command_answerer_new:
 * @command_line: the approver command, split like a shell would (g_shell_parse_argv()), but no
 *   shell runs
 * @timeout_seconds: how long it may take before its answer is `unavailable`; 0: the default
 * @error: return location for a #GError
 *
 * Returns: (transfer full) (nullable): a new answerer, or %NULL when @command_line does not
 *   parse
 *
 * Since: 0.1
 */
DshCommandAnswerer *
dsh_command_answerer_new (const char *command_line, guint timeout_seconds, GError **error)
{
  g_autoptr (DshCommandAnswerer) self = NULL;
  g_auto (GStrv) argv = NULL;
  g_autoptr (GError) local_error = NULL;

  if (command_line == NULL || !g_utf8_validate (command_line, -1, NULL) ||
      !g_shell_parse_argv (command_line, NULL, &argv, &local_error))
    {
      g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT,
                   "cannot parse the --approver command: %s",
                   local_error != NULL ? local_error->message : "not valid UTF-8");
      return NULL;
    }

  self = g_object_new (DSH_TYPE_COMMAND_ANSWERER, NULL);
  self->argv = g_steal_pointer (&argv);
  self->timeout_seconds = timeout_seconds > 0 ? timeout_seconds : DSH_COMMAND_ANSWERER_DEFAULT_TIMEOUT;
  return g_steal_pointer (&self);
}

/* ---- where the approver comes from --------------------------------------------------------- */

static gboolean
check_out_of_reach (const char *what, const char *path, const DshSandboxPolicy *policy,
                    GError **error)
{
  g_autofree char *root = dsh_writable_root_on_way (
    path, policy->workspace_root, (const char *const *) policy->extra_writable_roots);
  g_autofree char *granted = NULL;

  if (root != NULL)
    {
      g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_APPROVAL,
                   "the approver %s %s lies where confined commands may write (%s): a command "
                   "could rewrite it to approve its own escalation; keep the approver and what "
                   "it runs outside the workspace, /tmp and the temp directory",
                   what, printable (path), printable (root));
      return FALSE;
    }
  /* Nor where another call's commands could write: a directory some call granted. */
  if (!dsh_root_grants_find_granted_above (path, &granted, error))
    return FALSE;
  if (granted == NULL)
    return TRUE;
  g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_APPROVAL,
               "the approver %s %s lies inside %s, which was granted to confined commands as a "
               "writable root before: one of them could have rewritten it to approve its own "
               "escalation; keep the approver and what it runs outside every directory ever "
               "granted",
               what, printable (path), printable (granted));
  return FALSE;
}

/* The "#!" line of the file at path as the kernel reads it: the interpreter and its one
 * optional argument (the rest of the line), or NULL when the file has none. */
static GStrv
shebang_of (const char *path)
{
  char line[SHEBANG_LIMIT + 1];
  g_autoptr (GStrvBuilder) builder = NULL;
  const char *start;
  gsize length;
  gssize n = dsh_approver_read_head (path, line, SHEBANG_LIMIT);

  if (n < 3 || line[0] != '#' || line[1] != '!')
    return NULL;
  line[n] = '\0';
  line[strcspn (line, "\r\n")] = '\0';

  start = line + 2 + strspn (line + 2, " \t");
  length = strcspn (start, " \t");
  if (length == 0)
    return NULL;
  builder = g_strv_builder_new ();
  {
    g_autofree char *interpreter = g_strndup (start, length);

    g_strv_builder_add (builder, interpreter);
  }
  start += length + strspn (start + length, " \t");
  if (*start != '\0')
    {
      g_autofree char *argument = g_strstrip (g_strdup (start));

      g_strv_builder_add (builder, argument);
    }
  return g_strv_builder_end (builder);
}

static gboolean
is_env (const char *program)
{
  g_autofree char *name = g_path_get_basename (program);

  return g_str_equal (name, "env");
}

/* env's arguments (args) as env reads them, for the check: "-S STRING" (--split-string) split
 * into the words env makes of it, which are read again (a split string holds env options of
 * its own, -C among them); *out_split says whether any was. NULL with error for what the check
 * cannot follow: an option it does not know (it could change what runs, or where: -C), or a
 * STRING with quoting, escapes or variables, which env -S would read its own way. */
static GStrv
env_arguments (char **args, gboolean *out_split, GError **error)
{
  static const char *const plain[] = { "-", "-i", "--ignore-environment", "-0", "--null", "-v",
                                       "--debug", NULL };
  g_autoptr (GStrvBuilder) builder = g_strv_builder_new ();
  gsize i;

  *out_split = FALSE;
  for (i = 0; args[i] != NULL && (args[i][0] == '-' || strchr (args[i], '=') != NULL); i++)
    {
      const char *split = NULL;

      if (g_str_equal (args[i], "--"))
        {
          i++;
          break;
        }
      if (args[i][0] != '-' || g_strv_contains (plain, args[i]) ||
          g_str_has_prefix (args[i], "--unset="))
        g_strv_builder_add (builder, args[i]);
      else if ((g_str_equal (args[i], "-u") || g_str_equal (args[i], "--unset")) &&
               args[i + 1] != NULL)
        {
          g_strv_builder_add (builder, args[i]);
          g_strv_builder_add (builder, args[++i]);
        }
      else if ((g_str_equal (args[i], "-S") || g_str_equal (args[i], "--split-string")) &&
               args[i + 1] != NULL)
        split = args[++i];
      else if (g_str_has_prefix (args[i], "--split-string="))
        split = args[i] + strlen ("--split-string=");
      else if (g_str_has_prefix (args[i], "-S"))
        split = args[i] + 2;
      else
        {
          g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_APPROVAL,
                       "the approver's env option \"%s\" is not one whose effect on what runs "
                       "can be checked; name the approver program itself",
                       printable (args[i]));
          return NULL;
        }
      if (split != NULL)
        {
          g_auto (GStrv) words = NULL;

          *out_split = TRUE;
          if (strpbrk (split, "'\"\\$#") != NULL)
            {
              g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_APPROVAL,
                           "the approver's env -S string \"%s\" has quoting, escapes or "
                           "variables, whose effect on what runs cannot be checked; name the "
                           "approver program itself",
                           printable (split));
              return NULL;
            }
          words = g_strsplit_set (split, " \t\n", -1);
          for (gsize w = 0; words[w] != NULL; w++)
            {
              if (words[w][0] != '\0')
                g_strv_builder_add (builder, words[w]);
            }
        }
    }
  for (; args[i] != NULL; i++)
    g_strv_builder_add (builder, args[i]);
  if (*out_split)
    {
      g_auto (GStrv) words = g_strv_builder_end (builder);
      gboolean again;

      return env_arguments (words, &again, error);
    }
  return g_strv_builder_end (builder);
}

/* The index of the program env runs among args (env's own arguments), or -1. */
static gint
env_operand (char **args)
{
  static const char *const with_value[] = { "-u", "--unset", "-C", "--chdir", NULL };

  for (gint i = 0; args[i] != NULL; i++)
    {
      if (g_strv_contains (with_value, args[i]))
        {
          if (args[i + 1] == NULL)
            return -1;
          i++;
          continue;
        }
      if (args[i][0] == '\0' || args[i][0] == '-' || strchr (args[i], '=') != NULL)
        continue;
      return i;
    }
  return -1;
}

/* Does name say where the file is, rather than leave it to a PATH lookup? On Windows either
 * slash does, and so does a drive ("C:name" is relative to that drive's current directory). */
static gboolean
names_location (const char *name)
{
#ifdef G_OS_WIN32
  return strpbrk (name, "/\\:") != NULL;
#else
  return strchr (name, '/') != NULL;
#endif
}

/* A bare name run later through a PATH lookup we cannot do for it (env in a "#!" line): every
 * place that lookup could find it, up to the one where it is now, must be out of reach. */
static gboolean
check_path_lookup (const char *what, const char *name, const DshSandboxPolicy *policy,
                   GError **error)
{
  const char *path = g_getenv ("PATH");
  const char *fallback = "/usr/bin" G_SEARCHPATH_SEPARATOR_S "/bin";
  g_auto (GStrv) dirs = g_strsplit (path != NULL ? path : fallback, G_SEARCHPATH_SEPARATOR_S, -1);

  for (gsize i = 0; dirs[i] != NULL; i++)
    {
      g_autofree char *candidate = g_build_filename (dirs[i][0] != '\0' ? dirs[i] : ".", name,
                                                     NULL);

      if (!check_out_of_reach (what, candidate, policy, error))
        return FALSE;
      if (g_file_test (candidate, G_FILE_TEST_IS_EXECUTABLE) &&
          !g_file_test (candidate, G_FILE_TEST_IS_DIR))
        return TRUE;
    }
  return TRUE;
}

/* Resolves a bare program name on PATH once, here, replacing it with the path found, so the
 * path checked is the path run: a second lookup at spawn time could find one planted since. */
static gboolean
resolve_program (char **program, GError **error)
{
  char *found;

  if (names_location (*program))
    return TRUE;
  found = g_find_program_in_path (*program);
  if (found == NULL)
    {
      g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_APPROVAL,
                   "the approver program \"%s\" is not found on PATH",
                   printable (*program));
      return FALSE;
    }
  g_free (*program);
  *program = found;
  return TRUE;
}

/* Could the program read or run this argument as a file: an absolute path, a relative one with
 * a slash, or the name of something in the current directory? */
static gboolean
names_a_path (const char *arg)
{
  return arg[0] != '\0' &&
         (names_location (arg) || g_file_test (arg, G_FILE_TEST_EXISTS));
}

/* A bare name a program could look up on PATH when it runs (a wrapper such as nice or timeout,
 * "bash NAME"): when PATH finds it now, every place the lookup could find it up to that one
 * must be out of reach. */
static gboolean
check_bare_name (const char *name, const DshSandboxPolicy *policy, GError **error)
{
  g_autofree char *found = NULL;

  if (name[0] == '\0' || name[0] == '-' || strchr (name, '=') != NULL || names_location (name))
    return TRUE;
  found = g_find_program_in_path (name);
  return found == NULL || check_path_lookup ("program", name, policy, error);
}

/* Every file one argument could name: itself, an option's or an assignment's value after '=',
 * a path joined to a short option ("-I/dir"), each element of a ':' list (PERL5LIB=, -cp), and
 * a bare name some wrapper could look up on PATH. Inline code is the program's own business. */
static gboolean
check_argument (const char *arg, const DshSandboxPolicy *policy, GError **error)
{
  const char *candidates[3] = { arg, NULL, NULL };

  if (strchr (arg, '=') != NULL)
    candidates[1] = strchr (arg, '=') + 1;
  else if (arg[0] == '-' && arg[1] != '-' && arg[1] != '\0' && arg[2] != '\0')
    candidates[1] = arg + 2;
  if (!check_bare_name (arg, policy, error))
    return FALSE;
  for (gsize c = 0; c < G_N_ELEMENTS (candidates) && candidates[c] != NULL; c++)
    {
      g_auto (GStrv) elements = g_strsplit (candidates[c], G_SEARCHPATH_SEPARATOR_S, -1);

      for (gsize e = 0; elements[e] != NULL; e++)
        {
          if (names_a_path (elements[e]) &&
              !check_out_of_reach ("script", elements[e], policy, error))
            return FALSE;
        }
    }
  return TRUE;
}

/* A program that env runs, found when it runs: where it is named, or, bare, every place PATH
 * could find it. */
static gboolean
check_env_program (const char *what, const char *name, const DshSandboxPolicy *policy,
                   GError **error)
{
  return names_location (name) ? check_out_of_reach (what, name, policy, error)
                               : check_path_lookup (what, name, policy, error);
}

/* A script's interpreter runs it, and the interpreter may be a script itself (the kernel
 * follows a few levels); "#!/usr/bin/env NAME" looks NAME up when it runs. */
static gboolean
check_interpreters (const char *program, const DshSandboxPolicy *policy, GError **error)
{
  g_autofree char *current = g_strdup (program);

  for (guint depth = 0; depth < 5; depth++)
    {
      g_auto (GStrv) shebang = shebang_of (current);

      if (shebang == NULL)
        return TRUE;
      if (!check_out_of_reach ("interpreter", shebang[0], policy, error))
        return FALSE;
      if (shebang[1] != NULL)
        {
          /* Split as "env -S" would: the first operand is what env runs. */
          g_auto (GStrv) words = g_strsplit_set (shebang[1], " \t", -1);
          gint run = is_env (shebang[0]) ? env_operand (words) : -1;

          for (gsize w = 0; words[w] != NULL; w++)
            {
              if ((gint) w == run ? !check_env_program ("interpreter", words[w], policy, error)
                                  : !check_argument (words[w], policy, error))
                return FALSE;
            }
        }
      g_free (current);
      current = g_strdup (shebang[0]);
    }
  return TRUE;
}

/* "env -S ...": args as env_arguments() made them. */
static gboolean
check_split_env (char **args, const DshSandboxPolicy *policy, GError **error)
{
  gint operand = env_operand (args);

  if (operand < 0)
    return TRUE;
  if (!check_env_program ("program", args[operand], policy, error) ||
      (names_location (args[operand]) && !check_interpreters (args[operand], policy, error)))
    return FALSE;
  for (gint i = 0; args[i] != NULL; i++)
    {
      if (i != operand && !check_argument (args[i], policy, error))
        return FALSE;
    }
  return TRUE;
}

/* The approver runs from / when the caller's directory is one a confined command could write:
 * what the program finds there by itself, unnamed, was never checked. */
static void
run_from_root_if_in_reach (DshCommandAnswerer *self, const DshSandboxPolicy *policy)
{
  g_autofree char *here = g_get_current_dir ();
  g_autoptr (GError) in_reach = NULL;

  if (!check_out_of_reach ("directory", here, policy, &in_reach))
    {
      g_free (self->cwd);
      self->cwd = g_strdup ("/");
    }
}

/**
 * dsh_command_answerer_check_trusted:
 * @self: an answerer
 * @policy: the policy of the call it would answer for
 * @error: return location for a #GError
 *
 * An approver that a confined command of @policy's workspace could rewrite would answer for it:
 * its program (found on `PATH` now, once, when named bare; through `env NAME` too), the
 * interpreter of its `#!` line (for `#!/usr/bin/env NAME`, every place `PATH` could find
 * `NAME`), and every file its arguments name must lie out of reach of every root of
 * dsh_writable_roots_widest(), the walk to each included.
 *
 * Returns: %TRUE when it is out of reach, else %FALSE with %DSH_SANDBOX_ERROR_APPROVAL naming
 *   the path
 *
 * Since: 0.1
 */
gboolean
dsh_command_answerer_check_trusted (DshCommandAnswerer *self,
                                    const DshSandboxPolicy *policy,
                                    GError **error)
{
  gint operand = -1;

  g_return_val_if_fail (DSH_IS_COMMAND_ANSWERER (self), FALSE);
  g_return_val_if_fail (policy != NULL && policy->workspace_root != NULL, FALSE);

  if (!resolve_program (&self->argv[0], error) ||
      !check_out_of_reach ("program", self->argv[0], policy, error))
    return FALSE;
  /* "env NAME ...": NAME is the approver as much as env is. As env reads its arguments: a
   * split string's words are checked like any others, its program by every place PATH could
   * find it (it cannot be resolved here once for the run). */
  if (is_env (self->argv[0]))
    {
      gboolean split;
      g_auto (GStrv) args = env_arguments (self->argv + 1, &split, error);

      if (args == NULL)
        return FALSE;
      if (split)
        {
          if (!check_split_env (args, policy, error))
            return FALSE;
          run_from_root_if_in_reach (self, policy);
          return TRUE;
        }
      operand = env_operand (self->argv + 1);
      if (operand >= 0 &&
          (!resolve_program (&self->argv[1 + operand], error) ||
           !check_out_of_reach ("program", self->argv[1 + operand], policy, error) ||
           !check_interpreters (self->argv[1 + operand], policy, error)))
        return FALSE;
    }
  if (!check_interpreters (self->argv[0], policy, error))
    return FALSE;

  /* An interpreter's script, a module, a configuration file, an assignment's value: whatever
   * the command line names. */
  for (gsize i = 1; self->argv[i] != NULL; i++)
    {
      if ((gint) i != 1 + operand && !check_argument (self->argv[i], policy, error))
        return FALSE;
    }
  run_from_root_if_in_reach (self, policy);
  return TRUE;
}
