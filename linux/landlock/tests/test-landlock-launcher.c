/* test-landlock-launcher.c — runs the real dsh-landlock-exec on this kernel and asserts what the
 * kernel did to the files, without the core or the command line in between.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/loop.h>

#include "dsh-landlock-exec.h"
#include "dsh-test-linux.h"

typedef struct {
  char *base;
  /* The one --write root. */
  char *ws;
  /* A sibling directory no rule makes writable. */
  char *outside;
  char *outside_file;
  char *inside_file;
} Fixture;

static void
fixture_set_up (Fixture *f, gconstpointer data)
{
  (void) data;
  f->base = dsh_test_scratch_dir ("landlock-launcher");
  f->ws = dsh_test_make_dir (f->base, "ws");
  f->outside = dsh_test_make_dir (f->base, "outside");
  f->outside_file = dsh_test_make_file (f->outside, "file", "original\n");
  f->inside_file = dsh_test_make_file (f->ws, "file", "inside\n");
}

static void
fixture_tear_down (Fixture *f, gconstpointer data)
{
  (void) data;
  dsh_test_remove_tree (f->base);
  g_free (f->base);
  g_free (f->ws);
  g_free (f->outside);
  g_free (f->outside_file);
  g_free (f->inside_file);
}

/* dsh-landlock-exec --write WS -- dsh-test-fileop OP A [B] */
static void
run_fileop (Fixture *f, const char *op, const char *a, const char *b, DshTestRun *run)
{
  const char *argv[] = {
    dsh_test_getenv_required ("DSH_LANDLOCK_EXEC"), "--write", f->ws, "--",
    dsh_test_getenv_required ("DSH_TEST_FILEOP"), op, a, b, NULL,
  };

  dsh_test_run (run, argv, NULL, NULL, NULL);
}

static void
assert_denied (const DshTestRun *run, const char *errno_name)
{
  g_assert_cmpint (run->exit_code, ==, 1);
  g_assert_cmpstr (run->out, ==, errno_name);
}

static void
assert_ok (const DshTestRun *run)
{
  g_assert_cmpint (run->exit_code, ==, 0);
  g_assert_cmpstr (run->out, ==, "ok\n");
}

/* Moving or linking across the root's edge: EXDEV when reparenting is refused, EACCES when
 * making the new entry is. */
static void
assert_move_refused (const DshTestRun *run)
{
  g_assert_cmpint (run->exit_code, ==, 1);
  g_assert_true (g_str_equal (run->out, "EXDEV\n") || g_str_equal (run->out, "EACCES\n"));
}

static void
test_write_outside_denied (Fixture *f, gconstpointer data)
{
  g_auto (DshTestRun) run = { 0 };
  g_auto (DshTestRun) shell = { 0 };
  g_autofree char *new_file = g_build_filename (f->outside, "new", NULL);
  g_autofree char *script = g_strdup_printf ("echo changed > '%s'", f->outside_file);
  const char *argv[] = {
    dsh_test_getenv_required ("DSH_LANDLOCK_EXEC"), "--write", f->ws, "--", "sh", "-c", script,
    NULL,
  };

  if (!dsh_test_require_landlock ())
    return;

  run_fileop (f, "write", f->outside_file, NULL, &run);
  assert_denied (&run, "EACCES\n");
  dsh_test_assert_file_is (f->outside_file, "original\n");
  g_assert_true (strstr (run.err, "Permission denied") != NULL);

  run_fileop (f, "write", new_file, NULL, &run);
  assert_denied (&run, "EACCES\n");
  g_assert_false (g_file_test (new_file, G_FILE_TEST_EXISTS));

  /* A real shell shows the dialect the module publishes. */
  dsh_test_run (&shell, argv, NULL, NULL, NULL);
  g_assert_cmpint (shell.exit_code, !=, 0);
  g_assert_true (strstr (shell.err, "Permission denied") != NULL);
  dsh_test_assert_file_is (f->outside_file, "original\n");
}

static void
test_write_beneath_allowed (Fixture *f, gconstpointer data)
{
  g_auto (DshTestRun) run = { 0 };
  g_autofree char *sub = g_build_filename (f->ws, "sub", NULL);
  g_autofree char *moved = g_build_filename (sub, "moved", NULL);
  g_autofree char *linked = g_build_filename (sub, "linked", NULL);

  if (!dsh_test_require_landlock ())
    return;

  run_fileop (f, "write", f->inside_file, "written\n", &run);
  assert_ok (&run);
  dsh_test_assert_file_is (f->inside_file, "written\n");

  run_fileop (f, "mkdir", sub, NULL, &run);
  assert_ok (&run);

  /* Reparenting inside the root needs REFER, granted from ABI 2 on. */
  run_fileop (f, "link", f->inside_file, linked, &run);
  if (dsh_test_landlock_abi () >= 2)
    {
      assert_ok (&run);
      run_fileop (f, "rename", f->inside_file, moved, &run);
      assert_ok (&run);
      dsh_test_assert_file_is (moved, "written\n");

      run_fileop (f, "ftruncate", linked, NULL, &run);
      assert_ok (&run);
      dsh_test_assert_file_is (moved, "");
    }
  else
    assert_denied (&run, "EXDEV\n");
}

/* Truncation outside the root is refused on every ABI: by Landlock's TRUNCATE right from ABI 3,
 * below that by the launcher's seccomp filter (path truncate(2), O_TRUNC without write access,
 * openat2, whose flags a filter cannot see, and io_uring, which a filter cannot see into). */
