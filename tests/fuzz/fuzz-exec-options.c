/* fuzz-exec-options.c — libFuzzer target for exec's option grammar: the front's choice of the
 * plain exec (with exec's one option table, cli/dsh-exec-options.c) and the full exec's parse,
 * run as they are up to the run step, which only records what it was handed
 * (fuzz-exec-stubs.c: nothing is ever spawned, no report file is opened). Properties:
 *   - a refusal never runs anything, and a run always has a command and a canonical root;
 *   - the front's own reading of the plain options takes exactly what GOption's reading of
 *     exec's table takes, with the same values;
 *   - whatever the front hands to the plain exec, the full exec reads the same way: both run, or
 *     both refuse; running, the same mode, workspace root, command and report path.
 *
 * Layout: exec's arguments, NUL-separated ("--mode\0read-only\0--\0ls").
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <string.h>
#include <glib/gstdio.h>
#include <unistd.h>

#include "fuzz-exec-stubs.h"
#include "fuzz-target.h"
#include "fuzz-util.h"

/* The front, for its is_plain_exec(); its main() is never called. */
#define main dsh_sandbox_front_main
int dsh_sandbox_front_main (int argc, char **argv);
#ifdef __clang__
/* Its prefix arithmetic on string constants is deliberate. */
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wstring-plus-int"
#endif
#include "../../cli/dsh-sandbox-front.c"
#ifdef __clang__
#pragma clang diagnostic pop
#endif
#undef main

#define MAX_ARGS 24

static char *session_path;
static char *session_template;
static gsize session_template_length;

static void
setup (void)
{
  const char *scratch = fuzz_scratch_dir ();
  g_autofree char *ws = g_build_filename (scratch, "ws", NULL);
  g_autoptr (DshPermissionPresets) presets = dsh_permission_presets_new ();
  g_autoptr (DshSessionLog) session = NULL;
  g_autoptr (GError) error = NULL;

  g_unsetenv ("DSH_SANDBOX_CONFIG");
  g_unsetenv ("DSH_SANDBOX_APPROVER_TIMEOUT");
  g_assert_cmpint (g_mkdir (ws, 0700), ==, 0);
  /* Relative spellings ("ws", "session.jsonl") name the private tree (run_exec enters it). */
  g_setenv ("PWD", scratch, TRUE);

  session_path = g_build_filename (scratch, "session.jsonl", NULL);
  session = dsh_permission_presets_create_session (presets, session_path, ws, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (session_path, &session_template, &session_template_length,
                                      NULL));
}

/* GOption answers --help by printing and exiting, which would end the fuzzer. */
static gboolean
asks_for_help (char **args, guint n)
{
  for (guint i = 0; i < n && strcmp (args[i], "--") != 0; i++)
    {
      if (g_str_has_prefix (args[i], "--help"))
        return TRUE;
      if (args[i][0] == '-' && args[i][1] != '-' && strpbrk (args[i], "h?") != NULL)
        return TRUE;
    }
  return FALSE;
}

/* What the front decided before it read the options itself: GOption with exec's table, then
 * only plain options given; their values must be the front's. */
static gboolean
goption_takes_as_plain (int argc, char **argv, const DshExecOptions *front)
{
  for (int i = 2; i < argc; i++)
    {
      if (strcmp (argv[i], "--") == 0)
        {
          DshExecOptions options = { 0 };
          gboolean plain = i + 1 < argc &&
                           dsh_exec_options_parse (&options, i - 1, argv + 1, FALSE, NULL,
                                                   NULL) &&
                           dsh_exec_options_is_plain (&options);

          if (plain)
            {
              g_assert_cmpstr (options.mode, ==, front->mode);
              g_assert_cmpstr (options.workspace, ==, front->workspace);
              g_assert_cmpstr (options.report_path, ==, front->report_path);
            }
          dsh_exec_options_clear (&options);
          return plain;
        }
    }
  return FALSE;
}

typedef int (*ExecFunc) (int argc, char **argv);

/* What the front parsed for the plain exec, which runs with it as the front would. */
static DshExecOptions plain_options;
static char **plain_command;

static int
run_plain (G_GNUC_UNUSED int argc, G_GNUC_UNUSED char **argv)
{
  return dsh_cmd_exec_plain (&plain_options, plain_command);
}

/* Runs exec with its own copy of the argument pointers (it cuts argv at "--"). */
static int
run_exec (ExecFunc func, GPtrArray *args, FuzzExecRecord *out)
{
  g_autofree char **argv = g_new0 (char *, args->len + 2);
  int saved_dir;
  int status;

  argv[0] = (char *) "exec";
  for (guint i = 0; i < args->len; i++)
    argv[i + 1] = g_ptr_array_index (args, i);
  /* Each run starts from the same session log: a turn is appended on every run. */
  fuzz_write_file (session_path, session_template, (gssize) session_template_length);

  saved_dir = fuzz_enter_dir (fuzz_scratch_dir ());
  fuzz_silence_stderr ();
  status = func ((int) args->len + 1, argv);
  fuzz_restore_stderr ();
  fuzz_leave_dir (saved_dir);

  g_assert_true (!fuzz_exec_record.ran || !fuzz_exec_record.refused);
  g_assert_cmpint (status, ==, fuzz_exec_record.ran ? 0 : DSH_EXIT_NOT_RUN);
  *out = fuzz_exec_record;
  memset (&fuzz_exec_record, 0, sizeof (fuzz_exec_record));
  return status;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autoptr (GPtrArray) args = fuzz_split_fields (data, size, MAX_ARGS);
  g_autofree char **front_argv = g_new0 (char *, args->len + 3);
  FuzzExecRecord full = { 0 };
  FuzzExecRecord plain = { 0 };
  gboolean is_plain;

  if (session_path == NULL)
    setup ();
  if (asks_for_help ((char **) args->pdata, args->len))
    return 0;

  front_argv[0] = (char *) "dsh-sandbox";
  front_argv[1] = (char *) "exec";
  for (guint i = 0; i < args->len; i++)
    front_argv[i + 2] = g_ptr_array_index (args, i);
  is_plain = is_plain_exec ((int) args->len + 2, front_argv, &plain_options, &plain_command);
  g_assert_cmpint (is_plain, ==,
                   goption_takes_as_plain ((int) args->len + 2, front_argv, &plain_options));

  run_exec (dsh_cmd_exec, args, &full);
  if (is_plain)
    {
      run_exec (run_plain, args, &plain);
      g_assert_cmpint (plain.ran, ==, full.ran);
      if (plain.ran)
        {
          g_assert_cmpint (plain.mode, ==, full.mode);
          g_assert_cmpstr (plain.workspace_root, ==, full.workspace_root);
          g_assert_true (g_strv_equal ((const char *const *) plain.command,
                                       (const char *const *) full.command));
          g_assert_cmpstr (plain.report_path, ==, full.report_path);
        }
    }
  dsh_exec_options_clear (&plain_options);
  plain_command = NULL;
  fuzz_exec_record_clear (&full);
  fuzz_exec_record_clear (&plain);
  return 0;
}
