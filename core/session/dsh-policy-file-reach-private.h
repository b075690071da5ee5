/* dsh-policy-file-reach-private.h — a file that decides policy (a session log, the deployment
 * configuration) is trusted only where no confined command could have rewritten it: else a
 * command would set its own next policy.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Refuses path (canonical: its canonical form, for the message; what names the file) beneath a
 * directory some call ever granted as a writable root, with a SESSION_LOG error. */
gboolean dsh_policy_file_check_never_granted (const char  *what,
                                              const char  *path,
                                              const char  *canonical,
                                              GError     **error);

/* Refuses path beneath, or reached through, a writable root of a workspace-write call of
 * workspace_root (the workspace, /tmp, the temp directory, extra_roots), and beneath a
 * directory ever granted, with a SESSION_LOG error. */
gboolean dsh_policy_file_check_out_of_reach  (const char         *what,
                                              const char         *path,
                                              const char         *workspace_root,
                                              const char *const  *extra_roots,
                                              GError            **error);

G_END_DECLS
