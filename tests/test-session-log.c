/* test-session-log.c — the session log: replay equality, crash-tail repair on real torn files,
 * forged out-of-vocabulary events, turn scoping, strict lines, failed and concurrent appends.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#define _GNU_SOURCE /* unshare, CLONE_NEWNS */

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <glib/gstdio.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <unistd.h>

#include "dsh-test-util.h"
#include "dsh-session-fold-cache-private.h"

/* g_test_expect_message() does not see structured log messages in GLib 2.74, so expected
 * warnings are captured by this writer; anything else goes to the default (fatal) writer. */
static GPtrArray *expected_warnings;
static guint matched_warnings;

static GLogWriterOutput
capture_writer (GLogLevelFlags level, const GLogField *fields, gsize n_fields, gpointer data)
{
  if (expected_warnings != NULL && (level & G_LOG_LEVEL_WARNING) != 0)
    {
      for (gsize i = 0; i < n_fields; i++)
        {
          if (!g_str_equal (fields[i].key, "MESSAGE"))
            continue;
          for (guint j = 0; j < expected_warnings->len; j++)
            {
              if (g_pattern_match_simple (g_ptr_array_index (expected_warnings, j),
                                          fields[i].value))
                {
                  matched_warnings++;
                  return G_LOG_WRITER_HANDLED;
                }
            }
        }
    }
  return g_log_writer_default (level, fields, n_fields, data);
}

static char *
new_log_path (void)
{
  g_autofree char *dir = dsh_test_make_tmp_dir ();

  return g_build_filename (dir, "session.jsonl", NULL);
}

static gsize
file_size (const char *path)
{
  GStatBuf st;

  g_assert_cmpint (g_stat (path, &st), ==, 0);
  return (gsize) st.st_size;
}

/* Serialises the events the way they would be replayed: type, data and time of each. */
static char *
events_fingerprint (DshSessionLog *log)
{
  g_autoptr (GPtrArray) events = dsh_session_log_dup_events (log);
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < events->len; i++)
    {
      g_autoptr (JsonNode) node = dsh_session_event_to_json (g_ptr_array_index (events, i));
      g_autofree char *text = json_to_string (node, FALSE);

      g_string_append_printf (out, "%s\n", text);
    }
  return g_string_free (out, FALSE);
}

#define HEADER "{\"id\":\"s-1\",\"cwd\":\"/w\",\"created\":\"2025-01-01T00:00:00.000Z\"}\n"
#define EV(type, data) "{\"type\":\"" type "\",\"data\":" data ",\"time\":\"2025-01-01T00:00:01.000Z\"}\n"

/* ---- basics and replay ------------------------------------------------------------------- */

/* json-glib writes U+001F raw: a cwd or a reason holding it must still make a log that loads. */
static void
test_control_character_round_trip (void)
{
  g_autofree char *path = new_log_path ();
  g_autofree char *cwd = g_strdup_printf ("/var/tmp/unit\x1fseparator");
  g_autoptr (DshSessionLog) log = NULL;
  g_autoptr (DshSessionLog) reloaded = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *contents = NULL;
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  g_autofree char *turn = NULL;

  log = dsh_session_log_create (path, cwd, &error);
  g_assert_no_error (error);
  turn = dsh_session_log_begin_turn (log, &error);
  g_assert_no_error (error);
  dsh_session_log_append_approval_asked (log, "req-1", "bash", "why\x1fnot", NULL, &error);
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  g_assert_null (strchr (contents, '\x1f'));
  g_assert_nonnull (strstr (contents, "\\u001f"));

  reloaded = dsh_test_load_session_log (path);
  g_assert_cmpstr (dsh_session_log_get_cwd (reloaded), ==, cwd);
  before = events_fingerprint (log);
  after = events_fingerprint (reloaded);
  g_assert_cmpstr (before, ==, after);
}

static void
test_create_and_replay (void)
{
  g_autofree char *path = new_log_path ();
  g_autoptr (DshSessionLog) log = dsh_test_create_session_log (path, NULL);
  g_autoptr (DshSessionLog) reloaded = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  g_autofree char *turn = NULL;
  DshSandboxMode mode;
  DshApprovalPolicy policy;

  g_assert_true (g_uuid_string_is_valid (dsh_session_log_get_id (log)));
  g_assert_false (dsh_session_log_last_mode (log, &mode));

  g_assert_true (dsh_session_log_append_mode (log, DSH_SANDBOX_MODE_WORKSPACE_WRITE, &error));
  g_assert_true (dsh_session_log_append_approval_policy (log, DSH_APPROVAL_POLICY_NEVER, &error));
  g_assert_true (dsh_session_log_append_preset (log, "workspace-write", &error));
  turn = dsh_session_log_begin_turn (log, &error);
  g_assert_no_error (error);
  g_assert_true (dsh_session_log_has_open_turn (log));
  g_assert_true (dsh_session_log_append_approval_asked (log, "req-1", "bash", "escalate", NULL,
                                                        &error));
  g_assert_true (dsh_session_log_append_approval_decided (log, "req-1",
                                                          DSH_APPROVAL_OUTCOME_REJECTED, &error));
  g_assert_true (dsh_session_log_end_turn (log, turn, &error));
  g_assert_true (dsh_session_log_append_mode (log, DSH_SANDBOX_MODE_READ_ONLY, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (dsh_test_count_lines (path), ==, 9);

  /* Restart: a new object from the file folds to the same answers. */
  reloaded = dsh_test_load_session_log (path);
  before = events_fingerprint (log);
  after = events_fingerprint (reloaded);
  g_assert_cmpstr (before, ==, after);
  g_assert_cmpstr (dsh_session_log_get_id (reloaded), ==, dsh_session_log_get_id (log));
  g_assert_cmpstr (dsh_session_log_get_cwd (reloaded), ==, dsh_session_log_get_cwd (log));
  g_assert_cmpstr (dsh_session_log_get_created (reloaded), ==, dsh_session_log_get_created (log));
  g_assert_true (dsh_session_log_last_mode (reloaded, &mode));
  g_assert_cmpint (mode, ==, DSH_SANDBOX_MODE_READ_ONLY);
  g_assert_true (dsh_session_log_last_approval_policy (reloaded, &policy));
  g_assert_cmpint (policy, ==, DSH_APPROVAL_POLICY_NEVER);
  g_assert_false (dsh_session_log_has_open_turn (reloaded));
  g_assert_cmpuint (dsh_session_log_get_dropped_count (reloaded), ==, 0);
  {
    g_autofree char *preset = dsh_session_log_dup_last_preset (reloaded);

    g_assert_cmpstr (preset, ==, "workspace-write");
  }
}

/* Extra writable roots are pinned into the header at creation, absolute paths only. */
static void
test_header_writable_roots (void)
{
  static const char *const forged[] = {
    "{\"id\":\"a\",\"cwd\":\"/w\",\"created\":\"2026-01-01T00:00:00Z\","
    "\"writableRoots\":[\"rel\"]}\n",
    "{\"id\":\"a\",\"cwd\":\"/w\",\"created\":\"2026-01-01T00:00:00Z\","
    "\"writableRoots\":\"/x\"}\n",
  };
  const char *roots[] = { "/srv/cache", "/home/u/.npm", NULL };
  g_autofree char *path = new_log_path ();
  g_autoptr (DshSessionLog) log = NULL;
  g_autoptr (DshSessionLog) loaded = NULL;
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) pinned = NULL;
  g_auto (GStrv) none = NULL;

  log = dsh_session_log_create_with_roots (path, "/w", roots, &error);
  g_assert_no_error (error);
  loaded = dsh_session_log_load (path, &error);
  g_assert_no_error (error);
  pinned = dsh_session_log_dup_extra_writable_roots (loaded);
  g_assert_true (g_strv_equal ((const char *const *) pinned, roots));
  g_clear_object (&log);
  {
    g_autofree char *plain = new_log_path ();

    log = dsh_session_log_create (plain, "/w", &error);
    g_assert_no_error (error);
    none = dsh_session_log_dup_extra_writable_roots (log);
    g_assert_null (none);
  }
  for (guint i = 0; i < G_N_ELEMENTS (forged); i++)
    {
      g_autofree char *bad = new_log_path ();
      g_autoptr (DshSessionLog) refused = NULL;
      g_autoptr (GError) load_error = NULL;

      dsh_test_write_file (bad, forged[i]);
      refused = dsh_session_log_load (bad, &load_error);
      g_assert_nonnull (load_error);
      g_assert_null (refused);
    }
}

static void
test_create_refuses_existing (void)
{
  g_autofree char *path = new_log_path ();
  g_autoptr (DshSessionLog) log = dsh_test_create_session_log (path, NULL);
  g_autoptr (DshSessionLog) again = NULL;
  g_autoptr (GError) error = NULL;

  again = dsh_session_log_create (path, "/", &error);
  g_assert_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_SESSION_LOG);
  g_assert_null (again);
}

