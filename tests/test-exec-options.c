/* test-exec-options.c — the front's own reading of a plain exec's options gives exactly what
 * GOption's reading of exec's table gives, and declines everything else, so that the full
 * command answers it.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-exec-options.h"

/* Option vectors as the front hands them over: "exec", then what precedes "--". */
static const char *const vectors[][8] = {
  { "exec", NULL },
  { "exec", "--mode", "workspace-write", NULL },
  { "exec", "--mode=workspace-write", NULL },
  { "exec", "--mode=", NULL },
  { "exec", "--mode", "", NULL },
  { "exec", "--mode=a=b", NULL },
  { "exec", "--mode", "-x", NULL },
  { "exec", "--mode", "--workspace", NULL },
  { "exec", "--mode", "read-only", "--mode", "workspace-write", NULL },
  { "exec", "--workspace", "/w", "--report", "-", "--mode", "read-only", NULL },
  { "exec", "--report=/dev/fd/3", "--workspace=", NULL },
  { "exec", "--workspace", "\xff\xfe not UTF-8", NULL },
  { "exec", "--mode", NULL },
  { "exec", "--report", "r", "--workspace", NULL },
  { "exec", "--mod", "a", NULL },
  { "exec", "--modes", "a", NULL },
  { "exec", "--Mode", "a", NULL },
  { "exec", "-mode", "a", NULL },
  { "exec", "-m", "a", NULL },
  { "exec", "-", NULL },
  { "exec", "operand", NULL },
  { "exec", "--mode", "a", "operand", NULL },
  { "exec", "--help", NULL },
  { "exec", "-h", NULL },
  { "exec", "--session", "s", NULL },
  { "exec", "--session=s", "--mode", "a", NULL },
  { "exec", "--mode", "a", "--writable-root", "/x", NULL },
  { "exec", "--approval-policy=never", NULL },
  { "exec", "--justification", "", NULL },
  { "exec", "--sandbox-permissions", "workspace-write", NULL },
  { "exec", "--approver", "cmd", NULL },
  { "exec", "--report", "--mode", NULL },
};

static void
test_same_as_goption (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (vectors); i++)
    {
      DshExecOptions full = { 0 }, plain = { 0 };
      int argc = (int) g_strv_length ((char **) vectors[i]);
      g_autofree char *shown = g_strjoinv (" ", (char **) vectors[i]);
      gboolean full_plain = dsh_exec_options_parse (&full, argc, (char **) vectors[i], FALSE,
                                                    NULL, NULL) &&
                            dsh_exec_options_is_plain (&full);
      gboolean plain_plain = dsh_exec_options_parse_plain (&plain, argc, (char **) vectors[i]);

      g_test_message ("%s", shown);
      g_assert_cmpint (plain_plain, ==, full_plain);
      if (full_plain)
        {
          g_assert_cmpstr (plain.mode, ==, full.mode);
          g_assert_cmpstr (plain.workspace, ==, full.workspace);
          g_assert_cmpstr (plain.report_path, ==, full.report_path);
        }
      dsh_exec_options_clear (&full);
      dsh_exec_options_clear (&plain);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/exec-options/same-as-goption", test_same_as_goption);
  return g_test_run ();
}
