/* dsh-exec-run.h — what exec prints and records once the library has run a command: the denial
 * marker and hint, the report, and the one refusal line when it never ran. Shared by the plain
 * exec and the one with sessions and approval.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "dsh-cli.h"
#include "dsh-exec-report.h"

G_BEGIN_DECLS

typedef struct _DshExecRun DshExecRun;

struct _DshExecRun {
  DshExecReport report;
  int report_fd;
  /* The workspace as the caller spelled it (option or current directory), checked for planted
   * symlinks before a workspace-write run. */
  const char *spelled_workspace;
};

void      dsh_exec_run_init        (DshExecRun             *run);
void      dsh_exec_run_clear       (DshExecRun             *run);

/* Opened before anything runs: a report that cannot be written must stop the command, not be
 * lost after it. NULL path: no report; a file path, "-" (standard output) or /dev/fd/N (an
 * inherited descriptor), see dsh-report-destination.h. Opens at most once. */
gboolean  dsh_exec_run_open_report (DshExecRun             *run,
                                    const char             *path,
                                    GError                **error);

/* The command never ran: the report, one "dsh-sandbox:" line, DSH_EXIT_NOT_RUN. */
int       dsh_exec_run_refuse      (DshExecRun             *run,
                                    DshOutcome              outcome,
                                    const char             *message);

/* A refusal before the policy is known or the report opened (an option, the policy, a root, the
 * session): opens the report at report_path (the --report value, or NULL) if it is not open,
 * writes it (outcome root-refused, unavailable or, for anything else, invalid-argument) and
 * prints the one line of error. */
int       dsh_exec_run_refuse_before_run (DshExecRun       *run,
                                          const char       *report_path,
                                          const GError     *error);

/* What a run came to (result, taken): the marker and the hint (nullable) after the command's
 * stderr, and the report, or the refusal when it never ran; returns the exit status to exit
 * with. */
int       dsh_exec_run_finish      (DshExecRun             *run,
                                    DshRunResult           *result,
                                    const char             *hint);

/* Runs command under policy with dsh_run() (no session) and finishes. */
int       dsh_exec_run_command     (DshExecRun             *run,
                                    const char *const      *command,
                                    const DshSandboxPolicy *policy);

G_END_DECLS
