/* dsh-confined-argv.h — what confine() hands back: the argv to spawn instead of the caller's,
 * the enforcement facts, and this backend's two stderr classifiers. A reference-counted face
 * on the plain result (DshConfinement, private) the command's exec path uses without GObject.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib-object.h>
#include <json-glib/json-glib.h>

#include "dsh-mode.h"
#include "dsh-api.h"

G_BEGIN_DECLS

/* Evidence that a runner failed before it ran the command. */
typedef struct {
  /* Exit codes the rule may match on, or NULL for any nonzero exit. */
  GArray *allowed_exit_codes;
  /* Non-empty; case-insensitive substrings of one stderr line. */
  GStrv fatal_signatures;
  /* Benign lines removed first by case-insensitive whole-line equality; may be NULL. */
  GStrv informational_lines;
} DshRunnerFailureRule;

#define DSH_TYPE_RUNNER_FAILURE_RULE (dsh_runner_failure_rule_get_type ())

DSH_API
GType                 dsh_runner_failure_rule_get_type (void) G_GNUC_CONST;
DSH_API
DshRunnerFailureRule *dsh_runner_failure_rule_new      (const int            *allowed_exit_codes,
                                                        gsize                 n_allowed_exit_codes,
                                                        const char *const    *fatal_signatures,
                                                        const char *const    *informational_lines);
DSH_API
DshRunnerFailureRule *dsh_runner_failure_rule_copy     (const DshRunnerFailureRule *rule);
DSH_API
void                  dsh_runner_failure_rule_free     (DshRunnerFailureRule *rule);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (DshRunnerFailureRule, dsh_runner_failure_rule_free)

#define DSH_TYPE_CONFINED_ARGV (dsh_confined_argv_get_type ())
DSH_API
G_DECLARE_FINAL_TYPE (DshConfinedArgv, dsh_confined_argv, DSH, CONFINED_ARGV, GObject)

/* Takes ownership of nothing; every argument is copied. */
DSH_API
DshConfinedArgv     *dsh_confined_argv_new                    (const char *const *argv,
                                                               const char        *backend,
                                                               DshEnforcement     enforcement,
                                                               const char *const *reasons,
                                                               const char *const *denial_signatures,
                                                               GPtrArray         *runner_failure_rules);
/* The same with denial exclusions: a stderr line containing one of them (case-insensitive) is
 * never taken for a denial. */
DSH_API
DshConfinedArgv     *dsh_confined_argv_new_full               (const char *const *argv,
                                                               const char        *backend,
                                                               DshEnforcement     enforcement,
                                                               const char *const *reasons,
                                                               const char *const *denial_signatures,
                                                               const char *const *denial_exclusions,
                                                               GPtrArray         *runner_failure_rules);

DSH_API
const char *const   *dsh_confined_argv_get_argv               (DshConfinedArgv *self);
DSH_API
const char          *dsh_confined_argv_get_backend            (DshConfinedArgv *self);
DSH_API
DshEnforcement       dsh_confined_argv_get_enforcement        (DshConfinedArgv *self);
DSH_API
const char *const   *dsh_confined_argv_get_reasons            (DshConfinedArgv *self);
DSH_API
const char *const   *dsh_confined_argv_get_denial_signatures  (DshConfinedArgv *self);
/* Never NULL; empty when the backend excludes nothing. */
DSH_API
const char *const   *dsh_confined_argv_get_denial_exclusions  (DshConfinedArgv *self);
/* Element type DshRunnerFailureRule. */
DSH_API
GPtrArray           *dsh_confined_argv_get_runner_failure_rules (DshConfinedArgv *self);

/* The ConfinedArgv JSON document (schemas/confined-argv.schema.json). */
DSH_API
JsonNode            *dsh_confined_argv_to_json                (DshConfinedArgv *self);

G_END_DECLS
