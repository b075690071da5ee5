/* dsh-session-fold.c — what a session's events fold to (the last mode, approval policy and
 * preset, and the open turns): kept step by step by the log, and over a snapshot of events.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-session-log-private.h"

/* ---- the fold, one event at a time ------------------------------------------------------- */

void
dsh_session_fold_init (DshSessionFold *fold)
{
  fold->open_turns = g_ptr_array_new_with_free_func (g_free);
  fold->mode = fold->policy = fold->preset = NULL;
}

void
dsh_session_fold_clear (DshSessionFold *fold)
{
  g_clear_pointer (&fold->open_turns, g_ptr_array_unref);
  g_clear_pointer (&fold->mode, g_free);
  g_clear_pointer (&fold->policy, g_free);
  g_clear_pointer (&fold->preset, g_free);
}

void
dsh_session_fold_copy (DshSessionFold *to, const DshSessionFold *from)
{
  dsh_session_fold_init (to);
  for (guint i = 0; i < from->open_turns->len; i++)
    g_ptr_array_add (to->open_turns, g_strdup (from->open_turns->pdata[i]));
  to->mode = g_strdup (from->mode);
  to->policy = g_strdup (from->policy);
  to->preset = g_strdup (from->preset);
}

gboolean
dsh_session_fold_find_turn (const DshSessionFold *fold, const char *id, guint *index)
{
  for (guint i = fold->open_turns->len; i > 0; i--)
    {
      if (g_str_equal (fold->open_turns->pdata[i - 1], id))
        {
          *index = i - 1;
          return TRUE;
        }
    }
  return FALSE;
}

gboolean
dsh_session_fold_accepts (const DshSessionFold *fold, const DshSessionEvent *event)
{
  const char *id = dsh_session_event_get_string (event, "id");
  guint index;

  switch (dsh_session_event_get_kind (event))
    {
    case DSH_SESSION_EVENT_TURN_END:
      return id == NULL ? fold->open_turns->len > 0 : dsh_session_fold_find_turn (fold, id, &index);
    case DSH_SESSION_EVENT_APPROVAL_ASKED:
    case DSH_SESSION_EVENT_APPROVAL_DECIDED:
      return fold->open_turns->len > 0;
    default:
      return TRUE;
    }
}

gboolean
dsh_session_fold_step (DshSessionFold *fold, const DshSessionEvent *event)
{
  const char *id = dsh_session_event_get_string (event, "id");
  guint index;

  if (!dsh_session_fold_accepts (fold, event))
    return FALSE;
  switch (dsh_session_event_get_kind (event))
    {
    case DSH_SESSION_EVENT_TURN_START:
      g_ptr_array_add (fold->open_turns, g_strdup (id != NULL ? id : ""));
      break;
    case DSH_SESSION_EVENT_TURN_END:
      if (id == NULL)
        g_ptr_array_remove_index (fold->open_turns, fold->open_turns->len - 1);
      else if (dsh_session_fold_find_turn (fold, id, &index))
        g_ptr_array_remove_index (fold->open_turns, index);
      break;
    case DSH_SESSION_EVENT_SANDBOX_MODE:
      g_free (fold->mode);
      fold->mode = g_strdup (dsh_session_event_get_string (event, "mode"));
      break;
    case DSH_SESSION_EVENT_APPROVAL_POLICY:
      g_free (fold->policy);
      fold->policy = g_strdup (dsh_session_event_get_string (event, "policy"));
      break;
    case DSH_SESSION_EVENT_PERMISSION_PRESET:
      g_free (fold->preset);
      fold->preset = g_strdup (dsh_session_event_get_string (event, "preset"));
      break;
    default:
      break;
    }
  return TRUE;
}

/* ---- folds over a snapshot of events ----------------------------------------------------- */

static void
fold_events (DshSessionFold *fold, GPtrArray *events)
{
  dsh_session_fold_init (fold);
  for (guint i = 0; i < events->len; i++)
    dsh_session_fold_step (fold, g_ptr_array_index (events, i));
}

