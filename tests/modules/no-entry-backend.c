/* no-entry-backend.c — a negative fixture: a module that exports no entry point. The loader must
 * refuse it with a reason, not crash.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-backend.h"

DSH_BACKEND_EXPORT int dsh_backend_entry_missing_here (void);

int
dsh_backend_entry_missing_here (void)
{
  return 42;
}