static void
test_truncate_outside_denied (Fixture *f, gconstpointer data)
{
  const char *ops[] = {
    "truncate", "open-trunc", "open-trunc-noacc", "openat2-trunc", "open-by-handle-trunc",
    "ftruncate",
#if defined(__x86_64__)
    /* Through the 32-bit table. */
    "int80-truncate", "int80-open-trunc",
#endif
  };

  if (!dsh_test_require_landlock ())
    return;

  for (gsize i = 0; i < G_N_ELEMENTS (ops); i++)
    {
      g_auto (DshTestRun) run = { 0 };

      run_fileop (f, ops[i], f->outside_file, NULL, &run);
      g_test_message ("%s outside: %s", ops[i], run.out);
      g_assert_cmpint (run.exit_code, ==, 1);
      if (g_str_equal (ops[i], "openat2-trunc") && dsh_test_landlock_abi () < 3)
        g_assert_cmpstr (run.out, ==, "ENOSYS\n");
      /* Opening by handle takes CAP_DAC_READ_SEARCH, which no command keeps (below ABI 3 the
       * filter refuses O_TRUNC first). */
      else if (g_str_equal (ops[i], "open-by-handle-trunc") && dsh_test_landlock_abi () >= 3)
        g_assert_cmpstr (run.out, ==, "EPERM\n");
      else
        g_assert_cmpstr (run.out, ==, "EACCES\n");
      dsh_test_assert_file_is (f->outside_file, "original\n");
    }
}

/* Inside the root, truncating through a descriptor opened for writing works on every ABI. Below
 * ABI 3 the filter cannot tell inside from outside, so truncate(2) by path and O_TRUNC without
 * write access are refused there too (too strict, not a hole), and io_uring is unavailable. */
static void
test_truncate_inside (Fixture *f, gconstpointer data)
{
  g_auto (DshTestRun) run = { 0 };
  gboolean governed = dsh_test_landlock_abi () >= 3;

  if (!dsh_test_require_landlock ())
    return;

  run_fileop (f, "ftruncate", f->inside_file, NULL, &run);
  assert_ok (&run);
  dsh_test_assert_file_is (f->inside_file, "");

  run_fileop (f, "write", f->inside_file, "rewritten\n", &run);
  assert_ok (&run);
  dsh_test_assert_file_is (f->inside_file, "rewritten\n");

  run_fileop (f, "truncate", f->inside_file, NULL, &run);
  if (governed)
    {
      assert_ok (&run);
      dsh_test_assert_file_is (f->inside_file, "");
    }
  else
    {
      assert_denied (&run, "EACCES\n");
      dsh_test_assert_file_is (f->inside_file, "rewritten\n");
    }

  run_fileop (f, "open-trunc", f->inside_file, NULL, &run);
  if (governed)
    assert_ok (&run);
  else
    assert_denied (&run, "EACCES\n");

  run_fileop (f, "io-uring", f->inside_file, NULL, &run);
  if (!governed)
    assert_denied (&run, "ENOSYS\n");
}

static void
test_rename_link_out_denied (Fixture *f, gconstpointer data)
{
  g_auto (DshTestRun) run = { 0 };
  g_autofree char *out_target = g_build_filename (f->outside, "escaped", NULL);
  g_autofree char *in_target = g_build_filename (f->ws, "pulled-in", NULL);

  if (!dsh_test_require_landlock ())
    return;

  /* Out of the writable root: nothing moves. */
  run_fileop (f, "rename", f->inside_file, out_target, &run);
  assert_move_refused (&run);
  dsh_test_assert_file_is (f->inside_file, "inside\n");
  g_assert_false (g_file_test (out_target, G_FILE_TEST_EXISTS));

  run_fileop (f, "link", f->inside_file, out_target, &run);
  assert_move_refused (&run);
  g_assert_false (g_file_test (out_target, G_FILE_TEST_EXISTS));

  /* Pulling an outside file in would remove it from a directory the command cannot write. */
  run_fileop (f, "rename", f->outside_file, in_target, &run);
  assert_move_refused (&run);
  dsh_test_assert_file_is (f->outside_file, "original\n");

  /* A hard link from outside into the root would let the command write the outside inode. */
  run_fileop (f, "link", f->outside_file, in_target, &run);
  assert_move_refused (&run);
  g_assert_false (g_file_test (in_target, G_FILE_TEST_EXISTS));
}

static void
test_fifo_socket_outside_denied (Fixture *f, gconstpointer data)
{
  g_auto (DshTestRun) run = { 0 };
  g_autofree char *fifo_out = g_build_filename (f->outside, "fifo", NULL);
  g_autofree char *sock_out = g_build_filename (f->outside, "sock", NULL);
  g_autofree char *fifo_in = g_build_filename (f->ws, "fifo", NULL);
  g_autofree char *sock_in = g_build_filename (f->ws, "sock", NULL);

  if (!dsh_test_require_landlock ())
    return;

  run_fileop (f, "mkfifo", fifo_out, NULL, &run);
  assert_denied (&run, "EACCES\n");
  g_assert_false (g_file_test (fifo_out, G_FILE_TEST_EXISTS));

  run_fileop (f, "bind", sock_out, NULL, &run);
  assert_denied (&run, "EACCES\n");
  g_assert_false (g_file_test (sock_out, G_FILE_TEST_EXISTS));

  run_fileop (f, "mkfifo", fifo_in, NULL, &run);
  assert_ok (&run);

  run_fileop (f, "bind", sock_in, NULL, &run);
  assert_ok (&run);
}

static void
test_required_sinks_writable (Fixture *f, gconstpointer data)
{
  g_auto (DshTestRun) run = { 0 };
  const char *argv[] = {
    dsh_test_getenv_required ("DSH_LANDLOCK_EXEC"), "--", "sh", "-c",
    "echo x > /dev/null && echo x > /dev/zero && echo sink-ok", NULL,
  };

  if (!dsh_test_require_landlock ())
    return;

  /* Read-only: no --write at all. */
  dsh_test_run (&run, argv, NULL, NULL, NULL);
  g_assert_cmpint (run.exit_code, ==, 0);
  g_assert_cmpstr (run.out, ==, "sink-ok\n");

  /* /dev/full opens for writing; its ENOSPC is the device's answer, not a denial. */
  run_fileop (f, "append", "/dev/full", NULL, &run);
  assert_denied (&run, "ENOSPC\n");
}

