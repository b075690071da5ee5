/* seatbelt-argv.c — prints the argv the Seatbelt module returns, for the model check: usage
 * "seatbelt-argv read-only|workspace-write ROOTS-FILE -- COMMAND...", where ROOTS-FILE holds the
 * writable roots NUL-terminated (any bytes); the argv goes to stdout, each item NUL-terminated.
 * A refusal prints the module's error on stderr and exits 1.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <glib.h>
#include <stdio.h>
#include <string.h>

#include "dsh-backend-fake-host-private.h"

const DshBackendDescriptor *dsh_backend_seatbelt_describe (void);

int
main (int argc, char **argv)
{
  const DshBackendDescriptor *desc = dsh_backend_seatbelt_describe ();
  g_autoptr (DshBackendFakeHost) fake = dsh_backend_fake_host_new ();
  g_autoptr (GPtrArray) roots = g_ptr_array_new ();
  g_autoptr (GError) error = NULL;
  g_autofree char *contents = NULL;
  DshBackendPolicy policy = { 0 };
  gsize length;

  if (argc < 5 || strcmp (argv[3], "--") != 0)
    {
      fprintf (stderr, "usage: %s read-only|workspace-write ROOTS-FILE -- COMMAND...\n", argv[0]);
      return 2;
    }
  if (!g_file_get_contents (argv[2], &contents, &length, &error))
    {
      fprintf (stderr, "%s\n", error->message);
      return 2;
    }
  for (gsize offset = 0; offset < length; offset += strlen (contents + offset) + 1)
    g_ptr_array_add (roots, contents + offset);
  g_ptr_array_add (roots, NULL);

  policy.mode = strcmp (argv[1], "workspace-write") == 0 ? DSH_BACKEND_MODE_WORKSPACE_WRITE
                                                         : DSH_BACKEND_MODE_READ_ONLY;
  policy.workspace_root = roots->len > 1 ? roots->pdata[0] : "/";
  policy.writable_roots = (const char *const *) roots->pdata;

  dsh_backend_fake_host_set_program (fake, "sandbox-exec", "/usr/bin/sandbox-exec");
  if (desc->confine (dsh_backend_fake_host_get_host (fake), &policy,
                     (const char *const *) argv + 4) != 0)
    {
      fprintf (stderr, "%s\n", fake->call.error);
      return 1;
    }
  for (guint i = 0; i < fake->call.argv->len; i++)
    fwrite (fake->call.argv->pdata[i], 1, strlen (fake->call.argv->pdata[i]) + 1, stdout);
  return 0;
}
