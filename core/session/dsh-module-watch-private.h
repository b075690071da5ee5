/* dsh-module-watch-private.h — noticing, by itself, that a module directory changed: a thread
 * of its own watches the directories and calls back whenever a backend module file there is
 * added, rewritten, replaced, renamed, made untrusted (chmod) or removed. What to do then (start
 * a new generation) is the caller's.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _DshModuleWatch DshModuleWatch;

/* Called on the watch's thread, never after dsh_module_watch_free() has returned. */
typedef void (*DshModuleWatchFunc) (gpointer user_data);

/* NULL, with an error naming the directory, when one of dirs cannot be watched. */
DshModuleWatch *dsh_module_watch_new  (const char *const  *dirs,
                                       DshModuleWatchFunc  func,
                                       gpointer            user_data,
                                       GError            **error);
/* Stops the thread (waiting for a callback in progress) and the watching. */
void            dsh_module_watch_free (DshModuleWatch     *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (DshModuleWatch, dsh_module_watch_free)

G_END_DECLS