static void
test_proc_self_fd_reopen_denied (Fixture *f, gconstpointer data)
{
  g_auto (DshTestRun) run = { 0 };

  if (!dsh_test_require_landlock ())
    return;

  run_fileop (f, "procfd-write", f->outside_file, NULL, &run);
  assert_denied (&run, "EACCES\n");
  dsh_test_assert_file_is (f->outside_file, "original\n");

  /* The same trick inside the root works: the magic link resolves to a writable path. */
  run_fileop (f, "procfd-write", f->inside_file, NULL, &run);
  assert_ok (&run);
  dsh_test_assert_file_is (f->inside_file, "inside\nchanged\n");
}

static void
test_dev_shm_denied (Fixture *f, gconstpointer data)
{
  g_auto (DshTestRun) run = { 0 };
  g_autofree char *name = g_strdup_printf ("/dev/shm/dsh-landlock-test-%d", (int) getpid ());

  if (!dsh_test_require_landlock ())
    return;
  if (!dsh_test_require (g_file_test ("/dev/shm", G_FILE_TEST_IS_DIR), "no /dev/shm"))
    return;

  run_fileop (f, "write", name, NULL, &run);
  assert_denied (&run, "EACCES\n");
  g_assert_false (g_file_test (name, G_FILE_TEST_EXISTS));
}

static void
test_missing_root_still_enforces (Fixture *f, gconstpointer data)
{
  g_auto (DshTestRun) run = { 0 };
  g_autofree char *missing = g_build_filename (f->base, "not-yet", NULL);
  const char *argv[] = {
    dsh_test_getenv_required ("DSH_LANDLOCK_EXEC"), "--write", missing, "--",
    dsh_test_getenv_required ("DSH_TEST_FILEOP"), "write", f->inside_file, NULL,
  };

  if (!dsh_test_require_landlock ())
    return;

  dsh_test_run (&run, argv, NULL, NULL, NULL);
  assert_denied (&run, "EACCES\n");
  dsh_test_assert_file_is (f->inside_file, "inside\n");
}

/* Pins the reason the module reports partial enforcement on every ABI so far: metadata changes
 * are not Landlock rights. If a future ABI governs them, this test says to update the module. */
