/* fuzz-session-log.c — libFuzzer target for the session-log parser: any bytes either load as a
 * log whose folds work and whose re-serialisation loads again to the same header and events
 * (parse, serialise, parse: equal), or fail with an error that says why; never a crash or a leak.
 * The fold of every prefix of whole lines, continued with the rest, is the full fold.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <dsh-sandbox.h>

#include "dsh-json-strict-private.h"
#include "dsh-session-fold-cache-private.h"
#include "fuzz-target.h"
#include "fuzz-util.h"

#include <string.h>

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autoptr (DshSessionLog) log = NULL;
  g_autoptr (GError) error = NULL;

  log = dsh_session_log_parse ("fuzz", (const char *) data, size, &error);
  if (log == NULL)
    {
      /* A refusal must say why. */
      g_assert_nonnull (error);
      g_assert_true (g_error_matches (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_SESSION_LOG));
      return 0;
    }
  g_assert_no_error (error);

  {
    g_autoptr (GPtrArray) events = dsh_session_log_dup_events (log);
    g_autoptr (JsonNode) header = dsh_session_log_header_to_json (log);
    g_autofree char *header_text = dsh_json_strict_to_string (header, FALSE);
    DshSandboxMode mode;
    DshApprovalPolicy policy;

    g_assert_true (g_path_is_absolute (dsh_session_log_get_cwd (log)));
    g_assert_nonnull (dsh_session_log_get_id (log));
    /* Every fold runs; a mode that made it in is in the vocabulary. */
    if (dsh_session_events_last_mode (events, &mode))
      g_assert_nonnull (dsh_sandbox_mode_to_string (mode));
    if (dsh_session_events_last_approval_policy (events, &policy))
      g_assert_nonnull (dsh_approval_policy_to_string (policy));
    g_assert_cmpstr (dsh_session_events_last_preset (events), !=, "custom");
    (void) dsh_session_events_has_open_turn (events);

    /* The log's own fold (kept as lines are consumed) agrees with the folds over its events. */
    {
      g_autofree char *preset = dsh_session_log_dup_last_preset (log);
      DshSandboxMode own_mode, event_mode;
      DshApprovalPolicy own_policy, event_policy;
      gboolean has_own_mode = dsh_session_log_last_mode (log, &own_mode);
      gboolean has_own_policy = dsh_session_log_last_approval_policy (log, &own_policy);

      g_assert_cmpint (has_own_mode, ==, dsh_session_events_last_mode (events, &event_mode));
      if (has_own_mode)
        g_assert_cmpint (own_mode, ==, event_mode);
      g_assert_cmpint (has_own_policy, ==,
                       dsh_session_events_last_approval_policy (events, &event_policy));
      if (has_own_policy)
        g_assert_cmpint (own_policy, ==, event_policy);
      g_assert_cmpstr (preset, ==, dsh_session_events_last_preset (events));
      g_assert_cmpint (dsh_session_log_has_open_turn (log), ==,
                       dsh_session_events_has_open_turn (events));
    }

    /* The cached fold of any prefix of whole lines, continued with the bytes after it, is the
     * full fold: what the fold cache relies on. */
    {
      g_autofree char *full = dsh_session_log_fold_to_string (log);
      const char *text = (const char *) data;
      guint splits = 0;

      for (gsize cut = 0; cut < size && splits < 64; cut++)
        {
          g_autoptr (DshSessionLog) prefix = NULL;
          g_autoptr (DshSessionLog) continued = NULL;
          g_autoptr (GError) local_error = NULL;
          g_autofree char *fold = NULL;
          g_autofree char *continued_fold = NULL;
          gsize covered;

          if (text[cut] != '\n')
            continue;
          splits++;
          prefix = dsh_session_log_parse ("fuzz-prefix", text, cut + 1, NULL);
          if (prefix == NULL)
            continue;
          fold = dsh_session_log_fold_to_string (prefix);
          /* The fold covers the prefix's committed lines (a torn last line is not one). */
          covered = (gsize) g_ascii_strtoull (strstr (fold, "\"size\":") + 7, NULL, 10);
          g_assert_cmpuint (covered, <=, cut + 1);
          continued = dsh_session_log_parse_continuing (fold, text + covered, size - covered,
                                                        &local_error);
          g_assert_no_error (local_error);
          continued_fold = dsh_session_log_fold_to_string (continued);
          g_assert_cmpstr (continued_fold, ==, full);
          g_assert_cmpuint (dsh_session_log_get_dropped_count (continued), ==,
                            dsh_session_log_get_dropped_count (log));
        }
    }

    /* What loaded re-serialises to lines that load again to the same events. */
    {
      g_autoptr (GString) again = g_string_new (header_text);
      g_autoptr (DshSessionLog) reparsed = NULL;
      g_autoptr (GPtrArray) reparsed_events = NULL;

      g_string_append_c (again, '\n');
      for (guint i = 0; i < events->len; i++)
        {
          g_autoptr (JsonNode) node = dsh_session_event_to_json (g_ptr_array_index (events, i));
          g_autofree char *text = dsh_json_strict_to_string (node, FALSE);

          g_string_append_printf (again, "%s\n", text);
        }
      reparsed = dsh_session_log_parse ("fuzz-again", again->str, again->len, &error);
      g_assert_no_error (error);
      reparsed_events = dsh_session_log_dup_events (reparsed);
      g_assert_cmpuint (reparsed_events->len, ==, events->len);
      g_assert_cmpuint (dsh_session_log_get_dropped_count (reparsed), ==, 0);
      /* The same header and the same events, member for member. */
      {
        g_autoptr (JsonNode) reparsed_header = dsh_session_log_header_to_json (reparsed);

        g_assert_true (json_node_equal (header, reparsed_header));
      }
      for (guint i = 0; i < events->len; i++)
        {
          g_autoptr (JsonNode) a = dsh_session_event_to_json (g_ptr_array_index (events, i));
          g_autoptr (JsonNode) b =
            dsh_session_event_to_json (g_ptr_array_index (reparsed_events, i));

          g_assert_true (json_node_equal (a, b));
        }
    }
  }
  return 0;
}
