/* dsh-texts.h — every exact text a user or a model is shown, in one place.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

#include "dsh-mode.h"

G_BEGIN_DECLS

/* The SANDBOX_UNAVAILABLE message for a requested mode. */
char  *dsh_text_unavailable          (const char     *mode);
/* The unavailable message followed by "Runner failure: <detail>". */
char  *dsh_text_runner_failure       (const char     *mode,
                                      const char     *detail);
/* "[sandbox: file access denied under <mode> mode]" */
char  *dsh_text_denial_marker        (DshSandboxMode  mode);
/* The escalation hint marker; subject is "command" (bash) or "operation" (fs). */
char  *dsh_text_escalation_hint      (const char     *subject);

G_END_DECLS
