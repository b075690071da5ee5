/* dsh-acl-roots.h — which roots the ACL runner may grant: never a drive or share root, never the
 * user's profile directory or a directory above it, and only absolute paths. The planner and the
 * runner both apply these rules, so neither trusts the other.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

/* Why root may not be granted (a static sentence), or NULL when it may. profile may be NULL. */
const char *dsh_acl_root_refusal (const char *root,
                                  const char *profile);

/* Do a and b name the same path, ignoring ASCII case, the separator spelling and trailing
 * separators? (Loose on purpose: it only ever decides to grant less.) */
int         dsh_acl_same_path    (const char *a,
                                  const char *b);

/* The directory a private temp directory is made in (the shared temp area), as spelled in
 * temp_dir; NULL when temp_dir has no parent or memory ran out. Free it with free(). */
char       *dsh_acl_temp_area    (const char *temp_dir);

/* Is opened_root, as Windows reports it once opened, the shared temp area opened_area (also as
 * reported)? The planner withholds that area by its spelling in TEMP and TMP, which a short name
 * or another spelling defeats; the runner withholds it again by what it opened. opened_area may
 * be NULL (no temp directory): then nothing is. */
int         dsh_acl_is_temp_area (const char *opened_root,
                                  const char *opened_area);

/* Why a --write root may not be granted once opened (a static sentence), or NULL: the rules on
 * opened, the path Windows reports for what opening root reached, and then that this is root
 * itself. The runner opens the last name without following it, but Windows follows every
 * junction and link before it; the core resolved root already, so a difference means one was
 * planted on the way since. */
const char *dsh_acl_opened_root_refusal (const char *root,
                                         const char *opened,
                                         const char *profile);
