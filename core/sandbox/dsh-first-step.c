/* dsh-first-step.c — a runner's first step done in a process that exits after the command.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-first-step-private.h"

#include <string.h>

gboolean
dsh_first_step_take (DshFirstStep *step,
                     DshBackendSelector *selector,
                     const char *const *argv,
                     char **runner_line,
                     int *runner_status)
{
  DshBackendModule *module = dsh_backend_selector_selected_module (selector);
  const DshBackendDescriptor *descriptor = module != NULL ? module->descriptor : NULL;
  int32_t status = 0;

  memset (step, 0, sizeof (*step));
  if (descriptor == NULL || !DSH_BACKEND_ABI_AT_LEAST (descriptor, 2) ||
      descriptor->take_first_step == NULL || descriptor->first_step_done == NULL)
    return TRUE;
  step->module = module;
  /* The step looks nothing up: what it runs was found and checked when argv was made. */
  dsh_backend_call_init (&step->call, NULL, NULL);
  if (!dsh_backend_module_bind_instance (module, &step->call))
    return TRUE;
  if (descriptor->take_first_step (&step->call.host, argv, &status) != 0)
    {
      *runner_line = g_strdup (step->call.error != NULL ? step->call.error
                                                        : "the runner's first step failed");
      *runner_status = status;
      return FALSE;
    }
  step->taken = step->call.argv->len > 0;
  if (step->taken)
    g_ptr_array_add (step->call.argv, NULL);
  else
    g_clear_pointer (&step->call.argv, g_ptr_array_unref);
  return TRUE;
}

void
dsh_first_step_finish (DshFirstStep *step)
{
  if (step->module == NULL)
    return;
  if (step->taken)
    step->module->descriptor->first_step_done (&step->call.host);
  dsh_backend_call_clear (&step->call);
  step->module = NULL;
}
