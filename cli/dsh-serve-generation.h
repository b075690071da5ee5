/* dsh-serve-generation.h — the unit of hot reload in "dsh-sandbox serve": a generation owns the
 * providers (and so the loaded modules) its calls use; a change in a module directory, or a
 * reload request, starts a new one while calls in flight finish on theirs.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "dsh-cli.h"

G_BEGIN_DECLS

typedef struct _DshServeGeneration DshServeGeneration;

DshServeGeneration *dsh_serve_generation_ref      (DshServeGeneration *self);
/* The last reference closes the generation's providers and, with them, its modules. */
void                dsh_serve_generation_unref    (DshServeGeneration *self);
/* The provider this generation keeps for policy's workspace and extra writable roots (NULL: the
 * one probe answers for); borrowed, valid while the caller holds its reference and no other
 * call can evict it (no confine runs on another thread). */
DshLocalProvider   *dsh_serve_generation_provider (DshServeGeneration     *self,
                                                   const DshSandboxPolicy *policy);
/* The same, as a new reference: for confines, which may run on several threads at once. */
DshLocalProvider   *dsh_serve_generation_dup_provider (DshServeGeneration     *self,
                                                       const DshSandboxPolicy *policy);
guint               dsh_serve_generation_number   (DshServeGeneration *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (DshServeGeneration, dsh_serve_generation_unref)

typedef struct _DshServeGenerations DshServeGenerations;

/* The current generation, and a thread watching the module directories that starts a new one
 * whenever a module file there is added, replaced, changed or removed. Each generation keeps
 * at most capacity providers, dropping the least recently used. */
DshServeGenerations *dsh_serve_generations_new     (guint capacity);
void                 dsh_serve_generations_free    (DshServeGenerations *self);
/* A reference to the current generation, for one call. */
DshServeGeneration  *dsh_serve_generations_acquire (DshServeGenerations *self);
/* Starts a new generation now (the reload method). */
void                 dsh_serve_generations_renew   (DshServeGenerations *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (DshServeGenerations, dsh_serve_generations_free)

G_END_DECLS
