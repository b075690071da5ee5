/* dsh-cli-provider.c — the commands' backend selection as a provider, for the subcommands that
 * hand it to the library (probe, confine). Kept out of the shared code so that the front's exec
 * path, which uses the selector directly, never links GObject.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-cli.h"

#include "dsh-local-provider-private.h"

DshLocalProvider *
dsh_cli_new_provider (const char *workspace_root)
{
  return dsh_local_provider_new_for_selector (dsh_cli_new_selector (workspace_root));
}

DshLocalProvider *
dsh_cli_new_provider_for_policy (const DshSandboxPolicy *policy)
{
  return dsh_local_provider_new_for_selector (dsh_cli_new_selector_for_policy (policy));
}
