/* dsh-test-seed-texts.h — the exact model-facing texts, copied from the source documents
 * (shared/seeds/002 for the unavailable text, seed 003 §3 and §5 for the rest) and never taken
 * from the library: a test that compares the library's constant with itself proves nothing.
 *
 * Texts with a placeholder come twice: a macro that splices a literal (MODE is a string literal)
 * and a printf format (%s in the placeholder's place) for a value known at run time.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <dsh-sandbox.h>

/* Seed 002, "精确错误". */
#define SEED_UNAVAILABLE(mode) \
  "sandbox mode \"" mode "\" is requested but no sandbox backend is usable on this host; " \
  "refusing to run the command unconfined. Install bubblewrap or run a Landlock-enforcing " \
  "kernel (Linux), ensure sandbox-exec is usable (macOS), or ensure the ACL restricted-token " \
  "runner can start (Windows) \u2014 otherwise switch the consumer to danger-full-access."
#define SEED_UNAVAILABLE_FMT SEED_UNAVAILABLE ("%s")

/* Seed 003 §3, renderPolicyContext() read-only, verbatim. */
#define SEED_POLICY_CONTEXT_READ_ONLY \
  "Current DSH file policy: read-only. Any available operation enforced by the DSH file " \
  "sandbox cannot modify files in the standing mode. Do not refuse a required modification " \
  "from this policy alone: try an available tool normally and follow any denial and " \
  "escalation guidance it returns."
/* Seed 003 §3 gives workspace-write only as prose around one English sentence; this is the
 * reading of it the project chose (README "Model-facing texts"), spelled out here so a change
 * to it is a deliberate one. */
#define SEED_POLICY_CONTEXT_WORKSPACE_WRITE_FMT \
  "Current DSH file policy: workspace-write. Any available operation enforced by the DSH file " \
  "sandbox can modify files only inside the session workspace %s in the standing mode. Some " \
  "platform temporary areas may also be writable. Do not refuse a required modification from " \
  "this policy alone: try an available tool normally and follow any denial and escalation " \
  "guidance it returns."
/* Not in the seeds at all: the project's own, in the same voice. */
#define SEED_POLICY_CONTEXT_DANGER_FULL_ACCESS \
  "Current DSH file policy: danger-full-access. Available operations are not confined by the " \
  "DSH file sandbox in the standing mode, so this policy does not prevent file modifications. " \
  "Do not refuse a required modification from this policy alone: try an available tool " \
  "normally and follow any error guidance it returns."

/* The policy context of mode (any of the three) naming workspace; newly allocated. */
static inline char *
seed_policy_context (DshSandboxMode mode, const char *workspace)
{
  switch (mode)
    {
    case DSH_SANDBOX_MODE_READ_ONLY:
      return g_strdup (SEED_POLICY_CONTEXT_READ_ONLY);
    case DSH_SANDBOX_MODE_WORKSPACE_WRITE:
      return g_strdup_printf (SEED_POLICY_CONTEXT_WORKSPACE_WRITE_FMT, workspace);
    case DSH_SANDBOX_MODE_DANGER_FULL_ACCESS:
    default:
      return g_strdup (SEED_POLICY_CONTEXT_DANGER_FULL_ACCESS);
    }
}

/* Seed 003 §4.4, request(). */
#define SEED_APPROVAL_OUTSIDE_TURN \
  "approval.request() outside an open turn: the approval/asked + approval/decided audit " \
  "pair must be turn-enclosed (a bare event between turns is crash-tail garbage on reload). " \
  "Ask from inside the turn that needs the decision."
/* Seed 003 §4.6, setPolicy(). */
#define SEED_APPROVAL_POLICY_CHANGED(previous, policy) \
  "The approval policy changed from \"" previous "\" to \"" policy "\" (changed by the user)."
