/* dsh-landlock-exec.h — what the Landlock launcher and the backend module agree on: the
 * launcher's name, and how it says that it failed before the command ran (one stderr line with
 * the fatal prefix, exit status 125), which the module publishes as its runner-failure rule.
 * Plain C, no GLib: the launcher links libc only.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#define DSH_LANDLOCK_EXEC_NAME "dsh-landlock-exec"
/* Every line the launcher itself writes starts with this. */
#define DSH_LANDLOCK_EXEC_PREFIX DSH_LANDLOCK_EXEC_NAME ": "
/* ...and this when it failed before the command ran, with this exit status. */
#define DSH_LANDLOCK_FATAL_PREFIX DSH_LANDLOCK_EXEC_PREFIX "fatal: "
#define DSH_LANDLOCK_EXIT_FAILURE 125
