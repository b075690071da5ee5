/* dsh-cli-json.c — printing JSON documents with json-glib, for the subcommands that have them.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-cli.h"

#include "dsh-json-strict-private.h"

void
dsh_cli_print_json (JsonNode *node)
{
  g_autofree char *text = dsh_json_strict_to_string (node, TRUE);

  printf ("%s\n", text);
  fflush (stdout);
}