static void
test_relative_cwd_made_absolute_not_normalised (void)
{
  g_autofree char *path = new_log_path ();
  g_autoptr (GError) error = NULL;
  g_autoptr (DshSessionLog) log = dsh_session_log_create (path, "a/link/../b", &error);
  g_autofree char *here = g_get_current_dir ();
  g_autofree char *expected = g_build_filename (here, "a/link/../b", NULL);

  g_assert_no_error (error);
  g_assert_cmpstr (dsh_session_log_get_cwd (log), ==, expected);
}

/* ---- crash-tail repair ------------------------------------------------------------------- */

static void
test_torn_tail_truncated_mid_line (void)
{
  g_autofree char *path = new_log_path ();
  g_autoptr (DshSessionLog) log = dsh_test_create_session_log (path, NULL);
  g_autoptr (DshSessionLog) reloaded = NULL;
  g_autoptr (DshSessionLog) final = NULL;
  g_autoptr (GError) error = NULL;
  DshSandboxMode mode;
  gsize committed;

  g_assert_true (dsh_session_log_append_mode (log, DSH_SANDBOX_MODE_WORKSPACE_WRITE, &error));
  committed = file_size (path);
  g_assert_true (dsh_session_log_append_mode (log, DSH_SANDBOX_MODE_DANGER_FULL_ACCESS, &error));
  g_assert_no_error (error);

  /* A crash in the middle of the second append: cut the real file mid-line. */
  g_assert_cmpint (truncate (path, (off_t) (committed + 20)), ==, 0);

  reloaded = dsh_test_load_session_log (path);
  g_assert_cmpuint (dsh_session_log_get_dropped_count (reloaded), ==, 1);
  g_assert_true (dsh_session_log_last_mode (reloaded, &mode));
  g_assert_cmpint (mode, ==, DSH_SANDBOX_MODE_WORKSPACE_WRITE);
  /* Loading never writes. */
  g_assert_cmpuint (file_size (path), ==, committed + 20);

  /* The next append starts on a fresh line: the torn bytes are cut first. */
  g_assert_true (dsh_session_log_append_mode (reloaded, DSH_SANDBOX_MODE_READ_ONLY, &error));
  g_assert_no_error (error);
  final = dsh_test_load_session_log (path);
  g_assert_cmpuint (dsh_session_log_get_dropped_count (final), ==, 0);
  g_assert_cmpuint (dsh_test_count_lines (path), ==, 3);
  g_assert_true (dsh_session_log_last_mode (final, &mode));
  g_assert_cmpint (mode, ==, DSH_SANDBOX_MODE_READ_ONLY);
}

static void
test_torn_tail_every_cut (void)
{
  g_autofree char *path = new_log_path ();
  g_autofree char *copy = g_strconcat (path, ".cut", NULL);
  g_autoptr (DshSessionLog) log = dsh_test_create_session_log (path, NULL);
  g_autoptr (GError) error = NULL;
  g_autofree char *contents = NULL;
  gsize header_end, last_start, length;

  g_assert_true (dsh_session_log_append_mode (log, DSH_SANDBOX_MODE_WORKSPACE_WRITE, &error));
  last_start = file_size (path);
  g_assert_true (dsh_session_log_append_approval_policy (log, DSH_APPROVAL_POLICY_NEVER, &error));
  contents = dsh_test_read_file (path);
  length = strlen (contents);
  header_end = (gsize) (strchr (contents, '\n') - contents) + 1;
  g_assert_cmpuint (header_end, <, last_start);

  /* Every possible crash point inside the last line: always exactly that line is dropped. */
  for (gsize cut = last_start + 1; cut < length; cut++)
    {
      g_autoptr (DshSessionLog) torn = NULL;
      DshApprovalPolicy policy;
      DshSandboxMode mode;

      g_assert_true (g_file_set_contents (copy, contents, (gssize) cut, NULL));
      torn = dsh_test_load_session_log (copy);
      g_assert_cmpuint (dsh_session_log_get_dropped_count (torn), ==, 1);
      g_assert_false (dsh_session_log_last_approval_policy (torn, &policy));
      g_assert_true (dsh_session_log_last_mode (torn, &mode));
    }

  /* A torn header is no session at all. */
  for (gsize cut = 0; cut < header_end; cut++)
    {
      g_autoptr (DshSessionLog) torn = NULL;
      g_autoptr (GError) load_error = NULL;

      g_assert_true (g_file_set_contents (copy, contents, (gssize) cut, NULL));
      torn = dsh_session_log_load (copy, &load_error);
      g_assert_error (load_error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_SESSION_LOG);
      g_assert_null (torn);
    }
}

static void
test_unparsable_last_line_dropped (void)
{
  g_autofree char *path = new_log_path ();
  g_autoptr (DshSessionLog) log = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *zeroes = g_malloc0 (40);
  FILE *f;

  /* What some filesystems leave after a crash: the size grew, the data is zeroes. */
  dsh_test_write_file (path, HEADER EV ("sandbox/mode", "{\"mode\":\"workspace-write\"}"));
  f = fopen (path, "ab");
  g_assert_nonnull (f);
  fwrite (zeroes, 1, 40, f);
  fputc ('\n', f);
  fclose (f);

  log = dsh_test_load_session_log (path);
  g_assert_cmpuint (dsh_session_log_get_dropped_count (log), ==, 1);
  g_assert_true (dsh_session_log_append_mode (log, DSH_SANDBOX_MODE_READ_ONLY, &error));
  g_assert_no_error (error);
  g_clear_object (&log);
  log = dsh_test_load_session_log (path);
  g_assert_cmpuint (dsh_session_log_get_dropped_count (log), ==, 0);
  g_assert_cmpuint (dsh_test_count_lines (path), ==, 3);
}

/* A complete last line that will not parse was written whole (by another tool, say): it is
 * damage to report, never a torn tail to cut, so no append can make it disappear. */
static void
test_complete_unparsable_last_line_kept (void)
{
  static const char *const complete[] = {
    "{\"type\":\"harness/note\",\"data\":{\"s\":\"\\ud800\"},\"time\":\"2026-01-01T00:00:00Z\"}\n",
    "{\"type\":\"x\",\"data\":{\"n\":99999999999999999999},\"time\":\"2025-01-01T00:00:00Z\"}\n",
  };

  for (guint i = 0; i < G_N_ELEMENTS (complete); i++)
    {
      g_autofree char *path = new_log_path ();
      g_autofree char *contents = g_strconcat (HEADER, complete[i], NULL);
      g_autofree char *after = NULL;
      g_autoptr (DshSessionLog) log = NULL;
      g_autoptr (GError) error = NULL;

      dsh_test_write_file (path, contents);
      log = dsh_session_log_load (path, &error);
      g_assert_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_SESSION_LOG);
      g_assert_nonnull (strstr (error->message, "session.jsonl:2:"));
      g_assert_null (log);
      after = dsh_test_read_file (path);
      g_assert_cmpstr (after, ==, contents);
    }
}

