/* dsh-texts.c — the exact texts users and models see. Tests compare them verbatim, so they are
 * spelled out once, here.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-texts.h"

/**
 * dsh_text_unavailable:
 * @mode: the requested mode's name
 *
 * Returns: (transfer full): the `SANDBOX_UNAVAILABLE` message for @mode
 *
 * Since: 0.1
 */
char *
dsh_text_unavailable (const char *mode)
{
  return g_strdup_printf (
    "sandbox mode \"%s\" is requested but no sandbox backend is usable on this host; refusing to "
    "run the command unconfined. Install bubblewrap or run a Landlock-enforcing kernel (Linux), "
    "ensure sandbox-exec is usable (macOS), or ensure the ACL restricted-token runner can start "
    "(Windows) \u2014 otherwise switch the consumer to danger-full-access.",
    mode);
}

/**
 * dsh_text_unavailable_cause:
 * @mode: the requested mode's name
 * @cause: why no candidate was usable
 *
 * Returns: (transfer full): the unavailable message followed by `Cause: CAUSE`
 *
 * Since: 0.1
 */
/**
 * dsh_text_runner_failure:
 * @mode: the requested mode's name
 * @detail: what the runner reported
 *
 * Returns: (transfer full): the unavailable message followed by `Runner failure: DETAIL`
 *
 * Since: 0.1
 */
char *
dsh_text_unavailable_cause (const char *mode, const char *cause)
{
  g_autofree char *unavailable = dsh_text_unavailable (mode);

  return g_strdup_printf ("%s Cause: %s", unavailable, cause);
}

char *
dsh_text_runner_failure (const char *mode, const char *detail)
{
  g_autofree char *unavailable = dsh_text_unavailable (mode);

  return g_strdup_printf ("%s Runner failure: %s", unavailable, detail);
}

/**
 * dsh_text_denial_marker:
 * @mode: the mode the command ran under
 *
 * Returns: (transfer full): `[sandbox: file access denied under MODE mode]`
 *
 * Since: 0.1
 */
char *
dsh_text_denial_marker (DshSandboxMode mode)
{
  return g_strdup_printf ("[sandbox: file access denied under %s mode]",
                          dsh_sandbox_mode_to_string (mode));
}

/**
 * dsh_text_escalation_hint:
 * @subject: `command` (bash) or `operation` (a file tool)
 *
 * Returns: (transfer full): the marker that tells a model an escalation could still be approved
 *
 * Since: 0.1
 */
char *
dsh_text_escalation_hint (const char *subject)
{
  return g_strdup_printf (
    "[sandbox: escalation available \u2014 retry this exact %s once with sandbox_permissions "
    "(the narrowest wider mode that suffices) + justification; the approval prompt asks the user]",
    subject);
}

/**
 * dsh_text_policy_context:
 * @mode: the standing mode
 * @workspace_root: (nullable): the canonical workspace root, named only under `workspace-write`
 *
 * The model-facing policy context: it names no tools, summarises temporary areas without listing
 * them, and tells the model not to refuse a required modification from the policy alone.
 *
 * Returns: (transfer full): the policy context
 *
 * Since: 0.1
 */
/* The three variants share one voice: what the standing mode lets "any available operation
 * enforced by the DSH file sandbox" do (never a tool name: the policy owner does not know which
 * tools are mounted), then the same instruction not to give up from the policy alone. */
char *
dsh_text_policy_context (DshSandboxMode mode, const char *workspace_root)
{
  return dsh_text_policy_context_with_roots (mode, workspace_root, NULL);
}

/**
 * dsh_text_policy_context_with_roots:
 * @mode: the standing mode
 * @workspace_root: (nullable): the canonical workspace root
 * @extra_roots: (array zero-terminated=1) (nullable): the extra writable roots, named under
 *   `workspace-write`
 *
 * dsh_text_policy_context() naming the extra writable roots.
 *
 * Returns: (transfer full): the policy context
 *
 * Since: 0.1
 */
