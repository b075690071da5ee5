/* dsh-serve-confined.h — serve's confine response as one line of text.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "dsh-cli.h"

G_BEGIN_DECLS

/* {"id": id, "result": ConfinedArgv} without a newline, appended to out; FALSE (out holding
 * part of it) for an id of another kind (the caller then writes it the general way). */
gboolean dsh_serve_confined_append (GString         *out,
                                    JsonNode        *id,
                                    DshConfinedArgv *confined);

G_END_DECLS
