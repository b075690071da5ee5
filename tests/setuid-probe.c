/* setuid-probe.c — a test program that reports which module directories a default provider
 * would scan. test-setuid-override runs it setuid root from an unprivileged user to show that
 * DSH_SANDBOX_BACKEND_DIR cannot choose the code a privileged process loads.
 *
 * The core is linked in statically (a setuid binary ignores LD_LIBRARY_PATH and $ORIGIN), which
 * also lets it read the provider's state directly.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-local-provider-private.h"

int
main (void)
{
  g_autoptr (DshLocalProvider) provider = dsh_local_provider_new ();
  g_autoptr (DshProviderGeneration) generation = dsh_local_provider_acquire (provider);

  g_print ("ignored=%s dir=%s\n", generation->selector->backend_dir_ignored ? "yes" : "no",
           generation->selector->backend_dirs[0]);
  return 0;
}