char *
dsh_text_policy_context_with_roots (DshSandboxMode mode,
                                    const char *workspace_root,
                                    const char *const *extra_roots)
{
  g_autofree char *extra = NULL;
  static const char do_not_refuse[] =
    "Do not refuse a required modification from this policy alone: try an available tool "
    "normally and follow any denial and escalation guidance it returns.";

  switch (mode)
    {
    case DSH_SANDBOX_MODE_READ_ONLY:
      return g_strdup_printf (
        "Current DSH file policy: read-only. Any available operation enforced by the DSH file "
        "sandbox cannot modify files in the standing mode. %s",
        do_not_refuse);

    case DSH_SANDBOX_MODE_WORKSPACE_WRITE:
      /* Temporary areas are summarised: backends pick them after policy resolution, so they
       * cannot be enumerated truthfully here. Extra roots are known now, and named. */
      if (extra_roots != NULL && extra_roots[0] != NULL)
        {
          g_autofree char *joined = g_strjoinv (", ", (char **) extra_roots);

          extra = g_strdup_printf (" These extra directories are writable as well: %s.", joined);
        }
      return g_strdup_printf (
        "Current DSH file policy: workspace-write. Any available operation enforced by the DSH "
        "file sandbox can modify files only inside the session workspace %s in the standing "
        "mode.%s Some platform temporary areas may also be writable. %s",
        workspace_root != NULL ? workspace_root : "(unknown)", extra != NULL ? extra : "",
        do_not_refuse);

    case DSH_SANDBOX_MODE_DANGER_FULL_ACCESS:
      return g_strdup (
        "Current DSH file policy: danger-full-access. Available operations are not confined by "
        "the DSH file sandbox in the standing mode, so this policy does not prevent file "
        "modifications. Do not refuse a required modification from this policy alone: try an "
        "available tool normally and follow any error guidance it returns.");

    default:
      g_return_val_if_reached (NULL);
    }
}

/**
 * dsh_text_runtime_context:
 * @mode: the standing mode
 * @workspace_root: (nullable): the canonical workspace root
 * @extra_roots: (array zero-terminated=1) (nullable): the extra writable roots
 * @approval_policy: the session's effective approval policy
 *
 * The runtime context of one call: dsh_text_policy_context_with_roots(), then, under
 * %DSH_APPROVAL_POLICY_NEVER, a blank line and dsh_text_approval_never().
 *
 * Returns: (transfer full): the runtime context
 *
 * Since: 0.1
 */
char *
dsh_text_runtime_context (DshSandboxMode mode,
                          const char *workspace_root,
                          const char *const *extra_roots,
                          DshApprovalPolicy approval_policy)
{
  g_autofree char *policy = dsh_text_policy_context_with_roots (mode, workspace_root, extra_roots);

  if (approval_policy != DSH_APPROVAL_POLICY_NEVER)
    return g_steal_pointer (&policy);
  return g_strconcat (policy, "\n\n", dsh_text_approval_never (), NULL);
}

/* ---- approval and escalation --------------------------------------------------------------- */

/**
 * dsh_text_approval_outside_turn:
 *
 * Returns: (transfer none): the refusal of an approval request made outside an open turn
 *
 * Since: 0.1
 */
const char *
dsh_text_approval_outside_turn (void)
{
  return "approval.request() outside an open turn: the approval/asked + approval/decided audit "
         "pair must be turn-enclosed (a bare event between turns is crash-tail garbage on "
         "reload). Ask from inside the turn that needs the decision.";
}

/**
 * dsh_text_approval_policy_changed:
 * @previous: the previous approval policy's name
 * @policy: the new approval policy's name
 *
 * Returns: (transfer full): the notice a host injects after the user changed the approval policy
 *
 * Since: 0.1
 */
char *
dsh_text_approval_policy_changed (const char *previous, const char *policy)
{
  return g_strdup_printf ("The approval policy changed from \"%s\" to \"%s\" (changed by the "
                          "user).",
                          previous, policy);
}

/**
 * dsh_text_approval_never:
 *
 * Returns: (transfer none): what a model is told when approval prompts are disabled
 *
 * Since: 0.1
 */
const char *
dsh_text_approval_never (void)
{
  return "Approval prompts are disabled in this session: actions that require approval are "
         "rejected automatically \u2014 do not request sandbox escalation (do not set "
         "`sandbox_permissions`).";
}

/**
 * dsh_text_escalation_needs_justification:
 *
 * Returns: (transfer none): the refusal of `sandbox_permissions` without a justification
 *
 * Since: 0.1
 */
const char *
dsh_text_escalation_needs_justification (void)
{
  return "invalid escalation: sandbox_permissions requires a justification";
}

/**
 * dsh_text_escalation_orphan_justification:
 *
 * Returns: (transfer none): the refusal of a justification without `sandbox_permissions`
 *
 * Since: 0.1
 */
const char *
dsh_text_escalation_orphan_justification (void)
{
  return "invalid escalation: justification is only valid together with sandbox_permissions";
}

/**
 * dsh_text_escalation_empty_justification:
 *
 * Returns: (transfer none): the refusal of a justification without a non-blank character
 *
 * Since: 0.1
 */
const char *
dsh_text_escalation_empty_justification (void)
{
  return "invalid justification: expected a non-empty sentence";
}

/**
 * dsh_text_escalation_not_composed:
 *
 * Returns: (transfer none): the refusal of `sandbox_permissions` reaching an executor that does
 *   not confine
 *
 * Since: 0.1
 */
