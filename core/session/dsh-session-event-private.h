/* dsh-session-event-private.h — one line of a session log as the log's other parts see it: the
 * rules every line and the header meet (on load and on append alike, so a value refused on one
 * is refused on the other), and how a line is written.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "dsh-session-log.h"

G_BEGIN_DECLS

/* An event from a line's object, validated; the object is referenced, not copied. line is the
 * 1-based line in the file (0 while it is not part of one). */
DshSessionEvent *dsh_session_event_new_from_object  (JsonObject            *object,
                                                     guint                  line,
                                                     GError               **error);

/* Sets the line of an event not yet handed out. */
void             dsh_session_event_set_line         (DshSessionEvent       *event,
                                                     guint                  line);

/* approval/asked and approval/decided: they belong to an open turn. */
gboolean         dsh_session_event_is_turn_scoped   (const DshSessionEvent *event);

/* The header's rules: an id, an absolute cwd, an RFC 3339 creation time, absolute writable
 * roots. */
gboolean         dsh_session_header_validate        (JsonObject            *header,
                                                     GError               **error);

/* The line's object. *syntax_error tells a torn line (always a syntax error: a prefix of an
 * object never closes) from a well-formed line with bad content. */
JsonObject      *dsh_session_line_parse             (const char            *text,
                                                     gsize                  length,
                                                     gboolean              *syntax_error,
                                                     GError               **error);

/* The object as one line, "\n" included, in the form the strict reader reads back. */
char            *dsh_session_line_from_object       (JsonObject            *object,
                                                     gsize                 *out_length);

/* Now, in UTC with milliseconds: the time of a new line. */
char            *dsh_session_time_now               (void);

/* object[member] when it is a string, else NULL. */
const char      *dsh_session_object_get_string      (JsonObject            *object,
                                                     const char            *member);

G_END_DECLS