static const DshSessionEvent *
last_of_kind (GPtrArray *events, DshSessionEventKind kind)
{
  for (guint i = events->len; i > 0; i--)
    {
      const DshSessionEvent *event = g_ptr_array_index (events, i - 1);

      if (dsh_session_event_get_kind (event) == kind)
        return event;
    }
  return NULL;
}

/**
 * dsh_session_events_last_mode:
 * @events: (element-type DshSessionEvent): a session's events
 * @out_mode: (out): the last `sandbox/mode`
 *
 * Returns: %TRUE with @out_mode set; %FALSE when the events never set a mode
 *
 * Since: 0.1
 */
gboolean
dsh_session_events_last_mode (GPtrArray *events, DshSandboxMode *out_mode)
{
  const DshSessionEvent *event;

  g_return_val_if_fail (events != NULL, FALSE);
  event = last_of_kind (events, DSH_SESSION_EVENT_SANDBOX_MODE);
  /* Every stored sandbox/mode passed validation, so parsing cannot fail here. */
  return event != NULL &&
         dsh_sandbox_mode_from_string (dsh_session_event_get_string (event, "mode"), out_mode,
                                       NULL);
}

/**
 * dsh_session_events_last_approval_policy:
 * @events: (element-type DshSessionEvent): a session's events
 * @out_policy: (out): the last `approval/policy`
 *
 * Returns: %TRUE with @out_policy set; %FALSE when the events never set a policy
 *
 * Since: 0.1
 */
gboolean
dsh_session_events_last_approval_policy (GPtrArray *events, DshApprovalPolicy *out_policy)
{
  const DshSessionEvent *event;

  g_return_val_if_fail (events != NULL, FALSE);
  event = last_of_kind (events, DSH_SESSION_EVENT_APPROVAL_POLICY);
  return event != NULL &&
         dsh_approval_policy_from_string (dsh_session_event_get_string (event, "policy"),
                                          out_policy, NULL);
}

/**
 * dsh_session_events_last_preset:
 * @events: (element-type DshSessionEvent): a session's events
 *
 * Returns: (transfer none) (nullable): the last recorded `permissionPresets/preset` name
 *
 * Since: 0.1
 */
const char *
dsh_session_events_last_preset (GPtrArray *events)
{
  const DshSessionEvent *event;

  g_return_val_if_fail (events != NULL, NULL);
  event = last_of_kind (events, DSH_SESSION_EVENT_PERMISSION_PRESET);
  return event != NULL ? dsh_session_event_get_string (event, "preset") : NULL;
}

/**
 * dsh_session_events_has_open_turn:
 * @events: (element-type DshSessionEvent): a session's events
 *
 * Returns: %TRUE when some `turn/start` has no matching `turn/end` yet
 *
 * Since: 0.1
 */
gboolean
dsh_session_events_has_open_turn (GPtrArray *events)
{
  DshSessionFold fold;
  gboolean open;

  g_return_val_if_fail (events != NULL, FALSE);
  fold_events (&fold, events);
  open = fold.open_turns->len > 0;
  dsh_session_fold_clear (&fold);
  return open;
}

/**
 * dsh_session_events_turn_is_open:
 * @events: (element-type DshSessionEvent): a session's events
 * @turn_id: a turn's id
 *
 * Returns: %TRUE when the turn with this id is open
 *
 * Since: 0.1
 */
gboolean
dsh_session_events_turn_is_open (GPtrArray *events, const char *turn_id)
{
  DshSessionFold fold;
  guint index;
  gboolean open;

  g_return_val_if_fail (events != NULL, FALSE);
  g_return_val_if_fail (turn_id != NULL, FALSE);
  fold_events (&fold, events);
  open = dsh_session_fold_find_turn (&fold, turn_id, &index);
  dsh_session_fold_clear (&fold);
  return open;
}
