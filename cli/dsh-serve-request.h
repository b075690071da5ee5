/* dsh-serve-request.h — one request line of "dsh-sandbox serve", read strictly: a JSON object
 * {"id"?, "method", "params"?} with nothing else in it, and exactly the parameters its method
 * takes (schemas/serve-request.schema.json).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <stdio.h>

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
  DSH_SERVE_METHOD_ESCALATE,
  DSH_SERVE_METHOD_CLASSIFY,
  DSH_SERVE_METHOD_SESSION_NEW,
  DSH_SERVE_METHOD_SESSION_SHOW,
  DSH_SERVE_METHOD_SESSION_SET_MODE,
  DSH_SERVE_METHOD_SESSION_SET_APPROVAL,
  DSH_SERVE_METHOD_SESSION_SET_PRESET,
  DSH_SERVE_METHOD_DESCRIBE,
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
  /* escalate: the target, the model's justification and the caller's id of the tool call
   * (session, argv and callId are required there). */
  char *sandbox_permissions;
  char *justification;
  char *call_id;
  /* confine: the call's extra writable roots (absolute), or NULL. */
  GStrv writable_roots;
  /* classify: the backend that ran the command, its exit status, its stderr (from "stderr" or
   * "stderrBase64"; empty when neither is given), and whether that run was the sanctioned
   * retry of an escalation (then no hint follows a denial). */
  char *backend;
  int exit_status;
  GBytes *stderr_bytes;
  gboolean escalated;
  /* session.*: the new session's cwd, the preset, the approval policy to switch to. */
  char *cwd;
  char *preset;
  char *approval_policy;
  /* describe: the tool ("bash" when not given). */
  char *tool;
} DshServeRequest;

GQuark       dsh_serve_error_quark      (void);
const char  *dsh_serve_error_code_name  (DshServeError code);

/* Parses line[0..length) into *request (zeroed first; clear it either way). */
gboolean     dsh_serve_request_parse    (const char      *line,
                                         gsize            length,
                                         DshServeRequest *request,
                                         GError         **error);
void         dsh_serve_request_clear    (DshServeRequest *request);

/* The two ways dsh_serve_request_parse() takes. The general one builds a JSON tree and checks
 * it member by member; the quick one (dsh-serve-request-quick.c) reads the usual confine request
 * in one pass, and FALSE from it (the request zeroed) only means "not mine": the general way
 * then reads the line, so every refusal and its text is the general way's. */
gboolean     dsh_serve_request_parse_tree  (const char      *line,
                                            gsize            length,
                                            DshServeRequest *request,
                                            GError         **error);
gboolean     dsh_serve_request_parse_quick (const char      *line,
                                            gsize            length,
                                            DshServeRequest *request);

/* Reads one line (without its newline) into line; FALSE at the end of input. A line over
 * DSH_SERVE_MAX_LINE bytes is read to its end but kept empty, with *too_long set. */
#define DSH_SERVE_MAX_LINE (1024 * 1024)
gboolean     dsh_serve_read_line        (FILE            *in,
                                         GString         *line,
                                         gboolean        *too_long);
/* A line of nothing but white space: no request, and no answer either. */
gboolean     dsh_serve_line_is_blank    (const GString   *line);
/* Whether more input can be read from in at once, without waiting (FALSE when that cannot be
 * told). */
gboolean     dsh_serve_input_pending    (FILE            *in);

/* The escalate method (dsh-serve-escalate.c): one turn of request->session in which the client
 * is asked on out and answers on in. The grant {"mode", "outcome", "callId"}, or the refusal
 * with the texts exec uses. */
JsonNode    *dsh_serve_escalate         (const DshServeRequest *request,
                                         FILE                  *in,
                                         FILE                  *out,
                                         GError               **error);

typedef struct _DshServeGeneration DshServeGeneration;

/* The classify method (dsh-serve-classify.c): {"outcome", "marker"?, "hint"?, "message"?}
 * for a run of request->backend's argv that the client spawned itself. */
JsonNode    *dsh_serve_classify         (const DshServeRequest *request,
                                         DshServeGeneration    *generation,
                                         GError               **error);

G_END_DECLS
