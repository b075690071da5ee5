/* dsh-denial-scanner-private.h — looking through a stream of stderr too large to keep for the
 * first line that proves a denial.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "dsh-confinement-private.h"

G_BEGIN_DECLS

typedef struct _DshDenialScanner DshDenialScanner;

/* A scanner for confinement's dialect; confinement must outlive it. */
DshDenialScanner *dsh_denial_scanner_new    (const DshConfinement *confinement);
void              dsh_denial_scanner_free   (DshDenialScanner     *self);

/* The next bytes of the stream, in order; lines may span calls. */
void              dsh_denial_scanner_feed   (DshDenialScanner     *self,
                                             const char           *data,
                                             gsize                 len);

/* The first line found that dsh_confinement_is_denial_evidence() accepts, with its '\n' (it
 * may hold NUL bytes: *len is its length), or NULL. A line is only judged whole: the last one
 * counts once it has ended, and one longer than 64 KiB is never kept, so scanning can only
 * miss a denial, never invent one. */
const char       *dsh_denial_scanner_get_evidence (const DshDenialScanner *self,
                                                   gsize                  *len);

/* Which way it looks: "avx2-nibbles", "avx2", "sse2" or "portable" (for tests). */
const char       *dsh_denial_scanner_get_method (const DshDenialScanner *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (DshDenialScanner, dsh_denial_scanner_free)

G_END_DECLS
