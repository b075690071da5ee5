/* setuid-probe.c — a test program that reports which module directories a default provider
 * would scan. test-setuid-override runs it setuid root from an unprivileged user to show that
 * DSH_SANDBOX_BACKEND_DIR cannot choose the code a privileged process loads.
 *
 * The core is linked in statically: a setuid binary ignores LD_LIBRARY_PATH and $ORIGIN.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <dsh-sandbox.h>

int
main (void)
{
  g_autoptr (DshLocalProvider) provider = dsh_local_provider_new ();
  g_autoptr (JsonNode) report = dsh_local_provider_describe (provider);
  JsonObject *object = json_node_get_object (report);
  JsonArray *dirs = json_object_get_array_member (object, "backendDirs");

  g_print ("ignored=%s dir=%s\n",
           json_object_get_boolean_member (object, "backendDirOverrideIgnored") ? "yes" : "no",
           json_array_get_string_element (dirs, 0));
  return 0;
}