static void
test_malformed_middle_line_is_an_error (void)
{
  static const char *const bad_middles[] = {
    "{\"type\":\"sandbox/mode\",\"data\":{\"mode\":\"read-only\"}\n", /* unterminated */
    "not json at all\n",
    "\n",
    "[1,2,3]\n",
    "{\"type\":\"sandbox/mode\",\"data\":[],\"time\":\"2025-01-01T00:00:00Z\"}\n",
    "{\"type\":\"sandbox/mode\",\"data\":{\"mode\":\"read-only\"},\"time\":\"yesterday\"}\n",
    "{\"type\":\"turn/end\",\"data\":{},\"time\":\"2025-W01-1T00:00:00Z\"}\n",
    "{\"type\":\"turn/end\",\"data\":{},\"time\":\"2025-01-01T00:00:00\"}\n",
    "{\"type\":\"turn/end\",\"data\":{},\"time\":\"2025-13-01T00:00:00Z\"}\n",
    "{\"type\":\"x\",\"data\":{\"n\":99999999999999999999},\"time\":\"2025-01-01T00:00:00Z\"}\n",
    "{\"type\":\"x\",\"data\":{\"n\":1e22},\"time\":\"2025-01-01T00:00:00Z\"}\n",
    "{\"type\":\"\",\"data\":{},\"time\":\"2025-01-01T00:00:00Z\"}\n",
    "{\"type\":\"x\",\"data\":{},\"data\":{},\"time\":\"2025-01-01T00:00:00Z\"}\n",
    "{/* c */\"type\":\"x\",\"data\":{},\"time\":\"2025-01-01T00:00:00Z\"}\n",
    "{'type':'x','data':{},'time':'2025-01-01T00:00:00Z'}\n",
  };

  for (guint i = 0; i < G_N_ELEMENTS (bad_middles); i++)
    {
      g_autofree char *path = new_log_path ();
      g_autofree char *contents = g_strconcat (HEADER, bad_middles[i],
                                               EV ("turn/start", "{}"), NULL);
      g_autoptr (DshSessionLog) log = NULL;
      g_autoptr (GError) error = NULL;

      dsh_test_write_file (path, contents);
      log = dsh_session_log_load (path, &error);
      g_assert_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_SESSION_LOG);
      g_assert_null (log);
      /* The error names the line. */
      g_assert_nonnull (strstr (error->message, "session.jsonl:2:"));
    }
}

/* ---- the invariant ----------------------------------------------------------------------- */

static void
test_forged_events_refused_on_load (void)
{
  static const char *const forged[] = {
    EV ("sandbox/mode", "{\"mode\":\"root-access\"}"),
    EV ("sandbox/mode", "{\"mode\":\"Read-Only\"}"),
    EV ("sandbox/mode", "{\"mode\":1}"),
    EV ("sandbox/mode", "{}"),
    EV ("approval/policy", "{\"policy\":\"always\"}"),
    EV ("approval/policy", "{\"policy\":null}"),
    EV ("permissionPresets/preset", "{\"preset\":\"custom\"}"),
    EV ("approval/decided", "{\"id\":\"r\",\"outcome\":\"allowed-always\"}"),
  };

  for (guint i = 0; i < G_N_ELEMENTS (forged); i++)
    {
      /* In the middle and as the last (well-formed, so not torn) line: refused either way. */
      for (guint last = 0; last < 2; last++)
        {
          g_autofree char *path = new_log_path ();
          g_autofree char *contents = g_strconcat (HEADER, EV ("turn/start", "{}"), forged[i],
                                                   last ? "" : EV ("turn/end", "{}"), NULL);
          g_autoptr (DshSessionLog) log = NULL;
          g_autoptr (GError) error = NULL;

          dsh_test_write_file (path, contents);
          log = dsh_session_log_load (path, &error);
          g_assert_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_SESSION_LOG);
          g_assert_nonnull (strstr (error->message, ":3:"));
          g_assert_null (log);
        }
    }
}

static void
test_forged_events_refused_on_append (void)
{
  g_autofree char *path = new_log_path ();
  g_autoptr (DshSessionLog) log = dsh_test_create_session_log (path, NULL);
  gsize size = file_size (path);
  static const struct {
    const char *type;
    const char *member;
    const char *value;
  } forged[] = {
    { "sandbox/mode", "mode", "root-access" },
    { "sandbox/mode", "mode", "" },
    { "approval/policy", "policy", "always" },
    { "permissionPresets/preset", "preset", "custom" },
    { "permissionPresets/preset", "preset", "" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (forged); i++)
    {
      g_autoptr (JsonObject) data = json_object_new ();
      g_autoptr (GError) error = NULL;

      json_object_set_string_member (data, forged[i].member, forged[i].value);
      g_assert_false (dsh_session_log_append (log, forged[i].type, data, &error));
      g_assert_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT);
    }
  {
    g_autoptr (GError) error = NULL;

    g_assert_false (dsh_session_log_append_mode (log, (DshSandboxMode) 7, &error));
    g_assert_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT);
  }
  {
    /* A value json-glib can generate but no strict reader accepts never reaches the file. */
    g_autoptr (JsonObject) data = json_object_new ();
    g_autoptr (GError) error = NULL;

    json_object_set_double_member (data, "x", NAN);
    g_assert_false (dsh_session_log_append (log, "harness/metric", data, &error));
    g_assert_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT);
  }
  g_assert_cmpuint (file_size (path), ==, size);
}

/* ---- turns ------------------------------------------------------------------------------- */

static void
test_out_of_turn_residue_dropped_with_warning (void)
{
  g_autofree char *path = new_log_path ();
  g_autoptr (DshSessionLog) log = NULL;
  g_autoptr (GPtrArray) events = NULL;

  dsh_test_write_file (path, HEADER
              EV ("sandbox/mode", "{\"mode\":\"workspace-write\"}")
              EV ("turn/start", "{\"id\":\"t1\"}")
              EV ("approval/asked", "{\"id\":\"a\",\"toolName\":\"bash\",\"reason\":\"r\"}")
              EV ("approval/decided", "{\"id\":\"a\",\"outcome\":\"allowed-once\"}")
              EV ("turn/end", "{\"id\":\"t1\"}")
              EV ("approval/decided", "{\"id\":\"late\",\"outcome\":\"rejected\"}")
              EV ("turn/end", "{\"id\":\"t9\"}")
              EV ("sandbox/mode", "{\"mode\":\"read-only\"}"));

  expected_warnings = g_ptr_array_new ();
  g_ptr_array_add (expected_warnings, (gpointer) "*:7: dropping \"approval/decided\"*");
  g_ptr_array_add (expected_warnings, (gpointer) "*:8: dropping \"turn/end\"*");
  matched_warnings = 0;
  log = dsh_test_load_session_log (path);
  g_clear_pointer (&expected_warnings, g_ptr_array_unref);
  g_assert_cmpuint (matched_warnings, ==, 2);

  events = dsh_session_log_dup_events (log);
  g_assert_cmpuint (events->len, ==, 6);
  g_assert_cmpuint (dsh_session_log_get_dropped_count (log), ==, 2);
  /* Nothing else was dropped: the mode switch after the residue still counts. */
  {
    DshSandboxMode mode;

    g_assert_true (dsh_session_log_last_mode (log, &mode));
    g_assert_cmpint (mode, ==, DSH_SANDBOX_MODE_READ_ONLY);
  }
}

