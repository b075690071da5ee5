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

/* How a backend's runner says on stderr that it denied an access or failed itself: the same for
 * every command the backend confines, so its results share one copy. Immutable once shared;
 * reference-counted, so a result outlives the module it was copied from. denial_signatures and
 * denial_exclusions are each one allocation, pointers and strings together. */
typedef struct {
  gatomicrefcount refs;
  GStrv denial_signatures;
  /* Lines containing one of these are no denial, whatever else they say. */
  GStrv denial_exclusions;
  /* Element type DshRunnerFailureRule. */
  GPtrArray *runner_failure_rules;
} DshDialect;

/* The texts are copied (NULL becomes empty) and the rules start empty: add them before the
 * dialect is shared. */
DshDialect      *dsh_dialect_new          (const char *const *denial_signatures,
                                           const char *const *denial_exclusions);
DshDialect      *dsh_dialect_ref          (DshDialect        *self);
void             dsh_dialect_unref        (DshDialect        *self);

/* argv is one allocation, pointers and strings together, or (argv_strings set) the pointers
 * alone, into argv_strings: read it, copy it, never free or take one of its strings. The
 * dialect's fields are borrowed from dialect, which the confinement holds a reference on: read
 * them, never change or take them. */
typedef struct {
  GStrv argv;
  GStringChunk *argv_strings;
  char *backend;
  DshEnforcement enforcement;
  GStrv reasons;
  GStrv denial_signatures;
  GStrv denial_exclusions;
  GPtrArray *runner_failure_rules;
  DshDialect *dialect;
} DshConfinement;

/* Every argument is copied; NULL string arrays become empty ones. */
DshConfinement  *dsh_confinement_new      (const char *const *argv,
                                           const char        *backend,
                                           DshEnforcement     enforcement,
                                           const char *const *reasons,
                                           const char *const *denial_signatures,
                                           const char *const *denial_exclusions,
                                           GPtrArray         *runner_failure_rules);
/* The same with a shared dialect, on which it takes a reference. */
DshConfinement  *dsh_confinement_new_in_dialect (const char *const *argv,
                                                 const char        *backend,
                                                 DshEnforcement     enforcement,
                                                 const char *const *reasons,
                                                 DshDialect        *dialect);
/* The same taking argv (its pointers, g_free()d), argv_strings (nullable, what argv points
 * into) and reasons (a GStrv, never NULL). */
DshConfinement  *dsh_confinement_new_taking (GStrv              argv,
                                             GStringChunk      *argv_strings,
                                             const char        *backend,
                                             DshEnforcement     enforcement,
                                             GStrv              reasons,
                                             DshDialect        *dialect);
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
G_DEFINE_AUTOPTR_CLEANUP_FUNC (DshDialect, dsh_dialect_unref)

G_END_DECLS
