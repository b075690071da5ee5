/* dsh-stderr-relay-private.h — a command's stderr, moved on to ours as it comes while a copy
 * is kept for classification.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "dsh-confinement-private.h"

G_BEGIN_DECLS

typedef struct _DshStderrRelay DshStderrRelay;

/* A relay that passes the bytes on to our stderr when echo is set and appends what it keeps
 * to captured: the head, then from a flood a line proving a denial in confinement's dialect
 * (when confinement is not NULL) and the tail. confinement and captured must outlive it. */
DshStderrRelay *dsh_stderr_relay_new (gboolean              echo,
                                      const DshConfinement *confinement,
                                      GString              *captured);

/* Moves what the pipe err_fd holds; call it when poll says err_fd is readable. FALSE once the
 * pipe is closed or failed. */
gboolean dsh_stderr_relay_pump (DshStderrRelay *relay, int err_fd);

/* Appends the kept tail to captured and frees the relay. Returns TRUE when what it passed on
 * to our stderr stopped in the middle of a line (its last byte is not a newline). */
gboolean dsh_stderr_relay_finish (DshStderrRelay *relay);

G_END_DECLS