static void
test_turn_scoped_append_needs_open_turn (void)
{
  g_autofree char *path = new_log_path ();
  g_autoptr (DshSessionLog) log = dsh_test_create_session_log (path, NULL);
  g_autoptr (GError) error = NULL;
  g_autofree char *turn = NULL;
  gsize size = file_size (path);

  g_assert_false (dsh_session_log_has_open_turn (log));
  g_assert_false (dsh_session_log_append_approval_asked (log, "r", "bash", "why", NULL, &error));
  g_assert_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_false (dsh_session_log_append_approval_decided (log, "r", DSH_APPROVAL_OUTCOME_REJECTED,
                                                           &error));
  g_assert_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_false (dsh_session_log_end_turn (log, "nope", &error));
  g_assert_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_cmpuint (file_size (path), ==, size);

  turn = dsh_session_log_begin_turn (log, &error);
  g_assert_no_error (error);
  g_assert_true (dsh_session_log_turn_is_open (log, turn));
  g_assert_false (dsh_session_log_turn_is_open (log, "other"));
  {
    /* Extras are kept, but never override the audited fields. */
    g_autoptr (JsonObject) extra = json_object_new ();
    g_autoptr (GPtrArray) events = NULL;
    DshSessionEvent *asked;

    json_object_set_string_member (extra, "callId", "c-1");
    json_object_set_string_member (extra, "toolName", "forged");
    g_assert_true (dsh_session_log_append_approval_asked (log, "r", "bash", "why", extra,
                                                          &error));
    events = dsh_session_log_dup_events (log);
    asked = g_ptr_array_index (events, events->len - 1);
    g_assert_cmpint (dsh_session_event_get_kind (asked), ==, DSH_SESSION_EVENT_APPROVAL_ASKED);
    g_assert_cmpstr (dsh_session_event_get_string (asked, "toolName"), ==, "bash");
    g_assert_cmpstr (dsh_session_event_get_string (asked, "callId"), ==, "c-1");
  }
  g_assert_true (dsh_session_log_append_approval_decided (log, "r",
                                                          DSH_APPROVAL_OUTCOME_ALLOWED_ONCE,
                                                          &error));
  g_assert_true (dsh_session_log_end_turn (log, turn, &error));
  g_assert_no_error (error);
  g_assert_false (dsh_session_log_has_open_turn (log));
}

/* ---- strict lines ------------------------------------------------------------------------ */

static void
test_foreign_events_kept (void)
{
  g_autofree char *path = new_log_path ();
  g_autoptr (DshSessionLog) log = NULL;
  g_autoptr (GPtrArray) events = NULL;
  g_autoptr (GError) error = NULL;
  DshSandboxMode mode;

  /* A harness sharing the file writes its own types; a look-alike never folds as a mode. */
  dsh_test_write_file (path, HEADER
              EV ("message/user", "{\"text\":\"hi\",\"nested\":{\"a\":[1,2.5,true,null]}}")
              EV ("sandbox/mode ", "{\"mode\":\"danger-full-access\"}")
              EV ("Sandbox/Mode", "{\"mode\":\"danger-full-access\"}"));
  log = dsh_test_load_session_log (path);
  events = dsh_session_log_dup_events (log);
  g_assert_cmpuint (events->len, ==, 3);
  for (guint i = 0; i < events->len; i++)
    g_assert_cmpint (dsh_session_event_get_kind (g_ptr_array_index (events, i)), ==,
                     DSH_SESSION_EVENT_FOREIGN);
  g_assert_false (dsh_session_log_last_mode (log, &mode));

  g_assert_true (dsh_session_log_append (log, "message/assistant", NULL, &error));
  g_assert_no_error (error);
}

static void
test_strict_json (void)
{
  static const char *const refused[] = {
    /* escaped NUL, lone surrogates, raw control character, duplicate member, trailing data */
    "{\"type\":\"x\",\"data\":{\"a\":\"\\u0000\"},\"time\":\"2025-01-01T00:00:00Z\"}\n",
    "{\"type\":\"x\",\"data\":{\"a\":\"\\ud800\"},\"time\":\"2025-01-01T00:00:00Z\"}\n",
    "{\"type\":\"x\",\"data\":{\"a\":\"\\udc00x\"},\"time\":\"2025-01-01T00:00:00Z\"}\n",
    "{\"type\":\"x\",\"data\":{\"a\":\"\t\"},\"time\":\"2025-01-01T00:00:00Z\"}\n",
    "{\"type\":\"sandbox/mode\",\"data\":{\"mode\":\"read-only\",\"mode\":\"danger-full-access\"},"
    "\"time\":\"2025-01-01T00:00:00Z\"}\n",
    "{\"type\":\"x\",\"data\":{},\"time\":\"2025-01-01T00:00:00Z\"} {}\n",
    "{\"type\":\"x\",\"data\":{\"n\":01},\"time\":\"2025-01-01T00:00:00Z\"}\n",
    "{\"type\":\"x\",\"data\":{\"n\":NaN},\"time\":\"2025-01-01T00:00:00Z\"}\n",
    "{\"type\":\"x\",\"data\":{\"n\":[1,]},\"time\":\"2025-01-01T00:00:00Z\"}\n",
    "{\"type\":\"x\",\"data\":{\"s\":\"\xff\"},\"time\":\"2025-01-01T00:00:00Z\"}\n",
  };
  g_autoptr (GString) deep = g_string_new ("{\"type\":\"x\",\"data\":{\"d\":");

  for (guint i = 0; i < G_N_ELEMENTS (refused); i++)
    {
      g_autofree char *contents = g_strconcat (HEADER, refused[i], EV ("turn/start", "{}"), NULL);
      g_autoptr (DshSessionLog) log = NULL;
      g_autoptr (GError) error = NULL;

      log = dsh_session_log_parse ("mem", contents, strlen (contents), &error);
      g_assert_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_SESSION_LOG);
      g_assert_null (log);
    }

  /* Deep nesting is refused before any recursive parser sees it. */
  for (guint i = 0; i < 100000; i++)
    g_string_append_c (deep, '[');
  g_string_append (deep, "\n");
  {
    g_autofree char *contents = g_strconcat (HEADER, deep->str, EV ("turn/start", "{}"), NULL);
    g_autoptr (GError) error = NULL;
    g_autoptr (DshSessionLog) log = dsh_session_log_parse ("mem", contents, strlen (contents),
                                                           &error);

    g_assert_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_SESSION_LOG);
    g_assert_nonnull (strstr (error->message, "nesting too deep"));
  }
}

static void
test_bad_headers (void)
{
  static const char *const headers[] = {
    "",
    "{}\n",
    "{\"id\":\"\",\"cwd\":\"/w\",\"created\":\"2025-01-01T00:00:00Z\"}\n",
    "{\"id\":\"a\",\"cwd\":\"relative\",\"created\":\"2025-01-01T00:00:00Z\"}\n",
    "{\"id\":\"a\",\"cwd\":\"/w\",\"created\":\"2025-01-01\"}\n",
    "{\"id\":\"a\",\"cwd\":\"/w\"}\n",
    "[]\n",
  };

  for (guint i = 0; i < G_N_ELEMENTS (headers); i++)
    {
      g_autofree char *contents = g_strconcat (headers[i], EV ("turn/start", "{}"), NULL);
      g_autoptr (GError) error = NULL;
      g_autoptr (DshSessionLog) log = dsh_session_log_parse ("mem", contents, strlen (contents),
                                                             &error);

      g_assert_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_SESSION_LOG);
      g_assert_null (log);
    }
}

static void
test_not_a_regular_file (void)
{
  g_autofree char *dir = dsh_test_make_tmp_dir ();
  g_autofree char *fifo = g_build_filename (dir, "fifo", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (DshSessionLog) log = NULL;

  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  log = dsh_session_log_load (fifo, &error);
  g_assert_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_SESSION_LOG);
  g_clear_error (&error);
  g_assert_null (dsh_session_log_load (dir, &error));
  g_assert_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_SESSION_LOG);
}