static void
test_metadata_not_governed (Fixture *f, gconstpointer data)
{
  g_auto (DshTestRun) run = { 0 };
  struct stat st;

  if (!dsh_test_require_landlock ())
    return;

  run_fileop (f, "chmod", f->outside_file, "600", &run);
  assert_ok (&run);
  g_assert_cmpint (g_stat (f->outside_file, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 0777, ==, 0600);

  run_fileop (f, "utime", f->outside_file, NULL, &run);
  assert_ok (&run);
  dsh_test_assert_file_is (f->outside_file, "original\n");
}

/* A caller running as root could otherwise create a disk's device node inside the workspace and
 * write the host through it; the launcher withholds MAKE_CHAR and MAKE_BLOCK. */
static void
test_no_device_nodes_in_root (Fixture *f, gconstpointer data)
{
  g_auto (DshTestRun) run = { 0 };
  g_autofree char *node = g_build_filename (f->ws, "null", NULL);

  if (!dsh_test_require_landlock ())
    return;

  run_fileop (f, "mknod-null", node, NULL, &run);
  g_assert_cmpint (run.exit_code, ==, 1);
  g_assert_true (g_str_equal (run.out, "EACCES\n") || g_str_equal (run.out, "EPERM\n"));
  g_assert_false (g_file_test (node, G_FILE_TEST_EXISTS));
}

static void
become_terminal_session (gpointer user_data)
{
  int fd;

  setsid ();
  /* A session leader without a terminal acquires the first one it opens. */
  fd = open (user_data, O_RDWR);
  if (fd >= 0 && fd != 3)
    {
      dup2 (fd, 3);
      close (fd);
    }
}

/* Runs `dsh-test-fileop tiocsti 3` (under the launcher or not) in a new session whose controlling
 * terminal is the pty `slave_path`, handed over as descriptor 3: the position of a command the
 * caller's interactive shell started. */
static void
run_tiocsti (const char *slave_path, gboolean confined, DshTestRun *run)
{
  const char *argv[] = {
    dsh_test_getenv_required ("DSH_LANDLOCK_EXEC"), "--",
    dsh_test_getenv_required ("DSH_TEST_FILEOP"), "tiocsti", "3", NULL,
  };

  dsh_test_run_full (run, confined ? argv : argv + 2, NULL, NULL, NULL, become_terminal_session,
                     (gpointer) slave_path);
}

/* The command shares the caller's terminal; it must not be able to type into it (the typed text
 * would run unconfined in the caller's shell once the command exits). */
static void
test_terminal_injection_refused (Fixture *f, gconstpointer data)
{
  g_auto (DshTestRun) baseline = { 0 };
  g_auto (DshTestRun) run = { 0 };
  int master;

  if (!dsh_test_require_landlock ())
    return;

  master = posix_openpt (O_RDWR | O_NOCTTY);
  if (!dsh_test_require (master >= 0, "no pseudo-terminals"))
    return;
  g_assert_cmpint (grantpt (master), ==, 0);
  g_assert_cmpint (unlockpt (master), ==, 0);

  /* Unconfined, the kernel lets a process type into its own terminal unless the
   * dev.tty.legacy_tiocsti sysctl is off (then EIO). */
  run_tiocsti (ptsname (master), FALSE, &baseline);
  g_test_message ("unconfined TIOCSTI: %s", baseline.out);
  g_assert_true (g_str_equal (baseline.out, "ok\n") || g_str_equal (baseline.out, "EIO\n"));

  run_tiocsti (ptsname (master), TRUE, &run);
  assert_denied (&run, "EPERM\n");
  close (master);
}

/* The loop driver's requests need only a descriptor opened for reading, and Landlock grants
 * device ioctls with reading (below ABI 5 it governs none): a read-only command could swap the
 * backing file of the user's read-only loop device, bound to a file outside every root
 * (LOOP_CHANGE_FD), so that its next mount serves the command's bytes; or bind, unbind and
 * reconfigure devices, and add or remove them through /dev/loop-control. The filter refuses the
 * loop driver's and loop-control's requests on every ABI, through every table. */

/* Binds a free loop device to `path`, read-only and cleared once nothing has it open (so a
 * failed assertion leaves nothing bound); its descriptor, its index in *index. */
static int
bind_loop_read_only (const char *path, int *index)
{
  int control = open ("/dev/loop-control", O_RDWR | O_CLOEXEC);
  struct loop_config config = { 0 };
  int loop = -1;

  if (!dsh_test_require (control >= 0, "no loop devices (/dev/loop-control)"))
    return -1;
  config.fd = (guint32) open (path, O_RDONLY | O_CLOEXEC);
  config.info.lo_flags = LO_FLAGS_READ_ONLY | LO_FLAGS_AUTOCLEAR;
  g_assert_cmpint ((int) config.fd, >=, 0);
  /* Another process may take the free one first. */
  for (int tries = 0; tries < 16 && loop < 0; tries++)
    {
      g_autofree char *device = NULL;

      *index = ioctl (control, LOOP_CTL_GET_FREE);
      g_assert_cmpint (*index, >=, 0);
      device = g_strdup_printf ("/dev/loop%d", *index);
      loop = open (device, O_RDONLY | O_CLOEXEC);
      g_assert_cmpint (loop, >=, 0);
      if (ioctl (loop, LOOP_CONFIGURE, &config) != 0)
        {
          g_assert_cmpint (errno, ==, EBUSY);
          close (loop);
          loop = -1;
        }
    }
  g_assert_cmpint (loop, >=, 0);
  close ((int) config.fd);
  close (control);
  return loop;
}

static void
test_loop_ioctls_refused (Fixture *f, gconstpointer data)
{
  g_autofree char *own = dsh_test_make_file (f->ws, "own", "swapped!\n");
  g_autofree char *device = NULL, *index_text = NULL;
  struct loop_info64 info = { 0 };
  struct stat backing;
  int loop, index;

  if (!dsh_test_require_landlock ())
    return;
  if (!dsh_test_require (geteuid () == 0, "opening loop devices takes root"))
    return;
  loop = bind_loop_read_only (f->outside_file, &index);
  if (loop < 0)
    return;
  device = g_strdup_printf ("/dev/loop%d", index);
  index_text = g_strdup_printf ("%d", index);
  g_assert_no_errno (stat (f->outside_file, &backing));

  {
    /* VIA, device or loop-control, request, argument: the command's own file's descriptor
     * (OWN), or a number. */
    const struct {
      const char *via;
      gboolean control;
      unsigned int request;
      const char *arg;
    } cases[] = {
      { "native", FALSE, LOOP_CHANGE_FD, own },
      { "native", FALSE, LOOP_SET_FD, own },
      { "native", FALSE, LOOP_CLR_FD, "0" },
      { "native", FALSE, LOOP_CONFIGURE, "0" },
      { "native", FALSE, LOOP_SET_CAPACITY, "0" },
      { "native", FALSE, 0x4C1F, "0" }, /* the top of the driver's range */
      { "native", TRUE, LOOP_CTL_GET_FREE, "0" },
      { "native", TRUE, LOOP_CTL_REMOVE, index_text },
#if defined(__x86_64__)
      /* The same through the 32-bit and the x32 tables. */
      { "int80", FALSE, LOOP_CHANGE_FD, own },
      { "int80", FALSE, LOOP_CLR_FD, "0" },
      { "int80", TRUE, LOOP_CTL_GET_FREE, "0" },
      { "x32", FALSE, LOOP_CHANGE_FD, own },
      { "x32", TRUE, LOOP_CTL_GET_FREE, "0" },
#endif
    };

    for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
      {
        g_auto (DshTestRun) run = { 0 };
        g_autofree char *request = g_strdup_printf ("0x%x", cases[i].request);
        const char *target = cases[i].control ? "/dev/loop-control" : device;
        const char *argv[] = {
          dsh_test_getenv_required ("DSH_LANDLOCK_EXEC"), "--write", f->ws, "--",
          dsh_test_getenv_required ("DSH_TEST_FILEOP"), "ioctl", cases[i].via, target, request,
          cases[i].arg, NULL,
        };

        dsh_test_run (&run, argv, NULL, NULL, NULL);
        g_test_message ("%s %s on %s: %s", cases[i].via, request, target, run.out);
        assert_denied (&run, "EPERM\n");
        /* The device still serves the user's file. */
        g_assert_no_errno (ioctl (loop, LOOP_GET_STATUS64, &info));
        g_assert_cmpuint (info.lo_inode, ==, backing.st_ino);
        g_assert_cmpuint (info.lo_flags & LO_FLAGS_READ_ONLY, !=, 0);
      }
  }
  /* Unbound as the last descriptor closes. */
  close (loop);
}

/* In a session of its own, so a signal to "the group" cannot reach the test. */
static void
become_session_leader (gpointer user_data)
{
  (void) user_data;
  setsid ();
}

/* `timeout -s KILL 30 dsh-landlock-exec -- ARGV` in a new session: a stopped launcher fails the
 * test instead of hanging it. */
static void
run_guarded (const char *const *command, DshTestRun *run)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();

  g_ptr_array_add (argv, (char *) "timeout");
  g_ptr_array_add (argv, (char *) "-s");
  g_ptr_array_add (argv, (char *) "KILL");
  g_ptr_array_add (argv, (char *) "30");
  g_ptr_array_add (argv, (char *) dsh_test_getenv_required ("DSH_LANDLOCK_EXEC"));
  g_ptr_array_add (argv, (char *) "--");
  for (gsize i = 0; command[i] != NULL; i++)
    g_ptr_array_add (argv, (char *) command[i]);
  g_ptr_array_add (argv, NULL);
  dsh_test_run_full (run, (const char *const *) argv->pdata, NULL, NULL, NULL,
                     become_session_leader, NULL);
}

