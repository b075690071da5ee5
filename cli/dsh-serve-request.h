/* dsh-serve-request.h — one request line of "dsh-sandbox serve", read strictly: a JSON object
 * {"id"?, "method", "params"?} with nothing else in it, and exactly the parameters its method
 * takes (schemas/serve-request.schema.json).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define DSH_SERVE_ERROR (dsh_serve_error_quark ())

/* Errors of the protocol itself; their names are the response's error codes. */
typedef enum {
  DSH_SERVE_ERROR_PARSE_ERROR,     /* not one strict JSON object */
  DSH_SERVE_ERROR_INVALID_REQUEST, /* a member missing, unknown or of the wrong type */
  DSH_SERVE_ERROR_UNKNOWN_METHOD,
} DshServeError;

typedef enum {
  DSH_SERVE_METHOD_PROBE,
  DSH_SERVE_METHOD_CONFINE,
  DSH_SERVE_METHOD_RELOAD,
  DSH_SERVE_METHOD_POLICY_RESOLVE,
  DSH_SERVE_METHOD_POLICY_CONTEXT,
} DshServeMethod;

typedef struct {
  /* The request's id (a string, an integer or null), echoed in the response; never NULL once
   * parsed, and set even when the rest of the request is refused, if it could be read. */
  JsonNode *id;
  DshServeMethod method;
  /* confine: the exact argv (non-empty, its first element too); confine and policy.*: the
   * optional policy inputs, as for the confine and policy commands. */
  GStrv argv;
  char *mode;
  char *workspace;
  char *session;
  /* confine: the call's extra writable roots (absolute), or NULL. */
  GStrv writable_roots;
} DshServeRequest;

GQuark       dsh_serve_error_quark      (void);
const char  *dsh_serve_error_code_name  (DshServeError code);

/* Parses line[0..length) into *request (zeroed first; clear it either way). */
gboolean     dsh_serve_request_parse    (const char      *line,
                                         gsize            length,
                                         DshServeRequest *request,
                                         GError         **error);
void         dsh_serve_request_clear    (DshServeRequest *request);

G_END_DECLS