/* ---- failed appends ---------------------------------------------------------------------- */

static void
assert_failed_append_leaves_no_trace (const char *path)
{
  g_autoptr (DshSessionLog) log = dsh_test_load_session_log (path);
  g_autoptr (GError) error = NULL;
  g_autoptr (GString) reason = g_string_new (NULL);
  gsize size = file_size (path);
  g_autofree char *turn = NULL;
  gboolean failed = FALSE;

  turn = dsh_session_log_begin_turn (log, &error);
  g_assert_no_error (error);
  size = file_size (path);
  /* Grow the lines until the filesystem refuses one. */
  for (guint i = 0; i < 64 && !failed; i++)
    {
      g_string_append (reason, "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef");
      if (!dsh_session_log_append_approval_asked (log, "r", "bash", reason->str, NULL, &error))
        failed = TRUE;
      else
        size = file_size (path);
    }
  g_assert_true (failed);
  g_assert_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_SESSION_LOG);
  /* The failed event is not part of the log, on disk or in memory. */
  g_assert_cmpuint (file_size (path), ==, size);
  {
    g_autoptr (DshSessionLog) reloaded = dsh_test_load_session_log (path);
    g_autofree char *a = events_fingerprint (log);
    g_autofree char *b = events_fingerprint (reloaded);

    g_assert_cmpuint (dsh_session_log_get_dropped_count (reloaded), ==, 0);
    g_assert_cmpstr (a, ==, b);
  }
}

static void
test_failed_append_file_size_limit (void)
{
  if (g_test_subprocess ())
    {
      g_autofree char *path = new_log_path ();
      struct rlimit limit = { 2048, 2048 };
      g_autoptr (DshSessionLog) log = dsh_test_create_session_log (path, NULL);

      g_clear_object (&log);
      /* EFBIG instead of a SIGXFSZ kill: the write fails like a full disk would. */
      signal (SIGXFSZ, SIG_IGN);
      g_assert_cmpint (setrlimit (RLIMIT_FSIZE, &limit), ==, 0);
      assert_failed_append_leaves_no_trace (path);
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
}

/* Whether this process may make a private mount namespace and mount a tmpfs there (root, or
 * a container that allows it); probed in a throwaway child so nothing here changes. */
static gboolean
can_mount_private_tmpfs (const char *dir)
{
  int status = 0;
  pid_t pid = fork ();

  g_assert_cmpint (pid, >=, 0);
  if (pid == 0)
    {
      gboolean ok = unshare (CLONE_NEWNS) == 0 &&
                    mount (NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0 &&
                    mount ("tmpfs", dir, "tmpfs", 0, "size=8k") == 0;

      _exit (ok ? 0 : 1);
    }
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  return WIFEXITED (status) && WEXITSTATUS (status) == 0;
}

static void
test_failed_append_full_tmpfs (void)
{
  if (g_test_subprocess ())
    {
      g_autofree char *dir = dsh_test_make_tmp_dir ();
      g_autofree char *path = g_build_filename (dir, "session.jsonl", NULL);
      g_autoptr (DshSessionLog) log = NULL;

      /* A private mount namespace and an 8 KiB tmpfs: a real ENOSPC. */
      g_assert_cmpint (unshare (CLONE_NEWNS), ==, 0);
      g_assert_cmpint (mount (NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL), ==, 0);
      g_assert_cmpint (mount ("tmpfs", dir, "tmpfs", 0, "size=8k"), ==, 0);
      log = dsh_test_create_session_log (path, NULL);
      g_clear_object (&log);
      assert_failed_append_leaves_no_trace (path);
      umount (dir);
      return;
    }

  {
    g_autofree char *probe_dir = dsh_test_make_tmp_dir ();

    /* The file-size-limit test covers a failed append everywhere; in CI this must run too. */
    if (!dsh_test_require (can_mount_private_tmpfs (probe_dir),
                           "a tmpfs in a private mount namespace"))
      return;
  }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
}

/* ---- several writers --------------------------------------------------------------------- */

static void
test_two_writers_interleave (void)
{
  g_autofree char *path = new_log_path ();
  g_autoptr (DshSessionLog) a = dsh_test_create_session_log (path, NULL);
  g_autoptr (DshSessionLog) b = dsh_test_load_session_log (path);
  g_autoptr (DshSessionLog) final = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *turn = NULL;
  DshSandboxMode mode;

  /* b's turn is visible to a only through the file: a's append catches up first. */
  turn = dsh_session_log_begin_turn (b, &error);
  g_assert_no_error (error);
  g_assert_true (dsh_session_log_append_approval_asked (a, "r", "bash", "why", NULL, &error));
  g_assert_no_error (error);
  g_assert_true (dsh_session_log_append_mode (b, DSH_SANDBOX_MODE_WORKSPACE_WRITE, &error));
  g_assert_true (dsh_session_log_last_mode (b, &mode));
  g_assert_true (dsh_session_log_end_turn (a, turn, &error));
  g_assert_no_error (error);
  g_assert_true (dsh_session_log_last_mode (a, &mode));
  g_assert_cmpint (mode, ==, DSH_SANDBOX_MODE_WORKSPACE_WRITE);

  final = dsh_test_load_session_log (path);
  {
    g_autofree char *fa = events_fingerprint (a);
    g_autofree char *ff = events_fingerprint (final);

    g_assert_cmpstr (fa, ==, ff);
  }
  g_assert_cmpuint (dsh_test_count_lines (path), ==, 5);
}

static void
test_replaced_file_refused (void)
{
  g_autofree char *path = new_log_path ();
  g_autofree char *other = g_strconcat (path, ".other", NULL);
  g_autoptr (DshSessionLog) log = dsh_test_create_session_log (path, NULL);
  g_autoptr (DshSessionLog) impostor = dsh_test_create_session_log (other, NULL);
  g_autoptr (GError) error = NULL;

  g_assert_cmpint (g_rename (other, path), ==, 0);
  g_assert_false (dsh_session_log_append_mode (log, DSH_SANDBOX_MODE_READ_ONLY, &error));
  g_assert_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_SESSION_LOG);
}

static void
test_shrunk_file_refused (void)
{
  g_autofree char *path = new_log_path ();
  g_autoptr (DshSessionLog) log = dsh_test_create_session_log (path, NULL);
  g_autoptr (GError) error = NULL;
  gsize size = file_size (path);

  g_assert_true (dsh_session_log_append_mode (log, DSH_SANDBOX_MODE_READ_ONLY, &error));
  g_assert_cmpint (truncate (path, (off_t) size), ==, 0);
  g_assert_false (dsh_session_log_append_mode (log, DSH_SANDBOX_MODE_READ_ONLY, &error));
  g_assert_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_SESSION_LOG);
}

typedef struct {
  DshSessionLog *log;
  guint count;
} AppendJob;

static gpointer
append_many (gpointer data)
{
  AppendJob *job = data;

  for (guint i = 0; i < job->count; i++)
    {
      g_autoptr (GError) error = NULL;

      g_assert_true (dsh_session_log_append (job->log, "harness/tick", NULL, &error));
    }
  return NULL;
}

