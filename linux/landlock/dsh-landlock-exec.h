/* dsh-landlock-exec.h — what the Landlock launcher and the backend module agree on: the
 * launcher's name, and how it says that it failed before the command ran (one stderr line with
 * the fatal prefix, exit status 125), which the module publishes as its runner-failure rule, and
 * how both explain a kernel that does not enforce Landlock.
 * Plain C, no GLib: the launcher links libc only.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <errno.h>

#define DSH_LANDLOCK_EXEC_NAME "dsh-landlock-exec"
/* Every line the launcher itself writes starts with this. */
#define DSH_LANDLOCK_EXEC_PREFIX DSH_LANDLOCK_EXEC_NAME ": "
/* ...and this when it failed before the command ran, with this exit status. */
#define DSH_LANDLOCK_FATAL_PREFIX DSH_LANDLOCK_EXEC_PREFIX "fatal: "
#define DSH_LANDLOCK_EXIT_FAILURE 125

/* Why the ABI version query failed with errnum: the errno's name ("ENOSYS, "; "" for any
 * other) and what usually causes it (": ..."; "" for any other). */
static inline void
dsh_landlock_unavailable_cause (int errnum, const char **name, const char **cause)
{
  *name = "";
  *cause = "";
  switch (errnum)
    {
    case ENOSYS:
      *name = "ENOSYS, ";
      *cause = ": the kernel lacks Landlock, or a seccomp filter hides it";
      break;
    case EOPNOTSUPP:
      *name = "EOPNOTSUPP, ";
      *cause = ": Landlock is built in but disabled (see the lsm= boot parameter)";
      break;
    case EPERM:
      *name = "EPERM, ";
      *cause = ": refused, as a container's seccomp profile does";
      break;
    }
}
