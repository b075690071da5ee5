/* bench-confine.c — in-process cost of confine() once a provider's selection is cached, and the
 * cost of that first selection. Prints JSON; bench/run.sh folds it into its report.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <dsh-sandbox.h>

#define ITERATIONS 20000

static int
compare_doubles (gconstpointer a, gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

int
main (int argc, char **argv)
{
  g_autoptr (DshLocalProvider) provider = NULL;
  g_autoptr (DshSandboxPolicy) policy = NULL;
  g_autoptr (GArray) samples = g_array_sized_new (FALSE, FALSE, sizeof (double), ITERATIONS);
  g_autofree char *cwd = g_get_current_dir ();
  const char *command[] = { "bash", "-c", "make test", NULL };
  const char *dirs[] = { argc > 1 ? argv[1] : NULL, NULL };
  const char *helpers[] = { argc > 2 ? argv[2] : NULL, NULL };
  g_autoptr (GError) error = NULL;
  gint64 start, first_us;

  provider = argc > 2 ? dsh_local_provider_new_for_dirs (dirs, helpers) : dsh_local_provider_new ();
  policy = dsh_sandbox_policy_new (DSH_SANDBOX_MODE_WORKSPACE_WRITE, cwd, NULL);

  /* The first call scans, loads and (for a chain) probes. */
  start = g_get_monotonic_time ();
  {
    g_autoptr (DshConfinedArgv) first = dsh_sandbox_provider_confine (
      DSH_SANDBOX_PROVIDER (provider), command, policy, &error);

    if (first == NULL)
      {
        g_printerr ("confine failed: %s\n", error->message);
        return 1;
      }
  }
  first_us = g_get_monotonic_time () - start;

  for (guint i = 0; i < ITERATIONS; i++)
    {
      gint64 t0 = g_get_monotonic_time ();
      g_autoptr (DshConfinedArgv) confined = dsh_sandbox_provider_confine (
        DSH_SANDBOX_PROVIDER (provider), command, policy, NULL);
      double us = (double) (g_get_monotonic_time () - t0);

      g_assert (confined != NULL);
      g_array_append_val (samples, us);
    }
  g_array_sort (samples, compare_doubles);

  g_print ("{\"backend\": \"%s\", \"first_confine_us\": %" G_GINT64_FORMAT
           ", \"cached_confine_median_us\": %.1f, \"cached_confine_p99_us\": %.1f}\n",
           dsh_local_provider_get_selected (provider, NULL), first_us,
           g_array_index (samples, double, ITERATIONS / 2),
           g_array_index (samples, double, ITERATIONS * 99 / 100));
  return 0;
}
