/* dsh-json-writer.h — writing the small flat JSON objects of the exec path (the report) without
 * json-glib, which would cost every exec more than everything else it does.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Appends value as a JSON string: made valid UTF-8, escaped per RFC 8259. */
void   dsh_json_append_string      (GString           *out,
                                    const char        *value);

typedef struct {
  GString *out;
  gboolean first;
} DshJsonObject;

void   dsh_json_object_begin       (DshJsonObject     *object);
/* The finished text (with a trailing newline); the object is spent. */
char  *dsh_json_object_end         (DshJsonObject     *object);

/* NULL values are written as null. */
void   dsh_json_object_add_string  (DshJsonObject     *object,
                                    const char        *name,
                                    const char        *value);
void   dsh_json_object_add_int     (DshJsonObject     *object,
                                    const char        *name,
                                    gint64             value);
void   dsh_json_object_add_null    (DshJsonObject     *object,
                                    const char        *name);
void   dsh_json_object_add_boolean (DshJsonObject     *object,
                                    const char        *name,
                                    gboolean           value);
/* An array of strings from a NULL-terminated vector (NULL: empty). */
void   dsh_json_object_add_strv    (DshJsonObject     *object,
                                    const char        *name,
                                    const char *const *values);

G_END_DECLS
