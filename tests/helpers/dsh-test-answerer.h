/* dsh-test-answerer.h — an approval answerer for tests: answers every request at once with the
 * outcome it is set to, and keeps what the last request said and how many came.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <dsh-sandbox.h>

G_BEGIN_DECLS

#define DSH_TYPE_TEST_ANSWERER (dsh_test_answerer_get_type ())
G_DECLARE_FINAL_TYPE (DshTestAnswerer, dsh_test_answerer, DSH, TEST_ANSWERER, GObject)

/* Open for the tests to set the outcome and read the rest. */
struct _DshTestAnswerer {
  GObject parent_instance;
  DshApprovalOutcome outcome;
  guint calls;
  char *last_call_id;
  char *last_reason;
  /* The request's details as compact JSON (NULL: it had none). */
  char *last_details;
};

DshTestAnswerer *dsh_test_answerer_new (DshApprovalOutcome outcome);

G_END_DECLS
