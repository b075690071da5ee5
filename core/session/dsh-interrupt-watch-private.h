/* dsh-interrupt-watch-private.h — noticing that the person pressed ^C, or that we are being
 * stopped, while an approval is awaited in a private main context. The one platform piece of
 * one agent call (signals are POSIX), so it stays behind the platform seam.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _DshInterruptWatch DshInterruptWatch;

/* Attaches to context: callback(user_data) runs there on SIGINT, SIGTERM or SIGHUP. */
DshInterruptWatch *dsh_interrupt_watch_new  (GMainContext      *context,
                                             GSourceFunc        callback,
                                             gpointer           user_data);
/* Detaches the watch; no callback runs after it. */
void               dsh_interrupt_watch_free (DshInterruptWatch *watch);

G_END_DECLS
