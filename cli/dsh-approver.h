/* dsh-approver.h — the interactive answerer "dsh-sandbox exec" asks when no approver command
 * (DshCommandAnswerer, in the library) was given: the prompt on the controlling terminal.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <dsh-sandbox.h>

G_BEGIN_DECLS

/* Asks on /dev/tty: y/yes is allowed-once, n/no is rejected, end of input or ^C is cancelled.
 * Creating it fails when the process has no controlling terminal. */
#define DSH_TYPE_TTY_APPROVER (dsh_tty_approver_get_type ())
G_DECLARE_FINAL_TYPE (DshTtyApprover, dsh_tty_approver, DSH, TTY_APPROVER, GObject)

DshTtyApprover     *dsh_tty_approver_new     (GError     **error);
/* Whether a controlling terminal could be asked right now. */
gboolean            dsh_tty_approver_available (void);

G_END_DECLS
