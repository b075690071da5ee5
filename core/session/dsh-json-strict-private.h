/* dsh-json-strict-private.h — strict JSON reading: an RFC 8259 syntax check run before json-glib
 * sees the text, and the checks json-glib does not make (duplicate names, overflowing numbers).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* Nesting deeper than this is refused before any recursive parser runs. */
#define DSH_JSON_STRICT_MAX_DEPTH 64

/* TRUE when text[0..length) is exactly one RFC 8259 JSON value (surrounding whitespace allowed),
 * valid UTF-8, with no NUL (escaped or raw), no lone surrogate escape, no integer beyond
 * 64 bits and nesting at most max_depth. json-glib alone accepts comments, single quotes and unbounded recursion; this check
 * keeps every reader of the log (json-glib, Python, JavaScript) agreeing on what a line says.
 * The error message names the byte column. */
gboolean  dsh_json_strict_check  (const char  *text,
                                  gsize        length,
                                  guint        max_depth,
                                  GError     **error);

/* dsh_json_strict_check(), then json-glib, then refuses a member name that appears twice in one
 * object (json-glib keeps the last, other readers the first) and any value json-glib cannot
 * write back as valid JSON (1e999 reads as infinity; 1e22 is written as "1e+22.0"). *syntax_error tells a syntax error (for
 * the session log: possibly a torn line) from well-formed but refused content. The returned
 * tree is immutable (sealed). */
JsonNode *dsh_json_strict_parse  (const char  *text,
                                  gsize        length,
                                  gboolean    *syntax_error,
                                  GError     **error);

/* dsh_json_strict_parse() of a document that must be one object: the object (a new reference),
 * or NULL with the error; a well-formed value of another type fails with not_object as its
 * message and *syntax_error FALSE. */
JsonObject *dsh_json_strict_parse_object (const char  *text,
                                          gsize        length,
                                          const char  *not_object,
                                          gboolean    *syntax_error,
                                          GError     **error);

/* json_to_string() (pretty: indented), with every control character escaped as RFC 8259
 * requires: json-glib 1.6 writes U+001F raw, which no strict reader accepts. */
char     *dsh_json_strict_to_string (JsonNode *node,
                                     gboolean  pretty);

G_END_DECLS
