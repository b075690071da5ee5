/* dsh-report-destination.h — where "exec --report" writes: a file, "-" (standard output, after
 * the command's own output) or an inherited descriptor named /dev/fd/N.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* A close-on-exec descriptor to write the report to, or -1 with an error naming the path. */
int         dsh_report_destination_open (const char  *path,
                                         GError     **error);

/* The value of --report among options (argv[0] is the subcommand, no "--" or command after
 * them), read without the option parser: a report is owed even when the options do not parse.
 * NULL when there is none. */
const char *dsh_report_option_find      (int          argc,
                                         char *const *argv);

G_END_DECLS
