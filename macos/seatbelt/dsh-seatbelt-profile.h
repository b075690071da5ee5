/* dsh-seatbelt-profile.h — a backend policy as a Seatbelt profile for sandbox-exec and the -D
 * parameters that carry its writable roots. Plain C, so every host builds and tests it.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The profile text depends on the mode and the number of root slots only (the writable roots,
 * at least three under workspace-write, so that a workspace that is /tmp changes nothing):
 * paths never enter it, they travel as -DNAME=VALUE arguments that sandbox-exec binds to (param "NAME"), and so
 * does whether a root holds a repository (its git parameters then name its .git). The text
 * makes no decision that depends on rule order (it has no deny rule besides the default), since
 * Apple documents neither first- nor last-match semantics.
 */
#pragma once

#include <stddef.h>

#include "dsh-backend.h"
#include "dsh-seatbelt-spelling.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The only runner: never looked up on PATH. */
#define DSH_SEATBELT_RUNNER "/usr/bin/sandbox-exec"

/* What git finds at a root when the call is planned. */
typedef enum {
  DSH_SEATBELT_REPOSITORY_NONE = 0,
  /* A .git directory, or a bare repository at the root: its hooks, config, config.worktree
   * and commondir are protected. */
  DSH_SEATBELT_REPOSITORY_PROTECTED = 1,
  /* Protected as well, but git also runs code from places it leads to, which the profile does
   * not name: the git directory of a .git file or symlink, those of submodules (.git/modules)
   * and linked worktrees (.git/worktrees), and where a protected name that is a symlink
   * points. */
  DSH_SEATBELT_REPOSITORY_ELSEWHERE = 2,
} DshSeatbeltRepository;

typedef struct {
  /* The SBPL text, for -p. */
  char *profile;
  /* The distinct writable roots as macOS resolves them, in policy order. */
  char **roots;
  size_t n_roots;
  /* Per root, a DshSeatbeltRepository: what it held when the plan was built. Only a root that
   * held a .git gets its git paths protected; otherwise this call may create them (git init,
   * git clone). */
  int *has_repository;
  /* Per root, the directory (spelled as macOS does) whose .git its git parameters name: the
   * root itself when it holds one (or is a bare repository), the nearest repository above it that lies inside another
   * root when it does not (git run in the root later uses that one), else NULL. */
  char **git_dirs;
  /* Per root, whether git_dirs[i] is the git directory itself (a bare repository, no .git):
   * its hooks, config, config.worktree and commondir are then git_dirs[i]/hooks and so on. */
  int *bare;
  /* The root slots of the profile: n_roots, or at least three, the last root repeated. */
  size_t n_slots;
  /* NULL-terminated "-DNAME=VALUE" arguments, seven per slot. */
  char **defines;
  size_t n_defines;
} DshSeatbeltPlan;

/* Fills plan for policy. On failure returns nonzero, writes a message naming the root at fault
 * to error (when error_len > 0) and leaves plan empty. Clear plan either way. */
int   dsh_seatbelt_plan_build     (const DshBackendPolicy *policy,
                                   DshSeatbeltPlan        *plan,
                                   char                   *error,
                                   size_t                  error_len);

void  dsh_seatbelt_plan_clear     (DshSeatbeltPlan        *plan);

/* Does one root of plan lie inside another (in any ASCII letter case: the same directory on a
 * case-insensitive volume) with a directory between them? Then renaming that
 * directory inside the outer root can carry the inner root's .git past the protected-path rules
 * (they match paths, not files), and *inner, *outer name the first such pair. */
int   dsh_seatbelt_plan_find_nested_root (const DshSeatbeltPlan *plan,
                                          size_t                *inner,
                                          size_t                *outer);

/* Does a root holding a repository lie at or inside another (in any ASCII letter case, as
 * for the check above)? On a case-insensitive volume
 * /tmp/WS/.git/config is /tmp/ws/.git/config (on HFS+ even /tmp/w\u200Cs/.git/config is): the
 * outer root's rule allows that spelling, and the inner root's protected-path rules, which
 * match its exact spelling, would not refuse it if Seatbelt compares the spelling a program
 * used. *inner, *outer name the first such pair. */
int   dsh_seatbelt_plan_find_respellable_root (const DshSeatbeltPlan *plan,
                                               size_t                *inner,
                                               size_t                *outer);

#ifdef __cplusplus
}
#endif
