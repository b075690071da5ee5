/* dsh-serve-pipeline.h — confines of "dsh-sandbox serve" answered on worker threads, the
 * answers written in request order (dsh-serve-pipeline.c).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <stdio.h>

#include "dsh-serve-generation.h"
#include "dsh-serve-request.h"

G_BEGIN_DECLS

/* Appends the response line (without its newline) to request to out (empty), on any
 * thread. */
typedef void (*DshServeAnswerFunc) (DshServeGeneration    *generation,
                                    const DshServeRequest *request,
                                    GString               *out);

typedef struct _DshServePipeline DshServePipeline;

DshServePipeline *dsh_serve_pipeline_new     (FILE               *out,
                                              guint               threads,
                                              DshServeAnswerFunc  answer);
/* No request waits for its answer (one may be answered on this thread then). */
gboolean          dsh_serve_pipeline_is_idle (DshServePipeline   *self);
/* Answers request (taken; *request is zeroed) within generation, after every request pushed
 * before it; waits while too many are queued. */
void              dsh_serve_pipeline_push    (DshServePipeline   *self,
                                              DshServeGeneration *generation,
                                              DshServeRequest    *request);
/* Returns once every request pushed is answered and written. */
void              dsh_serve_pipeline_drain   (DshServePipeline   *self);
void              dsh_serve_pipeline_free    (DshServePipeline   *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (DshServePipeline, dsh_serve_pipeline_free)

G_END_DECLS