static void
test_threads_append (void)
{
  g_autofree char *path = new_log_path ();
  g_autoptr (DshSessionLog) log = dsh_test_create_session_log (path, NULL);
  g_autoptr (DshSessionLog) other = dsh_test_load_session_log (path);
  AppendJob jobs[4] = { { log, 25 }, { log, 25 }, { other, 25 }, { other, 25 } };
  GThread *threads[4];
  g_autoptr (DshSessionLog) final = NULL;

  for (guint i = 0; i < 4; i++)
    threads[i] = g_thread_new ("append", append_many, &jobs[i]);
  for (guint i = 0; i < 4; i++)
    g_thread_join (threads[i]);

  final = dsh_test_load_session_log (path);
  g_assert_cmpuint (dsh_test_count_lines (path), ==, 101);
  {
    g_autoptr (GPtrArray) events = dsh_session_log_dup_events (final);

    g_assert_cmpuint (events->len, ==, 100);
    /* Each time is taken under the file lock, so the file's order is time order. Every time
     * has the same fixed-width UTC shape, so comparing the strings compares the instants. */
    for (guint i = 1; i < events->len; i++)
      g_assert_cmpstr (dsh_session_event_get_time (g_ptr_array_index (events, i - 1)), <=,
                       dsh_session_event_get_time (g_ptr_array_index (events, i)));
  }
}

/* ---- the fold cache ----------------------------------------------------------------------- */

/* The fold of a full, uncached read of the file. */
static char *
full_fold (const char *path)
{
  g_autoptr (DshSessionLog) log = dsh_test_load_session_log (path);

  return dsh_session_log_fold_to_string (log);
}

/* Loads through the cache and checks the fold is the full read's, dropped count included. */
static void
assert_cached_equals_full (const char *path, const char *cache)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DshSessionLog) cached = dsh_session_log_load_cached (path, cache, &error);
  g_autoptr (DshSessionLog) full = dsh_test_load_session_log (path);
  g_autofree char *cached_fold = NULL;
  g_autofree char *expected = NULL;

  g_assert_no_error (error);
  cached_fold = dsh_session_log_fold_to_string (cached);
  expected = dsh_session_log_fold_to_string (full);
  g_assert_cmpstr (cached_fold, ==, expected);
  g_assert_cmpuint (dsh_session_log_get_dropped_count (cached), ==,
                    dsh_session_log_get_dropped_count (full));
}

static void
append_text (const char *path, const char *text)
{
  FILE *f = fopen (path, "a");

  g_assert_nonnull (f);
  g_assert_cmpint (fputs (text, f), >=, 0);
  g_assert_cmpint (fclose (f), ==, 0);
}

#define PRESET(name) EV ("permissionPresets/preset", "{\"preset\":\"" name "\"}")

typedef struct {
  char *dir;
  char *path;
  char *cache;
} FoldFixture;

/* The fixture's log ends a turn that is not open, which every load warns about. */
static void
fold_fixture_init (FoldFixture *f)
{
  expected_warnings = g_ptr_array_new ();
  g_ptr_array_add (expected_warnings, "*dropping \"turn/end\" outside an open turn*");
  f->dir = dsh_test_make_tmp_dir ();
  f->path = g_build_filename (f->dir, "session.jsonl", NULL);
  f->cache = g_build_filename (f->dir, "fold.json", NULL);
  g_assert_true (g_file_set_contents (
    f->path,
    HEADER EV ("sandbox/mode", "{\"mode\":\"workspace-write\"}")
      EV ("approval/policy", "{\"policy\":\"never\"}") PRESET ("aaa")
      EV ("turn/start", "{\"id\":\"t1\"}") EV ("turn/start", "{\"id\":\"t2\"}")
      EV ("approval/asked", "{\"id\":\"r1\",\"toolName\":\"bash\",\"reason\":\"x\"}")
      EV ("turn/end", "{\"id\":\"t1\"}") EV ("turn/end", "{\"id\":\"nope\"}"),
    -1, NULL));
}

static void
fold_fixture_clear (FoldFixture *f)
{
  g_free (f->dir);
  g_free (f->path);
  g_free (f->cache);
  g_clear_pointer (&expected_warnings, g_ptr_array_unref);
}

/* A cached load reads only what follows the cached prefix, and its fold is the full one's:
 * unchanged file, events appended by a writer that does not keep the cache, appends that do. */
static void
test_fold_cache_equals_full (void)
{
  FoldFixture f;
  g_autoptr (GError) error = NULL;

  fold_fixture_init (&f);
  assert_cached_equals_full (f.path, f.cache);
  g_assert_true (g_file_test (f.cache, G_FILE_TEST_EXISTS));
  assert_cached_equals_full (f.path, f.cache);

  /* Another writer, not keeping the cache. */
  append_text (f.path, EV ("turn/end", "{\"id\":\"t2\"}") PRESET ("bbb"));
  assert_cached_equals_full (f.path, f.cache);

  /* Appends through a cached log keep the cache; the next load reads nothing more. */
  {
    g_autoptr (DshSessionLog) log = dsh_session_log_load_cached (f.path, f.cache, &error);
    g_autofree char *turn = NULL;

    g_assert_no_error (error);
    turn = dsh_session_log_begin_turn (log, &error);
    g_assert_no_error (error);
    g_assert_true (dsh_session_log_append_mode (log, DSH_SANDBOX_MODE_READ_ONLY, &error));
    g_assert_true (dsh_session_log_turn_is_open (log, turn));
    g_assert_true (dsh_session_log_end_turn (log, turn, &error));
    /* A turn/end for a turn only the cached prefix knows is refused as the full read would. */
    g_assert_false (dsh_session_log_end_turn (log, "t1", &error));
    g_clear_error (&error);
  }
  assert_cached_equals_full (f.path, f.cache);
  {
    g_autoptr (DshSessionLog) log = dsh_session_log_load_cached (f.path, f.cache, &error);
    g_autoptr (GPtrArray) events = dsh_session_log_dup_events (log);

    /* Nothing after the prefix: the cache covered the whole file. */
    g_assert_cmpuint (events->len, ==, 0);
  }
  fold_fixture_clear (&f);
}

/* A torn tail past the prefix, a truncated file, a replaced file and a prefix rewritten in
 * place (same size) all end in the full read's fold. */
static void
test_fold_cache_falls_back (void)
{
  FoldFixture f;
  g_autofree char *other = NULL;
  g_autofree char *contents = NULL;
  char *at;

  fold_fixture_init (&f);
  assert_cached_equals_full (f.path, f.cache);

  /* Torn tail. */
  append_text (f.path, "{\"type\":\"sandbox/mode\",\"data\":{\"mo");
  assert_cached_equals_full (f.path, f.cache);
  /* Loading never writes the log: the torn tail is still there. */
  g_assert_cmpuint (dsh_test_count_lines (f.path), ==, 9);

  /* Rewritten in place, same size: the preset "aaa" becomes "zzz". */
  g_assert_true (g_file_get_contents (f.path, &contents, NULL, NULL));
  at = strstr (contents, "\"aaa\"");
  g_assert_nonnull (at);
  {
    /* In place: same inode, same size, only the bytes (and the times) change. */
    FILE *file = fopen (f.path, "r+");

    g_assert_nonnull (file);
    g_assert_cmpint (fseek (file, at - contents, SEEK_SET), ==, 0);
    g_assert_cmpuint (fwrite ("\"zzz\"", 1, 5, file), ==, 5);
    g_assert_cmpint (fclose (file), ==, 0);
  }
  assert_cached_equals_full (f.path, f.cache);
  g_assert_nonnull (strstr (full_fold (f.path), "zzz"));

  /* Truncated below the prefix, then grown back past it with other events. */
  assert_cached_equals_full (f.path, f.cache);
  g_assert_cmpint (truncate (f.path, 0), ==, 0);
  append_text (
    f.path, HEADER PRESET ("ccc") EV ("turn/start", "{\"id\":\"t9\"}") PRESET ("ddd") PRESET ("eee")
              PRESET ("fff") PRESET ("ggg") PRESET ("hhh") PRESET ("iii") PRESET ("jjj"));
  assert_cached_equals_full (f.path, f.cache);

  /* Replaced by another file. */
  other = g_build_filename (f.dir, "other.jsonl", NULL);
  g_assert_true (g_file_set_contents (other, HEADER PRESET ("kkk"), -1, NULL));
  g_assert_cmpint (g_rename (other, f.path), ==, 0);
  assert_cached_equals_full (f.path, f.cache);
  fold_fixture_clear (&f);
}