/* The command cannot signal its launcher, whatever the ABI: from ABI 6 Landlock scopes signals,
 * below that the launcher's seccomp filter refuses every way of aiming one at it. A launcher
 * that got SIGUSR1 would die of it; here it passes the command's status on. */
static void
test_signals_to_launcher_refused (Fixture *f, gconstpointer data)
{
  const char *vias[] = {
    "kill", "tkill", "tgkill", "sigqueue", "tgsigqueue", "pidfd", "procfd", "setown", "setown-ex",
#if defined(__x86_64__)
    /* The same kill(2) through the 32-bit and the x32 tables. */
    "int80-kill", "x32-kill",
#endif
  };
  const char *groups[] = { "group", "zero" };
  gboolean scoped = dsh_test_landlock_abi () >= 6;
  g_autofree char *usr1 = g_strdup_printf ("%d", SIGUSR1);

  if (!dsh_test_require_landlock ())
    return;

  for (gsize i = 0; i < G_N_ELEMENTS (vias); i++)
    {
      g_auto (DshTestRun) run = { 0 };
      const char *command[] = { dsh_test_getenv_required ("DSH_TEST_FILEOP"), "signal", vias[i],
                                "launcher", usr1, NULL };

      run_guarded (command, &run);
      g_test_message ("%s to the launcher: %s", vias[i], run.out);
      g_assert_cmpint (run.term_signal, ==, 0);
      /* Scoping refuses an owner's signal when it is sent, not when the owner is set. */
      if (!scoped || !g_str_has_prefix (vias[i], "setown"))
        g_assert_cmpint (run.exit_code, ==, 1);
      if (!scoped && (g_str_equal (vias[i], "pidfd") || g_str_equal (vias[i], "procfd")))
        g_assert_cmpstr (run.out, ==, "ENOSYS\n");
      else if (!scoped)
        g_assert_cmpstr (run.out, ==, "EPERM\n");
    }

  /* The launcher's process group, by its number or as our own: below ABI 6 refused outright, from
   * ABI 6 it reaches the command's own processes only. */
  for (gsize i = 0; i < G_N_ELEMENTS (groups); i++)
    {
      g_auto (DshTestRun) run = { 0 };
      const char *command[] = { dsh_test_getenv_required ("DSH_TEST_FILEOP"), "signal", "kill",
                                groups[i], usr1, NULL };

      run_guarded (command, &run);
      g_test_message ("kill to %s: %s", groups[i], run.out);
      g_assert_cmpint (run.term_signal, ==, 0);
      if (!scoped)
        g_assert_cmpstr (run.out, ==, "EPERM\n");
    }

  /* Every process, and the launcher's caller: probed with signal 0 only, which delivers nothing. */
  {
    g_auto (DshTestRun) all = { 0 };
    g_auto (DshTestRun) caller = { 0 };
    const char *to_all[] = { dsh_test_getenv_required ("DSH_TEST_FILEOP"), "signal", "kill", "all",
                             "0", NULL };
    const char *to_caller[] = { dsh_test_getenv_required ("DSH_TEST_FILEOP"), "signal", "kill",
                                "caller", "0", NULL };

    run_guarded (to_all, &all);
    if (!scoped)
      g_assert_cmpstr (all.out, ==, "EPERM\n");
    run_guarded (to_caller, &caller);
    g_assert_cmpstr (caller.out, ==, "EPERM\n");
  }
}

/* Stopping the launcher would hang the call for good; killing it would free what the command
 * leaves running. Neither works, on any ABI. */
static void
test_launcher_cannot_be_stopped_or_killed (Fixture *f, gconstpointer data)
{
  g_auto (DshTestRun) stop = { 0 };
  g_auto (DshTestRun) kill_run = { 0 };
  g_autofree char *late = g_build_filename (f->ws, "late", NULL);
  const char *stop_cmd[] = { "sh", "-c", "kill -STOP $PPID; echo done", NULL };
  const char *kill_cmd[] = {
    "sh", "-c",
    "setsid sh -c 'sleep 0.5; echo late > \"$0\"' \"$1\" </dev/null >/dev/null 2>&1 & "
    "kill -KILL $PPID; echo done",
    "sh", late, NULL,
  };

  if (!dsh_test_require_landlock ())
    return;

  run_guarded (stop_cmd, &stop);
  g_assert_cmpint (stop.exit_code, ==, 0);
  g_assert_cmpstr (stop.out, ==, "done\n");

  run_guarded (kill_cmd, &kill_run);
  g_assert_cmpint (kill_run.exit_code, ==, 0);
  g_usleep (1500 * 1000);
  g_assert_false (g_file_test (late, G_FILE_TEST_EXISTS));
}

/* Nor can it lower the launcher's limits, on any ABI (Landlock does not govern prlimit): with no
 * descriptors left the launcher could not find, through /proc, what the command left running. */
static void
test_launcher_limits_untouchable (Fixture *f, gconstpointer data)
{
  g_auto (DshTestRun) run = { 0 };
  g_autofree char *late = g_build_filename (f->ws, "late", NULL);
  const char *command[] = {
    "sh", "-c",
    "setsid sh -c 'sleep 0.5; echo late > \"$0\"' \"$1\" </dev/null >/dev/null 2>&1 & "
    "exec \"$2\" limit-launcher x",
    "sh", late, dsh_test_getenv_required ("DSH_TEST_FILEOP"), NULL,
  };

  if (!dsh_test_require_landlock ())
    return;

  run_guarded (command, &run);
  g_assert_cmpstr (run.out, ==, "EPERM\n");
  g_usleep (1500 * 1000);
  g_assert_false (g_file_test (late, G_FILE_TEST_EXISTS));
}

