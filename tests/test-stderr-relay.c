/* test-stderr-relay.c — a flood of stderr through exec under the real runners: a denial 90 MB
 * into it is still classified, and every byte reaches our stderr exactly, in order, whether
 * that is /dev/null, a file (spliced), a file opened for appending (copied) or a pipe.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <glib/gstdio.h>
#include <string.h>

#include "dsh-test-linux.h"
#include "dsh-test-seed-texts.h"
#include "dsh-test-util.h"

#define FLOOD_SIZE (90 * 1000 * 1000)
#define AFTER_SIZE (1000 * 1000)

typedef enum { TO_NULL, TO_FILE, TO_APPENDED_FILE, TO_PIPE } Destination;

static const char *const destination_names[] = { "/dev/null", "file", "appended file", "pipe" };

/* Text with the first and last bytes of every dialect's signatures, never a signature. */
static GString *
make_flood (void)
{
  const char *line = "Rem ipsum per mission denie code EACCE java.nio.file Read-only fil 0123\n";
  GString *flood = g_string_sized_new (FLOOD_SIZE);

  while (flood->len + strlen (line) <= FLOOD_SIZE)
    g_string_append (flood, line);
  return flood;
}

static const char *
outcome_of (const char *report)
{
  g_autofree char *json = dsh_test_read_file (report);
  static char outcome[32];
  g_autoptr (JsonNode) node = dsh_test_parse_json (json);

  g_strlcpy (outcome, json_object_get_string_member (json_node_get_object (node), "outcome"),
             sizeof (outcome));
  return outcome;
}

/* What exec wrote: the flood, the shell's denial line, the first AFTER_SIZE bytes again, then
 * the newline that ends that last line and exec's own marker. Before: what the file held
 * already. */
static void
assert_relayed (const char *err, gsize len, const char *before, const GString *flood)
{
  gsize at = strlen (before);
  const char *denial_end;

  g_assert_cmpuint (len, >, at + flood->len + AFTER_SIZE);
  g_assert_cmpmem (err, at, before, at);
  g_assert_true (memcmp (err + at, flood->str, flood->len) == 0);
  at += flood->len;
  denial_end = memchr (err + at, '\n', len - at);
  g_assert_nonnull (denial_end);
  g_assert_nonnull (g_strstr_len (err + at, denial_end - (err + at), "/etc/dsh-denied"));
  at = (gsize) (denial_end + 1 - err);
  g_assert_true (memcmp (err + at, flood->str, AFTER_SIZE) == 0);
  at += AFTER_SIZE;
  /* The command's last line ended there without a newline: exec ends it, so that its marker is
   * a line of its own. */
  g_assert_cmpuint (AFTER_SIZE % strlen ("Rem ipsum per mission denie code EACCE java.nio.file "
                                         "Read-only fil 0123\n"), !=, 0);
  g_assert_cmpstr (err + at, ==, "\n" SEED_DENIAL_MARKER ("read-only") "\n");
}

static void
run_flood (const char *backend, Destination destination, const char *dir, const GString *flood)
{
  g_autofree char *ws = g_build_filename (dir, "ws", NULL);
  g_autofree char *flood_path = g_build_filename (dir, "flood", NULL);
  g_autofree char *out = g_build_filename (dir, "stderr", NULL);
  g_autofree char *report = g_build_filename (dir, "report.json", NULL);
  g_autofree char *backend_env = g_strdup_printf ("DSH_SANDBOX_BACKEND=%s", backend);
  /* Through a pipe, cat writes the file (and the exit status goes aside). */
  const char *redirections[] = { "2>/dev/null", "2>\"$out\"", "2>>\"$out\"",
                                 "2>&1 >/dev/null; echo $? >\"$out.status\"; } | cat >\"$out\"" };
  const char *before = destination == TO_APPENDED_FILE ? "already there\n" : "";
  g_autofree char *wrapper = g_strdup_printf (
    "cli=$1 ws=$2 report=$3 flood=$4 out=$5; %s"
    "\"$cli\" exec --workspace \"$ws\" --report \"$report\" -- sh -c '"
    "cat \"$1\" >&2; echo hi > /etc/dsh-denied; head -c %d \"$1\" >&2; exit 3' sh \"$flood\" %s",
    destination == TO_PIPE ? "{ " : "exec ", AFTER_SIZE, redirections[destination]);
  const char *argv[] = { "sh", "-c", wrapper, "sh", dsh_test_cli (), ws, report, flood_path, out,
                         NULL };
  const char *env[] = { backend_env, NULL };
  g_auto (DshTestRun) run = { 0 };
  g_autoptr (GError) error = NULL;
  g_autofree char *written = NULL;
  gsize len = 0;

  g_test_message ("%s to %s", backend, destination_names[destination]);
  dsh_test_write_file (out, before);

  dsh_test_run (&run, argv, env, ws, NULL);
  if (destination == TO_PIPE)
    {
      g_autofree char *status_path = g_strdup_printf ("%s.status", out);
      g_autofree char *status = dsh_test_read_file (status_path);

      g_assert_cmpstr (status, ==, "3\n");
    }
  else
    g_assert_cmpint (run.exit_code, ==, 3);
  g_assert_cmpstr (outcome_of (report), ==, "denied");
  if (destination == TO_NULL)
    return;
  g_assert_true (g_file_get_contents (out, &written, &len, &error));
  g_assert_no_error (error);
  assert_relayed (written, len, before, flood);
}

static void
test_flood (gconstpointer data)
{
  const char *backend = data;
  g_autofree char *dir = NULL;
  g_autofree char *ws = NULL;
  g_autofree char *flood_path = NULL;
  g_autoptr (GString) flood = NULL;
  g_autoptr (GError) error = NULL;

  if (g_str_equal (backend, "bwrap") ? !dsh_test_require_bwrap () : !dsh_test_require_landlock ())
    return;
  dir = dsh_test_scratch_dir ("relay");
  ws = g_build_filename (dir, "ws", NULL);
  flood_path = g_build_filename (dir, "flood", NULL);
  flood = make_flood ();
  g_assert_cmpint (g_mkdir (ws, 0755), ==, 0);
  g_assert_true (g_file_set_contents (flood_path, flood->str, (gssize) flood->len, &error));
  g_assert_no_error (error);
  for (Destination destination = TO_NULL; destination <= TO_PIPE; destination++)
    run_flood (backend, destination, dir, flood);
  dsh_test_remove_tree (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_data_func ("/stderr-relay/bwrap/denial-deep-in-a-flood", "bwrap", test_flood);
  g_test_add_data_func ("/stderr-relay/landlock/denial-deep-in-a-flood", "landlock", test_flood);
  return g_test_run ();
}