/* A log rewritten in place (same inode, same size) while a writer holds it loaded: the
 * writer's next append must not extend the fold it made of the old bytes, and the cache it
 * keeps must not vouch for them as the file's fold. */
static void
test_fold_cache_rewrite_under_writer (void)
{
  FoldFixture f;
  g_autoptr (GError) error = NULL;
  g_autoptr (DshSessionLog) writer = NULL;
  g_autofree char *contents = NULL;
  char *at;

  fold_fixture_init (&f);
  writer = dsh_session_log_load_cached (f.path, f.cache, &error);
  g_assert_no_error (error);

  /* "workspace-write" becomes "read-only", padded to the same length. */
  g_assert_true (g_file_get_contents (f.path, &contents, NULL, NULL));
  at = strstr (contents, "\"mode\":\"workspace-write\"}");
  g_assert_nonnull (at);
  {
    FILE *file = fopen (f.path, "r+");
    const char *narrower = "\"mode\":\"read-only\"      }";

    g_assert_nonnull (file);
    g_assert_cmpint (fseek (file, at - contents, SEEK_SET), ==, 0);
    g_assert_cmpuint (fwrite (narrower, 1, strlen (narrower), file), ==, strlen (narrower));
    g_assert_cmpint (fclose (file), ==, 0);
  }

  /* The writer may refuse (the log is not what it folded); it must not succeed on the old
   * fold and leave a cache claiming it. */
  if (!dsh_session_log_append (writer, "harness/tick", NULL, &error))
    {
      g_assert_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_SESSION_LOG);
      g_clear_error (&error);
    }
  else
    {
      g_autofree char *fold = dsh_session_log_fold_to_string (writer);

      g_assert_null (strstr (fold, "workspace-write"));
    }
  assert_cached_equals_full (f.path, f.cache);
  g_assert_null (strstr (full_fold (f.path), "workspace-write"));
  fold_fixture_clear (&f);
}

/* Waits for the start of the next second, so what follows happens within one. */
static void
wait_for_next_second (void)
{
  gint64 now = g_get_real_time ();

  /* Past the file system clock's tick, which lags the real time by up to one. */
  g_usleep ((gulong) (G_USEC_PER_SEC - now % G_USEC_PER_SEC + 20000));
}

/* Rewrites path in place, keeping its size: what a harness that edits the log does. */
static void
rewrite_in_place (const char *path, const char *from, const char *to)
{
  g_autofree char *text = NULL;
  gsize length;
  char *at;
  FILE *f;

  g_assert_cmpuint (strlen (from), ==, strlen (to));
  g_assert_true (g_file_get_contents (path, &text, &length, NULL));
  at = strstr (text, from);
  g_assert_nonnull (at);
  memcpy (at, to, strlen (to));
  f = fopen (path, "r+");
  g_assert_nonnull (f);
  g_assert_cmpuint (fwrite (text, 1, length, f), ==, length);
  g_assert_cmpint (fclose (f), ==, 0);
}

/* Where the file system's clock is coarse, a rewrite in the same tick as our last append leaves
 * size and times as they were: neither the next append nor a cached load may take that for
 * "nothing was written" (the cache would keep a preset, a mode, the file no longer holds). */
static void
test_fold_cache_coarse_clock (void)
{
  FoldFixture f;
  g_autoptr (GError) error = NULL;

  fold_fixture_init (&f);
  dsh_session_file_set_coarse_times_for_testing (TRUE);
  assert_cached_equals_full (f.path, f.cache);

  /* Between two appends of one writer. */
  {
    g_autoptr (DshSessionLog) log = NULL;
    g_autofree char *turn = NULL;

    wait_for_next_second ();
    log = dsh_session_log_load_cached (f.path, f.cache, &error);
    g_assert_no_error (error);
    turn = dsh_session_log_begin_turn (log, &error);
    g_assert_no_error (error);
    rewrite_in_place (f.path, "\"preset\":\"aaa\"", "\"preset\":\"bbb\"");
    g_assert_false (dsh_session_log_end_turn (log, turn, &error));
    g_assert_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_SESSION_LOG);
    g_clear_error (&error);
  }
  assert_cached_equals_full (f.path, f.cache);
  g_assert_nonnull (strstr (full_fold (f.path), "\"preset\":\"bbb\""));

  /* After the last append, before the next load. */
  {
    g_autoptr (DshSessionLog) log = NULL;

    wait_for_next_second ();
    log = dsh_session_log_load_cached (f.path, f.cache, &error);
    g_assert_no_error (error);
    g_assert_true (dsh_session_log_append_preset (log, "ccc", &error));
    g_assert_no_error (error);
    rewrite_in_place (f.path, "\"preset\":\"ccc\"", "\"preset\":\"ddd\"");
  }
  assert_cached_equals_full (f.path, f.cache);
  g_assert_nonnull (strstr (full_fold (f.path), "\"preset\":\"ddd\""));

  dsh_session_file_set_coarse_times_for_testing (FALSE);
  fold_fixture_clear (&f);
}

/* The lock every writer takes can be taken by anyone who can read the log (flock needs no
 * write access): a holder that never lets go makes an append fail after the wait, leaving the
 * log as it was, and one that lets go in time is waited for. */
static gpointer
release_lock_later (gpointer data)
{
  int fd = GPOINTER_TO_INT (data);

  g_usleep (200 * 1000);
  close (fd);
  return NULL;
}

static void
test_lock_held_by_a_reader (void)
{
  g_autofree char *path = new_log_path ();
  g_autoptr (DshSessionLog) log = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GThread) releaser = NULL;
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  gint64 started;
  int holder;

  log = dsh_session_log_create (path, "/w", &error);
  g_assert_no_error (error);
  before = dsh_test_read_file (path);
  holder = open (path, O_RDONLY | O_CLOEXEC);
  g_assert_cmpint (holder, >=, 0);
  g_assert_no_errno (flock (holder, LOCK_EX));

  dsh_session_file_set_lock_patience_for_testing (300 * 1000);
  started = g_get_monotonic_time ();
  g_assert_false (dsh_session_log_append_preset (log, "held", &error));
  g_assert_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_SESSION_LOG);
  g_assert_nonnull (strstr (error->message, "cannot lock the session log"));
  g_assert_cmpint (g_get_monotonic_time () - started, >=, 300 * 1000);
  g_clear_error (&error);
  after = dsh_test_read_file (path);
  g_assert_cmpstr (after, ==, before);

  /* Let go within the wait: the append goes through. */
  dsh_session_file_set_lock_patience_for_testing (5 * G_USEC_PER_SEC);
  releaser = g_thread_new ("releaser", release_lock_later, GINT_TO_POINTER (holder));
  g_assert_true (dsh_session_log_append_preset (log, "released", &error));
  g_assert_no_error (error);
  g_thread_join (g_steal_pointer (&releaser));
  dsh_session_file_set_lock_patience_for_testing (0);
  g_clear_pointer (&after, g_free);
  after = dsh_test_read_file (path);
  g_assert_nonnull (strstr (after, "\"preset\":\"released\""));
  g_assert_null (strstr (after, "\"preset\":\"held\""));
}

/* A cache that is damaged, forged with a member too many, names a mode outside the vocabulary
 * or is not a private file of ours is ignored, never trusted. */