/* Nor its caller's, through any thread of the caller (a harness with threads of its own, as
 * Node's or the JVM's are): a limit set on one thread id holds for the whole process, so the
 * filter refuses setting another process's limits by id at all. The launcher is started here
 * straight from this process, with a second thread running. */
static gpointer
idle_thread (gpointer data)
{
  GCancellable *done = data;

  while (!g_cancellable_is_cancelled (done))
    g_usleep (10 * 1000);
  return NULL;
}

static void
test_caller_threads_limits_untouchable (Fixture *f, gconstpointer data)
{
  g_autoptr (GCancellable) done = g_cancellable_new ();
  g_autoptr (GThread) thread = NULL;
  g_auto (DshTestRun) run = { 0 };
  const char *argv[] = { dsh_test_getenv_required ("DSH_LANDLOCK_EXEC"), "--",
                         dsh_test_getenv_required ("DSH_TEST_FILEOP"), "limit-caller-thread", "x",
                         NULL };

  if (!dsh_test_require_landlock ())
    return;
  thread = g_thread_new ("idle", idle_thread, done);
  dsh_test_run (&run, argv, NULL, NULL, NULL);
  g_cancellable_cancel (done);
  g_thread_join (g_steal_pointer (&thread));
  g_test_message ("%s", run.err);
  g_assert_cmpstr (run.out, ==, "EPERM\n");
}

/* A signal that reaches the launcher before it has recorded the command's pid is forwarded all
 * the same: the delay before the signal sweeps across the launcher's start. */
static void
test_early_signal_not_lost (Fixture *f, gconstpointer data)
{
  const char *argv[] = { dsh_test_getenv_required ("DSH_LANDLOCK_EXEC"), "--", "sleep", "5",
                         NULL };

  if (!dsh_test_require_landlock ())
    return;

  for (int i = 0; i < 40; i++)
    {
      g_autoptr (GSubprocess) launcher = NULL;
      g_autoptr (GError) error = NULL;

      launcher = g_subprocess_newv (argv, G_SUBPROCESS_FLAGS_NONE, &error);
      g_assert_no_error (error);
      g_usleep ((gulong) (i % 20) * 100);
      g_subprocess_send_signal (launcher, SIGTERM);
      g_assert_true (g_subprocess_wait (launcher, NULL, &error));
      g_assert_no_error (error);
      if (!g_subprocess_get_if_signaled (launcher))
        g_error ("attempt %d: the launcher lost the SIGTERM (exit status %d)", i,
                 g_subprocess_get_exit_status (launcher));
      g_assert_cmpint (g_subprocess_get_term_sig (launcher), ==, SIGTERM);
    }
}

/* File flags are metadata Landlock does not govern, but setting append-only (or immutable) takes
 * CAP_LINUX_IMMUTABLE, which a root caller's command no longer holds: the outside file keeps its
 * flags. */
static void
test_file_flags_not_settable (Fixture *f, gconstpointer data)
{
  g_auto (DshTestRun) run = { 0 };
  const char *flags[] = { "+a", "-a" };

  if (!dsh_test_require_landlock ())
    return;
  if (!dsh_test_require (geteuid () == 0, "setting file flags takes root"))
    return;

  run_fileop (f, "chattr", f->outside_file, "+a", &run);
  g_assert_cmpstr (run.out, ==, "EPERM\n");
  /* Unconfined, the same caller can, and undoes it (so the refusal above is the sandbox's). */
  for (gsize i = 0; i < G_N_ELEMENTS (flags); i++)
    {
      const char *argv[] = { dsh_test_getenv_required ("DSH_TEST_FILEOP"), "chattr",
                             f->outside_file, flags[i], NULL };
      g_auto (DshTestRun) unconfined = { 0 };

      dsh_test_run (&unconfined, argv, NULL, NULL, NULL);
      g_assert_cmpstr (unconfined.out, ==, "ok\n");
    }
}

/* landlock_create_ruleset with handled_access_fs, handled_access_net and scoped in a struct of
 * `size` bytes: a ruleset descriptor (closed again), or -errno. */
static int
try_ruleset (guint64 fs, guint64 net, guint64 scoped, gsize size)
{
  guint64 attr[3] = { fs, net, scoped };
  int fd = (int) syscall (__NR_landlock_create_ruleset, attr, size, 0);

  if (fd < 0)
    return -errno;
  close (fd);
  return 0;
}

/* What the kernel, real or made to look older by the test's seccomp supervisor, refuses at this
 * ABI: rights it does not know, attribute fields beyond its struct, network rules before ABI 4,
 * restrict flags before ABI 7. The emulated ABIs are only as good as these answers. */
