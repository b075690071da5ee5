/* dsh-confinement-private.h — what confining one command produced, as a plain struct. The
 * command's exec path works on it directly, so that it never starts GObject's type system;
 * DshConfinedArgv is its public, reference-counted face.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "dsh-classify.h"
#include "dsh-confined-argv.h"

G_BEGIN_DECLS

/* argv, denial_signatures and denial_exclusions are each one allocation, pointers and strings
 * together: read them, copy them, never free or take one of their strings. */
typedef struct {
  GStrv argv;
  char *backend;
  DshEnforcement enforcement;
  GStrv reasons;
  GStrv denial_signatures;
  /* Lines containing one of these are no denial, whatever else they say. */
  GStrv denial_exclusions;
  /* Element type DshRunnerFailureRule. */
  GPtrArray *runner_failure_rules;
} DshConfinement;

/* Every argument is copied; NULL string arrays become empty ones. */
DshConfinement  *dsh_confinement_new      (const char *const *argv,
                                           const char        *backend,
                                           DshEnforcement     enforcement,
                                           const char *const *reasons,
                                           const char *const *denial_signatures,
                                           const char *const *denial_exclusions,
                                           GPtrArray         *runner_failure_rules);
void             dsh_confinement_free     (DshConfinement    *self);

/* Runner failure first, then denial, in this confinement's own dialect; see
 * dsh_classify_result_len(). */
DshOutcome       dsh_confinement_classify (const DshConfinement *self,
                                           int                   exit_code,
                                           const char           *stderr_data,
                                           gsize                 length,
                                           char                **detail);

/* A line that proves a denial to dsh_confinement_classify() wherever it stands, and can never
 * make it a runner failure: a denial signature no exclusion takes out, and no fatal signature.
 * (A runner fails before the command writes anything, so such a line deep in a flood is the
 * command's own.) */
gboolean         dsh_confinement_is_denial_evidence (const DshConfinement *self,
                                                     const char           *line,
                                                     gsize                 len);

/* The public face, taking ownership of self. */
DshConfinedArgv *dsh_confined_argv_new_take (DshConfinement *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (DshConfinement, dsh_confinement_free)

G_END_DECLS
