/* dsh-escalation-channel.c — an escalation channel that owns what it points to, so that
 * bindings, which cannot lend borrowed pointers to a struct, can build one.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-escalation.h"

/* GLib's boxed-type macro converts to a transparent union, which -Wpedantic rejects. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
G_DEFINE_BOXED_TYPE (DshEscalationChannel, dsh_escalation_channel, dsh_escalation_channel_copy,
                     dsh_escalation_channel_free)
#pragma GCC diagnostic pop

/**
 * dsh_escalation_channel_new:
 * @service: (nullable): the approval service (an escalation without one is refused)
 * @session: (nullable): the session the question goes through (without one it is refused)
 * @call_policy: the caller's own per-call approval policy
 * @tool_name: (nullable): the asking tool (%NULL: `bash`)
 * @call_id: (nullable): the tool's id of this call, required once a person is asked
 * @subject: (nullable): the noun of the rejected text: `command` (%NULL) or `operation`
 * @details: (nullable): facts for the answerers, copied
 *
 * A channel that holds references to @service and @session and copies of the rest; C callers
 * usually fill a #DshEscalationChannel on the stack instead.
 *
 * Returns: (transfer full): a new channel; free it with dsh_escalation_channel_free()
 *
 * Since: 0.1
 */
DshEscalationChannel *
dsh_escalation_channel_new (DshApprovalService *service,
                            DshSessionLog *session,
                            DshApprovalPolicy call_policy,
                            const char *tool_name,
                            const char *call_id,
                            const char *subject,
                            JsonObject *details)
{
  DshEscalationChannel *channel = g_new0 (DshEscalationChannel, 1);

  channel->service = service != NULL ? g_object_ref (service) : NULL;
  channel->session = session != NULL ? g_object_ref (session) : NULL;
  channel->call_policy = call_policy;
  channel->tool_name = g_strdup (tool_name);
  channel->call_id = g_strdup (call_id);
  channel->subject = g_strdup (subject);
  channel->details = details != NULL ? json_object_ref (details) : NULL;
  return channel;
}

/**
 * dsh_escalation_channel_copy:
 * @channel: a channel
 *
 * Returns: (transfer full): a channel that owns its own references and copies of @channel's
 *
 * Since: 0.1
 */
DshEscalationChannel *
dsh_escalation_channel_copy (const DshEscalationChannel *channel)
{
  g_return_val_if_fail (channel != NULL, NULL);
  return dsh_escalation_channel_new (channel->service, channel->session, channel->call_policy,
                                     channel->tool_name, channel->call_id, channel->subject,
                                     channel->details);
}

/**
 * dsh_escalation_channel_free:
 * @channel: (nullable) (transfer full): a channel from dsh_escalation_channel_new() or
 *   dsh_escalation_channel_copy()
 *
 * Drops the channel's references and frees its copies.
 *
 * Since: 0.1
 */
void
dsh_escalation_channel_free (DshEscalationChannel *channel)
{
  if (channel == NULL)
    return;
  g_clear_object (&channel->service);
  g_clear_object (&channel->session);
  g_free ((char *) channel->tool_name);
  g_free ((char *) channel->call_id);
  g_free ((char *) channel->subject);
  g_clear_pointer (&channel->details, json_object_unref);
  g_free (channel);
}
