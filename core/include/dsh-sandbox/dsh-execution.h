/* dsh-execution.h — one agent call of the bash tool: its turn in the session, an escalation the
 * model asked for (widening checked, then approval with its audit pair), the run itself
 * (dsh_run()), and the hint that tells the model a denied command could be retried wider.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gio/gio.h>

#include "dsh-approval-answerer.h"
#include "dsh-approval-service.h"
#include "dsh-run.h"
#include "dsh-session-log.h"
#include "dsh-api.h"

G_BEGIN_DECLS

#define DSH_TYPE_EXECUTION (dsh_execution_get_type ())
DSH_API
G_DECLARE_FINAL_TYPE (DshExecution, dsh_execution, DSH, EXECUTION, GObject)

/* Whether someone could be asked right now (a controlling terminal, say): the hint is offered
 * only then. Asked only after a denial. */
typedef gboolean (*DshExecutionAskableFunc) (gpointer user_data);

/* argv (non-empty) under policy, the standing one (from the session or the caller); session
 * (nullable: no turn, no audit, no approval) and service are referenced. */
DSH_API
DshExecution       *dsh_execution_new              (const char *const      *argv,
                                                    const DshSandboxPolicy *policy,
                                                    DshSessionLog          *session,
                                                    DshApprovalService     *service);

/* The caller's own approval policy for this call (default ask); never outranks the session's
 * never. */
DSH_API
void                dsh_execution_set_call_policy  (DshExecution           *self,
                                                    DshApprovalPolicy       policy);
/* The model asked to run this one command under requested (sandbox_permissions), saying why. */
DSH_API
void                dsh_execution_set_escalation   (DshExecution           *self,
                                                    DshSandboxMode          requested,
                                                    const char             *justification);
/* Who answers this call's approval request, scoped to its session (nullable: nobody). */
DSH_API
void                dsh_execution_set_answerer     (DshExecution           *self,
                                                    DshApprovalAnswerer    *answerer);
/* Besides a set answerer, who else could be asked for the retry the hint offers. */
DSH_API
void                dsh_execution_set_askable_func (DshExecution           *self,
                                                    DshExecutionAskableFunc askable,
                                                    gpointer                user_data,
                                                    GDestroyNotify          destroy);
/* This call's id as the harness knows it (default: a fresh uuid). */
DSH_API
void                dsh_execution_set_call_id      (DshExecution           *self,
                                                    const char             *call_id);
/* How the command runs (copied, the strings borrowed until dsh_execution_run() returns; NULL:
 * the defaults). */
DSH_API
void                dsh_execution_set_run_options  (DshExecution           *self,
                                                    const DshRunOptions    *options);

/* Would running ask somebody (an escalation that widens, a session, approval policy ask)? A
 * caller can build an expensive answerer only then. */
DSH_API
gboolean            dsh_execution_will_ask         (DshExecution           *self);

/* Opens this call's turn in the session (nothing without one). FALSE: nothing may run. */
DSH_API
gboolean            dsh_execution_begin            (DshExecution           *self,
                                                    GError                **error);
/* The whole call: escalation, run, hint, end of the turn. Call once. Never NULL. */
DSH_API
DshRunResult       *dsh_execution_run              (DshExecution           *self);
/* The escalation alone, for a harness that runs the command itself. */
DSH_API
gboolean            dsh_execution_escalate         (DshExecution           *self,
                                                    DshSandboxMode         *out_mode,
                                                    GError                **error);
/* Closes the turn now; FALSE when the log could not take turn/end. */
DSH_API
gboolean            dsh_execution_end              (DshExecution           *self,
                                                    GError                **error);

DSH_API
const char *const  *dsh_execution_get_argv         (DshExecution           *self);
DSH_API
const DshSandboxPolicy *dsh_execution_get_policy   (DshExecution           *self);
DSH_API
gboolean            dsh_execution_get_escalation   (DshExecution           *self,
                                                    DshSandboxMode         *out_requested,
                                                    const char            **out_justification);
DSH_API
const char         *dsh_execution_get_call_id      (DshExecution           *self);
DSH_API
gboolean            dsh_execution_get_asked        (DshExecution           *self,
                                                    DshApprovalOutcome     *out_outcome);
DSH_API
const char         *dsh_execution_get_hint         (DshExecution           *self);
DSH_API
const GError       *dsh_execution_get_end_error    (DshExecution           *self);

G_END_DECLS