/* Seed 003 §4.6, what "never" tells the model. */
#define SEED_APPROVAL_NEVER \
  "Approval prompts are disabled in this session: actions that require approval are " \
  "rejected automatically \u2014 do not request sandbox escalation (do not set " \
  "`sandbox_permissions`)."

/* Seed 003 §5.2, validateEscalationArgs(). */
#define SEED_NEEDS_JUSTIFICATION \
  "invalid escalation: sandbox_permissions requires a justification"
#define SEED_ORPHAN_JUSTIFICATION \
  "invalid escalation: justification is only valid together with sandbox_permissions"
#define SEED_EMPTY_JUSTIFICATION \
  "invalid justification: expected a non-empty sentence"

/* Seed 003 §5.3, approveEscalation(), in the order of the sequence. */
#define SEED_NOT_WIDER(mode, effective) \
  "sandbox escalation to \"" mode "\" is not strictly wider than this call's current \"" \
  effective "\" mode"
#define SEED_NO_SERVICE(mode) \
  "sandbox escalation to \"" mode "\" requires approval, but no approval service is composed"
#define SEED_NO_AGENT(mode) \
  "sandbox escalation to \"" mode "\" requires approval, but the call has no agent to route " \
  "it through"
#define SEED_REJECTED(subject, mode) \
  "the user rejected escalating this " subject " to \"" mode "\""
#define SEED_CANCELLED(mode) \
  "approval for escalating to \"" mode "\" was cancelled"
#define SEED_UNAVAILABLE_CHANNEL(mode) \
  "sandbox escalation to \"" mode "\" requires approval, but no approval channel is available"
#define SEED_REASON(mode, justification) \
  "escalate sandbox to " mode ": " justification

/* Seed 003 §5.4, the two markers. */
#define SEED_DENIAL_MARKER(mode) "[sandbox: file access denied under " mode " mode]"
#define SEED_DENIAL_MARKER_FMT SEED_DENIAL_MARKER ("%s")
#define SEED_ESCALATION_HINT(subject) \
  "[sandbox: escalation available \u2014 retry this exact " subject " once with " \
  "sandbox_permissions (the narrowest wider mode that suffices) + justification; the approval " \
  "prompt asks the user]"

/* The base description of the bash tool is the project's own (the seeds give only the
 * paragraph appended to it), spelled out so a change to it is a deliberate one. */
#define SEED_BASH_DESCRIPTION_BASE \
  "Run a shell command with `bash -c` in the session's working directory and return its exit " \
  "status, stdout and stderr. File effects are confined by the DSH file sandbox under the " \
  "session's standing mode; when the sandbox refuses a file effect the result ends with a line " \
  "starting with `[sandbox:`."

/* Seed 003 §5.5, the paragraph bashDescription() appends when the executor confines, and the
 * refusal of an unadvertised sandbox_permissions. */
#define SEED_BASH_ESCALATION_PARAGRAPH \
  "Attempting a command the sandbox may deny is safe and expected: run it and read the marker " \
  "rather than assuming the denial. When a command is denied and a wider mode would let it " \
  "succeed, escalate immediately in the same turn \u2014 the one sanctioned exception to a " \
  "denial: retry the exact same command once with `sandbox_permissions` (the narrowest wider " \
  "mode that suffices) plus a one-sentence `justification`. Do not detour through chat to ask " \
  "permission first \u2014 the approval prompt raised by that retry is how the user consents. " \
  "If the session states approval prompts are disabled, there is no exception: a denial is " \
  "final \u2014 do not set `sandbox_permissions`. Never escalate speculatively: ground the " \
  "request in a real denial \u2014 normally the one this command just hit; escalating up front " \
  "is fine only when this session already denied the same access. A rejected escalation is " \
  "final for that command \u2014 stop and explain, never work around it \u2014 but it does not " \
  "forbid attempting or escalating other commands later."
#define SEED_NOT_COMPOSED \
  "sandbox_permissions is not available in this composition (no sandboxing executor to " \
  "escalate)"