static void
test_kernel_refusals_match_abi (Fixture *f, gconstpointer data)
{
  long abi = dsh_test_landlock_abi ();
  int known = abi >= 5 ? 16 : abi >= 3 ? 15 : abi >= 2 ? 14 : 13;
  guint64 rights = (G_GUINT64_CONSTANT (1) << known) - 1;
  struct __attribute__ ((packed)) {
    guint64 allowed_access;
    gint32 parent_fd;
  } path_rule = { 1, -1 };
  struct {
    guint64 allowed_access;
    guint64 port;
  } port_rule = { 1, 8080 };
  guint64 attr[2] = { 1, 1 };
  int ruleset;

  if (!dsh_test_require_landlock ())
    return;

  g_assert_cmpint (try_ruleset (rights, 0, 0, 8), ==, 0);
  g_assert_cmpint (try_ruleset (rights | (rights + 1), 0, 0, 8), ==, -EINVAL);
  /* A bigger struct is fine while the fields an old kernel lacks are zero. */
  g_assert_cmpint (try_ruleset (rights, 0, 0, 24), ==, 0);
  g_assert_cmpint (try_ruleset (rights, 1, 0, 16), ==, abi >= 4 ? 0 : -E2BIG);
  g_assert_cmpint (try_ruleset (rights, 0, 2, 24), ==, abi >= 6 ? 0 : -E2BIG);
  /* Unknown bits in a field the kernel knows are EINVAL. */
  g_assert_cmpint (try_ruleset (rights, 4, 0, 16), ==, abi >= 4 ? -EINVAL : -E2BIG);
  g_assert_cmpint (try_ruleset (rights, 0, 4, 24), ==, abi >= 6 ? -EINVAL : -E2BIG);

  ruleset = (int) syscall (__NR_landlock_create_ruleset, attr, abi >= 4 ? 16 : 8, 0);
  g_assert_cmpint (ruleset, >=, 0);
  g_assert_cmpint (syscall (__NR_landlock_add_rule, ruleset, 2, &port_rule, 0), ==,
                   abi >= 4 ? 0 : -1);
  if (abi < 4)
    g_assert_cmpint (errno, ==, EINVAL);
  /* Path rules exist on every ABI: a bad descriptor is the only thing wrong here. */
  g_assert_cmpint (syscall (__NR_landlock_add_rule, ruleset, 1, &path_rule, 0), ==, -1);
  g_assert_cmpint (errno, ==, EBADF);
  close (ruleset);

  /* A flag with no descriptor: EINVAL where flags are unknown, EBADF where it needs one. */
  g_assert_cmpint (syscall (__NR_landlock_restrict_self, -1, 1U), ==, -1);
  g_assert_cmpint (errno, ==, abi >= 7 ? EBADF : EINVAL);
}

static void
assert_runner_failure (const DshTestRun *run, const char *what)
{
  g_assert_cmpint (run->exit_code, ==, DSH_LANDLOCK_EXIT_FAILURE);
  dsh_test_assert_one_line (run->err, DSH_LANDLOCK_FATAL_PREFIX, what);
}

/* The kernel refuses the Landlock calls for real (seccomp ENOSYS): the launcher must not run the
 * command, and must say so the way the module's failure rule expects. */
static void
test_runner_failure_without_landlock (Fixture *f, gconstpointer data)
{
  struct {
    const char *syscalls;
    const char *err;
    const char *what;
  } cases[] = {
    { "landlock_create_ruleset,landlock_add_rule,landlock_restrict_self", "ENOSYS",
      "Landlock is not available: the ABI version query failed (ENOSYS, " },
    { "landlock_create_ruleset", "EOPNOTSUPP",
      "Landlock is not available: the ABI version query failed (EOPNOTSUPP, " },
    { "landlock_create_ruleset", "EPERM",
      "Landlock is not available: the ABI version query failed (EPERM, " },
    { "landlock_add_rule", "ENOSYS", "landlock_add_rule failed" },
    { "landlock_restrict_self", "EPERM", "landlock_restrict_self failed" },
  };
  g_autofree char *marker = g_build_filename (f->ws, "ran", NULL);

  if (!dsh_test_require_landlock ())
    return;

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_auto (DshTestRun) run = { 0 };
      const char *argv[] = {
        dsh_test_getenv_required ("DSH_TEST_DENY_SYSCALLS"), "--errno", cases[i].err,
        "--syscall", cases[i].syscalls, "--",
        dsh_test_getenv_required ("DSH_LANDLOCK_EXEC"), "--write", f->ws, "--",
        dsh_test_getenv_required ("DSH_TEST_FILEOP"), "write", marker, NULL,
      };

      dsh_test_run (&run, argv, NULL, NULL, NULL);
      assert_runner_failure (&run, cases[i].what);
      g_assert_false (g_file_test (marker, G_FILE_TEST_EXISTS));
    }
}

/* A root reached through a symlink in any component (one planted since the root was resolved)
 * is refused, not followed: with openat2, and where a filter hides openat2 and the launcher
 * walks the path itself. The last component alone is not enough: here the symlink is in the
 * middle, pointing at the outside directory. */
static void
test_symlinked_root_refused (Fixture *f, gconstpointer data)
{
  g_autofree char *link = g_build_filename (f->base, "link", NULL);
  g_autofree char *through = g_build_filename (link, "sub", NULL);
  g_autofree char *real_sub = g_build_filename (f->outside, "sub", NULL);
  g_autofree char *victim = g_build_filename (real_sub, "victim", NULL);
  const char *launcher = dsh_test_getenv_required ("DSH_LANDLOCK_EXEC");
  const char *fileop = dsh_test_getenv_required ("DSH_TEST_FILEOP");
  const char *with_openat2[] = { launcher, "--write", through, "--", fileop, "write", victim,
                                 NULL };
  const char *without_openat2[] = {
    dsh_test_getenv_required ("DSH_TEST_DENY_SYSCALLS"), "--errno", "ENOSYS", "--syscall",
    "openat2", "--", launcher, "--write", through, "--", fileop, "write", victim, NULL,
  };
  const char *const *cases[] = { with_openat2, without_openat2 };

  (void) data;
  if (!dsh_test_require_landlock ())
    return;

  g_assert_cmpint (g_mkdir (real_sub, 0755), ==, 0);
  g_assert_cmpint (symlink (f->outside, link), ==, 0);
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_auto (DshTestRun) run = { 0 };

      dsh_test_run (&run, cases[i], NULL, NULL, NULL);
      assert_runner_failure (&run, "a symlink appeared on the way to");
      g_assert_false (g_file_test (victim, G_FILE_TEST_EXISTS));
    }
}

static void
test_usage_errors (Fixture *f, gconstpointer data)
{
  const char *launcher = dsh_test_getenv_required ("DSH_LANDLOCK_EXEC");
  const char *no_separator[] = { launcher, "--write", f->ws, "true", NULL };
  const char *no_command[] = { launcher, "--write", f->ws, "--", NULL };
  const char *relative_root[] = { launcher, "--write", "ws", "--", "true", NULL };
  const char *unknown_option[] = { launcher, "--read", f->ws, "--", "true", NULL };
  const char *const *cases[] = { no_separator, no_command, relative_root, unknown_option };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_auto (DshTestRun) run = { 0 };

      dsh_test_run (&run, cases[i], NULL, NULL, NULL);
      assert_runner_failure (&run, "usage:");
    }
}

