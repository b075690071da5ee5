/* dsh-test-swapper.h — a thread that exchanges two paths as fast as it can (renameat2
 * RENAME_EXCHANGE), as a confined command racing another call swaps a directory of that call's
 * roots for a symlink and back. Linux only.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _DshTestSwapper DshTestSwapper;

/* Starts exchanging a and b (both must exist), over and over until stopped. */
DshTestSwapper *dsh_test_swapper_start (const char *a,
                                        const char *b);
/* Stops and frees it: returns how many exchanges succeeded, which must be some. */
guint           dsh_test_swapper_stop  (DshTestSwapper *swapper);

G_END_DECLS