static void
test_fold_cache_corrupt_ignored (void)
{
  FoldFixture f;
  g_autofree char *text = NULL;
  const char *edits[][2] = {
    { "\"preset\":\"aaa\"", "\"preset\":\"custom\"" },
    { "\"mode\":\"workspace-write\"", "\"mode\":\"unconfined\"" },
    { "\"openTurns\":", "\"extra\":1,\"openTurns\":" },
    { "\"v\":2", "\"v\":1" },
    { "\"hash\":\"", "\"hash\":\"g" },
    /* Another workspace, the file untouched: the header always comes from the file. */
    { "\"cwd\":\"/w\"", "\"cwd\":\"/x\"" },
  };

  fold_fixture_init (&f);
  assert_cached_equals_full (f.path, f.cache);
  g_assert_true (g_file_get_contents (f.cache, &text, NULL, NULL));
  for (guint i = 0; i < G_N_ELEMENTS (edits); i++)
    {
      g_autoptr (GString) edited = g_string_new (text);

      g_assert_nonnull (strstr (text, edits[i][0]));
      g_string_replace (edited, edits[i][0], edits[i][1], 1);
      /* Claims a different fold for the same file: a trusted cache would show it. */
      g_string_replace (edited, "\"policy\":\"never\"", "\"policy\":\"ask\"", 1);
      g_assert_true (g_file_set_contents (f.cache, edited->str, -1, NULL));
      g_assert_cmpint (g_chmod (f.cache, 0600), ==, 0);
      assert_cached_equals_full (f.path, f.cache);
    }
  /* A sound cache that others may write is not read. */
  g_assert_true (g_file_set_contents (f.cache, text, -1, NULL));
  {
    g_autoptr (GString) edited = g_string_new (text);

    g_string_replace (edited, "\"policy\":\"never\"", "\"policy\":\"ask\"", 1);
    g_assert_true (g_file_set_contents (f.cache, edited->str, -1, NULL));
    g_assert_cmpint (g_chmod (f.cache, 0622), ==, 0);
    assert_cached_equals_full (f.path, f.cache);
  }
  fold_fixture_clear (&f);
}

/* A writer appending while others load through the cache: every load's fold is the full fold
 * of the prefix it covers. */
static gpointer
append_ticks (gpointer data)
{
  DshSessionLog *log = data;

  for (guint i = 0; i < 30; i++)
    {
      g_autoptr (GError) error = NULL;
      g_autofree char *turn = dsh_session_log_begin_turn (log, &error);

      g_assert_no_error (error);
      g_assert_true (dsh_session_log_append (log, "harness/tick", NULL, &error));
      g_assert_true (dsh_session_log_end_turn (log, turn, &error));
    }
  return NULL;
}

static void
test_fold_cache_concurrent_appender (void)
{
  FoldFixture f;
  g_autoptr (DshSessionLog) writer = NULL;
  GThread *thread;

  fold_fixture_init (&f);
  writer = dsh_test_load_session_log (f.path);
  thread = g_thread_new ("append", append_ticks, writer);
  for (guint i = 0; i < 40; i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (DshSessionLog) cached = dsh_session_log_load_cached (f.path, f.cache, &error);
      g_autoptr (DshSessionLog) prefix = NULL;
      g_autofree char *fold = NULL;
      g_autofree char *contents = NULL;
      g_autofree char *expected = NULL;
      const char *size_text;
      gsize length;

      g_assert_no_error (error);
      fold = dsh_session_log_fold_to_string (cached);
      size_text = strstr (fold, "\"size\":");
      g_assert_nonnull (size_text);
      length = (gsize) g_ascii_strtoull (size_text + 7, NULL, 10);
      g_assert_true (g_file_get_contents (f.path, &contents, NULL, NULL));
      prefix = dsh_session_log_parse ("prefix", contents, length, &error);
      g_assert_no_error (error);
      expected = dsh_session_log_fold_to_string (prefix);
      g_assert_cmpstr (fold, ==, expected);
    }
  g_thread_join (thread);
  assert_cached_equals_full (f.path, f.cache);
  fold_fixture_clear (&f);
}

/* The cache never lives in shared scratch space. */
static void
test_fold_cache_path_refuses_tmp (void)
{
  g_autofree char *path = NULL;

  g_setenv ("DSH_SANDBOX_FOLD_CACHE", "/tmp/dsh-folds", TRUE);
  path = dsh_session_fold_cache_path ("/somewhere/session.jsonl");
  g_assert_null (path);
  g_setenv ("DSH_SANDBOX_FOLD_CACHE", "off", TRUE);
  g_assert_null (dsh_session_fold_cache_path ("/somewhere/session.jsonl"));
  g_unsetenv ("DSH_SANDBOX_FOLD_CACHE");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_log_set_writer_func (capture_writer, NULL, NULL);

  g_test_add_func ("/session-log/create-and-replay", test_create_and_replay);
  g_test_add_func ("/session-log/control-character", test_control_character_round_trip);
  g_test_add_func ("/session-log/create-refuses-existing", test_create_refuses_existing);
  g_test_add_func ("/session-log/relative-cwd", test_relative_cwd_made_absolute_not_normalised);
  g_test_add_func ("/session-log/torn/truncated-mid-line", test_torn_tail_truncated_mid_line);
  g_test_add_func ("/session-log/torn/every-cut", test_torn_tail_every_cut);
  g_test_add_func ("/session-log/torn/unparsable-last-line", test_unparsable_last_line_dropped);
  g_test_add_func ("/session-log/malformed-middle-line", test_malformed_middle_line_is_an_error);
  g_test_add_func ("/session-log/torn/complete-unparsable-last-line-kept",
                   test_complete_unparsable_last_line_kept);
  g_test_add_func ("/session-log/forged/on-load", test_forged_events_refused_on_load);
  g_test_add_func ("/session-log/forged/on-append", test_forged_events_refused_on_append);
  g_test_add_func ("/session-log/turns/residue-dropped",
                   test_out_of_turn_residue_dropped_with_warning);
  g_test_add_func ("/session-log/turns/append-needs-open-turn",
                   test_turn_scoped_append_needs_open_turn);
  g_test_add_func ("/session-log/foreign-events-kept", test_foreign_events_kept);
  g_test_add_func ("/session-log/strict-json", test_strict_json);
  g_test_add_func ("/session-log/bad-headers", test_bad_headers);
  g_test_add_func ("/session-log/not-a-regular-file", test_not_a_regular_file);
  g_test_add_func ("/session-log/failed-append/file-size-limit",
                   test_failed_append_file_size_limit);
  g_test_add_func ("/session-log/failed-append/full-tmpfs", test_failed_append_full_tmpfs);
  g_test_add_func ("/session-log/writers/two-interleave", test_two_writers_interleave);
  g_test_add_func ("/session-log/writers/replaced-file", test_replaced_file_refused);
  g_test_add_func ("/session-log/writers/shrunk-file", test_shrunk_file_refused);
  g_test_add_func ("/session-log/writers/threads", test_threads_append);
  g_test_add_func ("/session-log/header-writable-roots", test_header_writable_roots);
  g_test_add_func ("/session-log/fold-cache/equals-full", test_fold_cache_equals_full);
  g_test_add_func ("/session-log/fold-cache/falls-back", test_fold_cache_falls_back);
  g_test_add_func ("/session-log/fold-cache/rewrite-under-writer",
                   test_fold_cache_rewrite_under_writer);
  g_test_add_func ("/session-log/fold-cache/corrupt-ignored", test_fold_cache_corrupt_ignored);
  g_test_add_func ("/session-log/fold-cache/coarse-clock", test_fold_cache_coarse_clock);
  g_test_add_func ("/session-log/lock-held-by-a-reader", test_lock_held_by_a_reader);
  g_test_add_func ("/session-log/fold-cache/concurrent-appender",
                   test_fold_cache_concurrent_appender);
  g_test_add_func ("/session-log/fold-cache/path-refuses-tmp", test_fold_cache_path_refuses_tmp);

  return g_test_run ();
}