/* A command that cannot be executed is the command's failure (126/127), not the runner's. */
static void
test_missing_command_not_runner_failure (Fixture *f, gconstpointer data)
{
  g_auto (DshTestRun) run = { 0 };
  const char *argv[] = {
    dsh_test_getenv_required ("DSH_LANDLOCK_EXEC"), "--", "dsh-no-such-command-anywhere", NULL,
  };

  if (!dsh_test_require_landlock ())
    return;

  dsh_test_run (&run, argv, NULL, NULL, NULL);
  g_assert_cmpint (run.exit_code, ==, 127);
  g_assert_true (strstr (run.err, "cannot execute") != NULL);
  g_assert_null (strstr (run.err, "fatal"));
}

/* A script without a #! line runs under /bin/sh, named by path or found on PATH, as it would
 * with the C library's execvp outside the sandbox. */
static void
test_script_without_interpreter_line (Fixture *f, gconstpointer data)
{
  g_auto (DshTestRun) by_path = { 0 };
  g_auto (DshTestRun) by_name = { 0 };
  g_autofree char *script = g_build_filename (f->ws, "plain-script", NULL);
  g_autofree char *path_env = g_strdup_printf ("PATH=%s:/usr/bin:/bin", f->ws);
  const char *launcher = dsh_test_getenv_required ("DSH_LANDLOCK_EXEC");
  const char *path_argv[] = { launcher, "--", script, "one", "two", NULL };
  const char *name_argv[] = { launcher, "--", "plain-script", "three", NULL };
  const char *env[] = { path_env, NULL };

  if (!dsh_test_require_landlock ())
    return;

  dsh_test_write_file (script, "echo \"ran $# $*\"\n");
  g_assert_cmpint (g_chmod (script, 0755), ==, 0);

  dsh_test_run (&by_path, path_argv, NULL, NULL, NULL);
  g_assert_cmpint (by_path.exit_code, ==, 0);
  g_assert_cmpstr (by_path.out, ==, "ran 2 one two\n");

  dsh_test_run (&by_name, name_argv, env, NULL, NULL);
  g_assert_cmpint (by_name.exit_code, ==, 0);
  g_assert_cmpstr (by_name.out, ==, "ran 1 three\n");
}

static void
test_status_and_stdin_pass_through (Fixture *f, gconstpointer data)
{
  g_auto (DshTestRun) run = { 0 };
  g_auto (DshTestRun) sig = { 0 };
  const char *launcher = dsh_test_getenv_required ("DSH_LANDLOCK_EXEC");
  const char *exit_argv[] = { launcher, "--", "sh", "-c", "read line; echo \"got $line\"; exit 7",
                              NULL };
  const char *kill_argv[] = { launcher, "--", "sh", "-c", "kill -TERM $$", NULL };

  if (!dsh_test_require_landlock ())
    return;

  dsh_test_run (&run, exit_argv, NULL, NULL, "hello\n");
  g_assert_cmpint (run.exit_code, ==, 7);
  g_assert_cmpstr (run.out, ==, "got hello\n");

  /* The launcher execs, so the command's own death is what the caller sees. */
  dsh_test_run (&sig, kill_argv, NULL, NULL, NULL);
  g_assert_cmpint (sig.term_signal, ==, SIGTERM);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, fn) \
  g_test_add ("/landlock-launcher/" path, Fixture, NULL, fixture_set_up, fn, fixture_tear_down)
  ADD ("write-outside-denied", test_write_outside_denied);
  ADD ("write-beneath-allowed", test_write_beneath_allowed);
  ADD ("truncate-outside-denied", test_truncate_outside_denied);
  ADD ("truncate-inside", test_truncate_inside);
  ADD ("rename-link-out-denied", test_rename_link_out_denied);
  ADD ("fifo-socket-outside-denied", test_fifo_socket_outside_denied);
  ADD ("required-sinks-writable", test_required_sinks_writable);
  ADD ("proc-self-fd-reopen-denied", test_proc_self_fd_reopen_denied);
  ADD ("dev-shm-denied", test_dev_shm_denied);
  ADD ("missing-root-still-enforces", test_missing_root_still_enforces);
  ADD ("metadata-not-governed", test_metadata_not_governed);
  ADD ("file-flags-not-settable", test_file_flags_not_settable);
  ADD ("signals-to-launcher-refused", test_signals_to_launcher_refused);
  ADD ("launcher-cannot-be-stopped-or-killed", test_launcher_cannot_be_stopped_or_killed);
  ADD ("early-signal-not-lost", test_early_signal_not_lost);
  ADD ("launcher-limits-untouchable", test_launcher_limits_untouchable);
  ADD ("caller-threads-limits-untouchable", test_caller_threads_limits_untouchable);
  ADD ("kernel-refusals-match-abi", test_kernel_refusals_match_abi);
  ADD ("no-device-nodes-in-root", test_no_device_nodes_in_root);
  ADD ("terminal-injection-refused", test_terminal_injection_refused);
  ADD ("loop-ioctls-refused", test_loop_ioctls_refused);
  ADD ("runner-failure-without-landlock", test_runner_failure_without_landlock);
  ADD ("symlinked-root-refused", test_symlinked_root_refused);
  ADD ("usage-errors", test_usage_errors);
  ADD ("missing-command-not-runner-failure", test_missing_command_not_runner_failure);
  ADD ("script-without-interpreter-line", test_script_without_interpreter_line);
  ADD ("status-and-stdin-pass-through", test_status_and_stdin_pass_through);
#undef ADD

  return g_test_run ();
}
