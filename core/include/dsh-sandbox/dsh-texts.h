/* dsh-texts.h — every exact text a user or a model is shown, in one place.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

#include "dsh-approval-vocabulary.h"
#include "dsh-mode.h"
#include "dsh-api.h"

G_BEGIN_DECLS

/* The SANDBOX_UNAVAILABLE message for a requested mode. */
DSH_API
char  *dsh_text_unavailable          (const char     *mode);
/* The unavailable message followed by "Cause: <cause>": why no candidate was usable. */
DSH_API
char  *dsh_text_unavailable_cause    (const char     *mode,
                                      const char     *cause);
/* The unavailable message followed by "Runner failure: <detail>". */
DSH_API
char  *dsh_text_runner_failure       (const char     *mode,
                                      const char     *detail);
/* "[sandbox: file access denied under <mode> mode]" */
DSH_API
char  *dsh_text_denial_marker        (DshSandboxMode  mode);
/* The escalation hint marker; subject is "command" (bash) or "operation" (fs). */
DSH_API
char  *dsh_text_escalation_hint      (const char     *subject);

/* The model-facing policy context: names no tools, summarises temporary areas without
 * enumerating them, and tells the model not to refuse a required modification from the policy
 * alone. workspace_root (the canonical root) is named only under workspace-write. */
DSH_API
char  *dsh_text_policy_context       (DshSandboxMode  mode,
                                      const char     *workspace_root);
/* The same, naming the extra writable roots (NULL or empty: none) under workspace-write. */
DSH_API
char  *dsh_text_policy_context_with_roots (DshSandboxMode     mode,
                                           const char        *workspace_root,
                                           const char *const *extra_roots);
/* The runtime context of one call, where per-session facts go (tool descriptions stay
 * registry-level): the policy context naming extra_roots, then, when approval_policy is
 * "never", a blank line and dsh_text_approval_never(). */
DSH_API
char  *dsh_text_runtime_context      (DshSandboxMode     mode,
                                      const char        *workspace_root,
                                      const char *const *extra_roots,
                                      DshApprovalPolicy  approval_policy);

/* ---- approval and escalation ------------------------------------------------------------ */

/* Refusal of an approval request made outside an open turn. */
DSH_API
const char *dsh_text_approval_outside_turn     (void);
/* The notice a host injects after the user changed the approval policy. */
DSH_API
char       *dsh_text_approval_policy_changed   (const char     *previous,
                                                const char     *policy);
/* What the model is told when approval prompts are disabled (policy "never"). */
DSH_API
const char *dsh_text_approval_never            (void);

/* validateEscalationArgs, both directions, and the empty justification. */
DSH_API
const char *dsh_text_escalation_needs_justification   (void);
DSH_API
const char *dsh_text_escalation_orphan_justification  (void);
DSH_API
const char *dsh_text_escalation_empty_justification   (void);
/* An unadvertised sandbox_permissions reaching an executor that does not confine. */
DSH_API
const char *dsh_text_escalation_not_composed   (void);

/* The ordered fail-closed sequence, one text per way it can end without a grant. */
DSH_API
char       *dsh_text_escalation_not_wider      (const char     *mode,
                                                const char     *effective_mode);
DSH_API
char       *dsh_text_escalation_no_service     (const char     *mode);
DSH_API
char       *dsh_text_escalation_no_agent       (const char     *mode);
DSH_API
char       *dsh_text_escalation_rejected       (const char     *subject,
                                                const char     *mode);
DSH_API
char       *dsh_text_escalation_cancelled      (const char     *mode);
DSH_API
char       *dsh_text_escalation_unavailable    (const char     *mode);
/* The approval reason; the target mode is part of the grant's identity. */
DSH_API
char       *dsh_text_escalation_reason         (const char     *mode,
                                                const char     *justification);

/* The bash tool description, and the escalation paragraph it carries when its executor
 * confines. */
DSH_API
const char *dsh_text_bash_description          (void);
DSH_API
const char *dsh_text_bash_escalation_paragraph (void);

G_END_DECLS
