/* dsh-cli-environment.h — the "Environment:" section of each subcommand's --help.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The variables that change command ("exec", "session"...), one per line, under a heading. */
char *dsh_cli_environment_help     (const char     *command);
/* Sets it as the description --help prints after the options. */
void  dsh_cli_describe_environment (GOptionContext *context,
                                    const char     *command);

G_END_DECLS
