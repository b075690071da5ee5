/* test-fresh-mounts.c — inside the sandbox, bwrap's launcher tells the filesystems bwrap makes
 * fresh (/dev, /dev/pts, /proc, a private /tmp) from the host's, though the kernel may give one
 * the device number a host filesystem had when the launcher noted the host's: it hands out the
 * lowest number free, so a host mounting and unmounting filesystems made calls fail at random.
 * A host filesystem still mounted, bound where bwrap would make a fresh one, is still refused.
 *
 * The launcher's step inside runs here under bwrap as confine's argv would run it, with the
 * checks the outside would hand it: every anonymous device number named as the host's, as if
 * each fresh filesystem got one a host filesystem had a moment before.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#define _GNU_SOURCE

#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "dsh-test-util.h"

/* The launcher among the build's helper directories. */
static char *
bwrap_launcher (void)
{
  g_auto (GStrv) dirs = g_strsplit (dsh_test_getenv_required ("DSH_TEST_HELPER_DIRS"), ":", -1);

  for (gsize i = 0; dirs[i] != NULL; i++)
    {
      g_autofree char *path = g_build_filename (dirs[i], "dsh-bwrap-exec", NULL);

      if (g_file_test (path, G_FILE_TEST_IS_EXECUTABLE))
        return g_steal_pointer (&path);
    }
  g_error ("no dsh-bwrap-exec in DSH_TEST_HELPER_DIRS");
}

/* The checks the outside hands the step inside, every anonymous device number a host one, a
 * private /tmp; then the command. */
static int
checks_naming_every_anonymous_device (void)
{
  g_autoptr (GString) text = g_string_new (NULL);
  static const char command[] = "/bin/sh\0-c\0echo ran";
  int fd = memfd_create ("checks", 0);

  g_assert_cmpint (fd, >=, 0);
  for (unsigned int minor = 1; minor < 4096; minor++)
    g_string_append_printf (text, "H %llu\n", (unsigned long long) makedev (0, minor));
  g_string_append (text, "T\n\n");
  g_string_append_len (text, command, sizeof command);
  g_assert_cmpint (write (fd, text->str, text->len), ==, (gssize) text->len);
  g_assert_cmpint (lseek (fd, 0, SEEK_SET), ==, 0);
  return fd;
}

/* Runs the step inside under bwrap with a fresh /dev and /proc, and at /tmp a fresh tmpfs, or
 * host_tmp bound writable there. */
static void
run_inside (DshTestRun *run, const char *host_tmp)
{
  g_autoptr (GSubprocessLauncher) launcher =
    g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE);
  g_autoptr (GSubprocess) process = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *launcher_path = bwrap_launcher ();
  int self = open (launcher_path, O_RDONLY);
  const char *argv[] = {
    "bwrap", "--unshare-user", "--unshare-pid", "--die-with-parent", "--ro-bind", "/", "/",
    "--dev", "/dev", "--proc", "/proc",
    host_tmp != NULL ? "--bind" : "--tmpfs", host_tmp != NULL ? host_tmp : "/tmp", "/tmp",
    "--", "/proc/self/fd/3", "--inside", "4", "3", NULL,
  };

  if (host_tmp == NULL)
    memmove (&argv[13], &argv[14], sizeof (argv) - 14 * sizeof (argv[0]));
  g_assert_cmpint (self, >=, 0);
  g_subprocess_launcher_take_fd (launcher, self, 3);
  g_subprocess_launcher_take_fd (launcher, checks_naming_every_anonymous_device (), 4);
  process = g_subprocess_launcher_spawnv (launcher, argv, &error);
  g_assert_no_error (error);
  dsh_test_run_clear (run);
  g_subprocess_communicate_utf8 (process, NULL, NULL, &run->out, &run->err, &error);
  g_assert_no_error (error);
  run->exit_code = g_subprocess_get_if_exited (process) ? g_subprocess_get_exit_status (process)
                                                        : 128 + g_subprocess_get_term_sig (process);
}

static void
test_number_of_a_host_filesystem_unmounted_since (void)
{
  g_auto (DshTestRun) run = { 0 };

  if (!dsh_test_require_bwrap ())
    return;
  run_inside (&run, NULL);
  g_assert_cmpstr (run.err, ==, "");
  g_assert_cmpstr (run.out, ==, "ran\n");
  g_assert_cmpint (run.exit_code, ==, 0);
}

/* A tmpfs the host still has mounted, bound where a fresh /tmp would be: its number is the
 * host's, and so is the filesystem. */
static void
test_host_filesystem_still_mounted (void)
{
  g_autofree char *dir = NULL;
  g_auto (DshTestRun) run = { 0 };

  if (!dsh_test_require_bwrap () ||
      !dsh_test_require (geteuid () == 0, "mounting file systems needs root (CI runs as root)"))
    return;
  dir = dsh_test_scratch_dir ("fresh-mounts");
  g_assert_cmpint (mount ("dsh-test", dir, "tmpfs", 0, NULL), ==, 0);
  run_inside (&run, dir);
  g_assert_cmpint (umount (dir), ==, 0);
  dsh_test_remove_tree (dir);
  g_assert_cmpstr (run.out, ==, "");
  g_assert_cmpint (run.exit_code, ==, 125);
  dsh_test_assert_one_line (run.err, "dsh-bwrap-exec: fatal: ",
                            "a writable mount at '/tmp' is not one this call asked for");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/fresh-mounts/number-of-a-host-filesystem-unmounted-since",
                   test_number_of_a_host_filesystem_unmounted_since);
  g_test_add_func ("/fresh-mounts/host-filesystem-still-mounted",
                   test_host_filesystem_still_mounted);
  return g_test_run ();
}