const char *
dsh_text_escalation_not_composed (void)
{
  return "sandbox_permissions is not available in this composition (no sandboxing executor to "
         "escalate)";
}

/**
 * dsh_text_escalation_not_wider:
 * @mode: the requested mode's name
 * @effective_mode: the call's effective mode's name
 *
 * Returns: (transfer full): the refusal of a requested mode that is not strictly wider
 *
 * Since: 0.1
 */
char *
dsh_text_escalation_not_wider (const char *mode, const char *effective_mode)
{
  return g_strdup_printf ("sandbox escalation to \"%s\" is not strictly wider than this call's "
                          "current \"%s\" mode",
                          mode, effective_mode);
}

/**
 * dsh_text_escalation_no_service:
 * @mode: the requested mode's name
 *
 * Returns: (transfer full): the refusal when no approval service is composed
 *
 * Since: 0.1
 */
char *
dsh_text_escalation_no_service (const char *mode)
{
  return g_strdup_printf ("sandbox escalation to \"%s\" requires approval, but no approval "
                          "service is composed",
                          mode);
}

/**
 * dsh_text_escalation_no_agent:
 * @mode: the requested mode's name
 *
 * Returns: (transfer full): the refusal when the call has no session to ask through
 *
 * Since: 0.1
 */
char *
dsh_text_escalation_no_agent (const char *mode)
{
  return g_strdup_printf ("sandbox escalation to \"%s\" requires approval, but the call has no "
                          "agent to route it through",
                          mode);
}

/**
 * dsh_text_escalation_rejected:
 * @subject: `command` or `operation`
 * @mode: the requested mode's name
 *
 * Returns: (transfer full): the refusal after the user rejected the escalation
 *
 * Since: 0.1
 */
char *
dsh_text_escalation_rejected (const char *subject, const char *mode)
{
  return g_strdup_printf ("the user rejected escalating this %s to \"%s\"", subject, mode);
}

/**
 * dsh_text_escalation_cancelled:
 * @mode: the requested mode's name
 *
 * Returns: (transfer full): the refusal after the question was cancelled
 *
 * Since: 0.1
 */
char *
dsh_text_escalation_cancelled (const char *mode)
{
  return g_strdup_printf ("approval for escalating to \"%s\" was cancelled", mode);
}

/**
 * dsh_text_escalation_unavailable:
 * @mode: the requested mode's name
 *
 * Returns: (transfer full): the refusal when nobody could answer
 *
 * Since: 0.1
 */
char *
dsh_text_escalation_unavailable (const char *mode)
{
  return g_strdup_printf ("sandbox escalation to \"%s\" requires approval, but no approval "
                          "channel is available",
                          mode);
}

/**
 * dsh_text_escalation_reason:
 * @mode: the requested mode's name
 * @justification: the model's justification
 *
 * Returns: (transfer full): the approval reason; the target mode is part of the grant's identity
 *
 * Since: 0.1
 */
char *
dsh_text_escalation_reason (const char *mode, const char *justification)
{
  return g_strdup_printf ("escalate sandbox to %s: %s", mode, justification);
}

/**
 * dsh_text_bash_description:
 *
 * Returns: (transfer none): the base description of a sandboxed bash tool
 *
 * Since: 0.1
 */
/* The base description is this project's own; only the escalation paragraph is a fixed text. */
const char *
dsh_text_bash_description (void)
{
  return "Run a shell command with `bash -c` in the session's working directory and return its "
         "exit status, stdout and stderr. File effects are confined by the DSH file sandbox "
         "under the session's standing mode; when the sandbox refuses a file effect the result "
         "ends with a line starting with `[sandbox:`.";
}

/**
 * dsh_text_bash_escalation_paragraph:
 *
 * Returns: (transfer none): the paragraph the bash description carries when its executor confines
 *
 * Since: 0.1
 */
const char *
dsh_text_bash_escalation_paragraph (void)
{
  return "Attempting a command the sandbox may deny is safe and expected: run it and read the "
         "marker rather than assuming the denial. When a command is denied and a wider mode "
         "would let it succeed, escalate immediately in the same turn \u2014 the one sanctioned "
         "exception to a denial: retry the exact same command once with `sandbox_permissions` "
         "(the narrowest wider mode that suffices) plus a one-sentence `justification`. Do not "
         "detour through chat to ask permission first \u2014 the approval prompt raised by that "
         "retry is how the user consents. If the session states approval prompts are disabled, "
         "there is no exception: a denial is final \u2014 do not set `sandbox_permissions`. Never "
         "escalate speculatively: ground the request in a real denial \u2014 normally the one "
         "this command just hit; escalating up front is fine only when this session already "
         "denied the same access. A rejected escalation is final for that command \u2014 stop "
         "and explain, never work around it \u2014 but it does not forbid attempting or "
         "escalating other commands later.";
}
