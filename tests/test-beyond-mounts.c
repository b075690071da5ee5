/* test-beyond-mounts.c — what bwrap's read-only mounts alone would not hold back: a descriptor
 * of a host directory handed in from outside the sandbox (by a concurrent call under Landlock,
 * which runs in the host's mount namespace), and a file system the host mounts while the call
 * runs (it propagates into the sandbox's slave copy of the tree without the read-only flag). A
 * command under bwrap must write neither; the kernel's own answer is checked.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <glib/gstdio.h>
#include <sys/mount.h>
#include <unistd.h>

#include "dsh-test-linux.h"

/* Opens the directory argv[1], listens on the abstract socket argv[2] and hands the directory's
 * descriptor to the first caller. */
static const char giver[] =
  "import os, socket, sys\n"
  "fd = os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECTORY)\n"
  "s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)\n"
  "s.bind('\\0' + sys.argv[2]); s.listen(1); s.settimeout(30)\n"
  "print('listening', flush=True)\n"
  "c, _ = s.accept(); socket.send_fds(c, [b'x'], [fd]); c.recv(1)\n";

/* Takes the descriptor from the abstract socket argv[1] and creates a file beneath it. */
static const char taker[] =
  "import os, socket, sys\n"
  "s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); s.connect('\\0' + sys.argv[1])\n"
  "_, fds, _, _ = socket.recv_fds(s, 1, 1)\n"
  "try:\n"
  "    f = os.open('written', os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fds[0])\n"
  "    os.write(f, b'escaped\\n'); print('wrote')\n"
  "except OSError as e:\n"
  "    print('refused', e.errno)\n"
  "s.send(b'y')\n";

static GSubprocess *
spawn_cli (const char *const *args, const char *const *env, const char *cwd)
{
  g_autoptr (GSubprocessLauncher) launcher =
    g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE);
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_autoptr (GError) error = NULL;
  GSubprocess *process;

  dsh_test_launcher_set_env (launcher, env);
  g_subprocess_launcher_set_cwd (launcher, cwd);
  g_ptr_array_add (argv, (gpointer) dsh_test_cli ());
  dsh_test_argv_append (argv, args);
  g_ptr_array_add (argv, NULL);
  process = g_subprocess_launcher_spawnv (launcher, (const char *const *) argv->pdata, &error);
  g_assert_no_error (error);
  return process;
}

/* The next line the process writes, once it has (NULL at its end). */
static char *
next_line (GDataInputStream *out)
{
  g_autoptr (GError) error = NULL;
  char *line = g_data_input_stream_read_line (out, NULL, NULL, &error);

  g_assert_no_error (error);
  return line;
}

static GDataInputStream *
output_of (GSubprocess *process)
{
  return g_data_input_stream_new (g_subprocess_get_stdout_pipe (process));
}

/* A read-only call under Landlock hands a descriptor of victim (a directory) to a read-only call
 * under bwrap, which tries to create a file beneath it: what the bwrap call printed. */
static char *
hand_in_descriptor (const char *dir, const char *victim)
{
  g_autofree char *ws_giver = g_build_filename (dir, "ws-giver", NULL);
  g_autofree char *ws_taker = g_build_filename (dir, "ws-taker", NULL);
  g_autofree char *giver_py = g_build_filename (dir, "giver.py", NULL);
  g_autofree char *taker_py = g_build_filename (dir, "taker.py", NULL);
  g_autofree char *socket_name = g_strdup_printf ("dsh-test-beyond-%d", (int) getpid ());
  g_autofree char *state = g_strdup_printf ("DSH_SANDBOX_STATE_DIR=%s/state", dir);
  const char *landlock_env[] = { state, "DSH_SANDBOX_BACKEND=landlock",
                                 "DSH_SANDBOX_PROBE_CACHE=off", NULL };
  const char *bwrap_env[] = { state, "DSH_SANDBOX_BACKEND=bwrap", "DSH_SANDBOX_PROBE_CACHE=off",
                              NULL };
  const char *give[] = { "exec", "--mode", "read-only", "--workspace", ws_giver, "--", "python3",
                         giver_py, victim, socket_name, NULL };
  const char *take[] = { "exec", "--mode", "read-only", "--workspace", ws_taker, "--", "python3",
                         taker_py, socket_name, NULL };
  g_autoptr (GSubprocess) giving = NULL;
  g_autoptr (GDataInputStream) out = NULL;
  g_autofree char *ready = NULL;
  g_auto (DshTestRun) run = { 0 };
  g_autoptr (GError) error = NULL;

  g_assert_cmpint (g_mkdir_with_parents (ws_giver, 0755), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (ws_taker, 0755), ==, 0);
  dsh_test_write_file (giver_py, giver);
  dsh_test_write_file (taker_py, taker);

  giving = spawn_cli (give, landlock_env, ws_giver);
  out = output_of (giving);
  ready = next_line (out);
  g_assert_cmpstr (ready, ==, "listening");
  dsh_test_run_cli (&run, take, bwrap_env, ws_taker);
  g_test_message ("taker: %s %s", run.out, run.err);
  g_assert_true (g_subprocess_wait (giving, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpint (run.exit_code, ==, 0);
  return g_strdup (run.out);
}

/* Both calls read-only: the Landlock one may read the victim's directory, so it may open it,
 * and the descriptor it hands over is on the host's writable mount. */
static void
test_descriptor_from_landlock_call (void)
{
  g_autofree char *dir = dsh_test_scratch_dir ("beyond");
  g_autofree char *victim = dsh_test_make_dir (dir, "victim");
  g_autofree char *written = g_build_filename (victim, "written", NULL);
  g_autofree char *outcome = NULL;

  if (!dsh_test_require_bwrap ())
    return;
  outcome = hand_in_descriptor (dir, victim);
  if (dsh_test_landlock_abi () < 2)
    {
      /* Nothing holds it there, and the call says so (enforcement-per-abi). */
      g_assert_true (g_file_test (written, G_FILE_TEST_EXISTS));
      return;
    }
  g_assert_false (g_file_test (written, G_FILE_TEST_EXISTS));
  g_assert_nonnull (strstr (outcome, "refused 13"));
}

/* Two mounts on one host path (a file system mounted twice; an automount point with its file
 * system on top): the sandbox lists the covered one writable, though only the top one, read-only,
 * is reached there. Writes beneath the top one must not be allowed on its account. */
static void
test_descriptor_of_stacked_mount (void)
{
  g_autofree char *dir = dsh_test_scratch_dir ("beyond");
  g_autofree char *victim = dsh_test_make_dir (dir, "stacked");
  g_autofree char *written = g_build_filename (victim, "written", NULL);
  g_autofree char *outcome = NULL;
  gboolean escaped;

  if (!dsh_test_require_bwrap () ||
      !dsh_test_require (geteuid () == 0, "mounting file systems needs root (CI runs as root)"))
    return;
  g_assert_cmpint (mount ("lower", victim, "tmpfs", 0, "size=1m"), ==, 0);
  g_assert_cmpint (mount ("upper", victim, "tmpfs", 0, "size=1m"), ==, 0);
  outcome = hand_in_descriptor (dir, victim);
  escaped = g_file_test (written, G_FILE_TEST_EXISTS);
  g_assert_cmpint (umount (victim), ==, 0);
  g_assert_cmpint (umount (victim), ==, 0);
  if (dsh_test_landlock_abi () < 2)
    {
      g_assert_true (escaped); /* reported, as above */
      return;
    }
  g_assert_false (escaped);
  g_assert_nonnull (strstr (outcome, "refused 13"));
}

/* A mount point for the host's media beneath shared, a shared bind of itself: what the host
 * mounts there reaches the sandbox's slave copy of the tree. */
static char *
make_shared_media (const char *shared)
{
  g_assert_cmpint (mount (shared, shared, NULL, MS_BIND, NULL), ==, 0);
  g_assert_cmpint (mount (NULL, shared, NULL, MS_SHARED, NULL), ==, 0);
  return dsh_test_make_dir (shared, "media");
}

/* The verdict on a write to the host's media (escaped: its file was made): from Landlock ABI 2
 * refused, and not made; below, made (the call says partial). */
static void
assert_media_held (gboolean escaped, const char *outcome, const char *refused)
{
  g_test_message ("command: %s", outcome);
  if (dsh_test_landlock_abi () < 2)
    {
      g_assert_true (escaped);
      return;
    }
  g_assert_false (escaped);
  g_assert_cmpstr (outcome, ==, refused);
}

/* / is private on some hosts and shared on systemd's: a shared mount point of the test's own
 * stands for the latter. */
static void
test_mount_made_during_call (void)
{
  g_autofree char *dir = dsh_test_scratch_dir ("beyond");
  g_autofree char *shared = dsh_test_make_dir (dir, "shared");
  g_autofree char *media = NULL;
  g_autofree char *written = NULL;
  g_autofree char *ws = dsh_test_make_dir (dir, "ws");
  g_autofree char *state = g_strdup_printf ("DSH_SANDBOX_STATE_DIR=%s/state", dir);
  const char *env[] = { state, "DSH_SANDBOX_BACKEND=bwrap", "DSH_SANDBOX_PROBE_CACHE=off", NULL };
  g_autofree char *script = NULL;
  g_autoptr (GSubprocess) call = NULL;
  g_autoptr (GDataInputStream) out = NULL;
  g_autofree char *ready = NULL;
  g_autofree char *outcome = NULL;
  g_autoptr (GError) error = NULL;
  gboolean escaped;
  const char *args[] = { "exec", "--mode", "read-only", "--workspace", ws, "--", "sh", "-c",
                         NULL, NULL };

  if (!dsh_test_require_bwrap () ||
      !dsh_test_require (geteuid () == 0, "mounting file systems needs root (CI runs as root)"))
    return;
  media = make_shared_media (shared);
  written = g_build_filename (media, "written", NULL);

  script = g_strdup_printf ("echo ready; "
                            "for i in $(seq 100); do "
                            "  grep -q ' %s ' /proc/self/mountinfo && break; sleep 0.05; "
                            "done; "
                            "if echo escaped > '%s'; then echo wrote; else echo refused; fi",
                            media, written);
  args[8] = script;
  call = spawn_cli (args, env, ws);
  out = output_of (call);
  ready = next_line (out);
  g_assert_cmpstr (ready, ==, "ready");
  /* The user's mount (a USB stick, an sshfs), made while the command runs. */
  g_assert_cmpint (mount ("tmpfs", media, "tmpfs", 0, "size=1m"), ==, 0);
  outcome = next_line (out);
  g_assert_true (g_subprocess_wait (call, NULL, &error));
  g_assert_no_error (error);
  escaped = g_file_test (written, G_FILE_TEST_EXISTS);
  g_assert_cmpint (umount (media), ==, 0);
  g_assert_cmpint (umount (shared), ==, 0);

  g_assert_cmpint (g_subprocess_get_exit_status (call), ==, 0);
  assert_media_held (escaped, outcome, "refused");
}

/* The host's side of a mount made while bwrap sets the sandbox up: a busy host (a USB stick
 * plugged in, an sshfs, an automount a concurrent call triggers) whose mount lands after bwrap's
 * read-only root bind and before the step inside reads the mount table. A bwrap child is caught
 * between its fresh /dev and the step inside (it is still "bwrap" then), held for the moment the
 * mount takes, and let go: the kernel alone would leave that window open for as long. */
typedef struct {
  const char *media;
  const char *script;
  pid_t cli;
  gint mounted;
} SetupMount;

/* How far the bwrap child with this pid is: 0 gone or done (the step inside may have run), 1
 * setting up, 2 past its fresh /dev, so its root bind is done and made read-only. */
static int
bwrap_child_stage (const char *pid)
{
  g_autofree char *comm_path = g_strdup_printf ("/proc/%s/comm", pid);
  g_autofree char *mountinfo_path = g_strdup_printf ("/proc/%s/mountinfo", pid);
  g_autofree char *comm = NULL;
  g_autofree char *mountinfo = NULL;

  if (!g_file_get_contents (comm_path, &comm, NULL, NULL) || strcmp (comm, "bwrap\n") != 0 ||
      !g_file_get_contents (mountinfo_path, &mountinfo, NULL, NULL))
    return 0;
  /* Its fresh /dev, not the root bind's copy of the host's (a devtmpfs), which is there, still
   * writable, before the bind is made read-only. */
  if (strstr (mountinfo, " /newroot/dev rw,nosuid,nodev,relatime - tmpfs ") != NULL)
    return 2;
  /* Pivoted into the sandbox: its fresh /dev is at /dev, and the step inside may have looked. */
  return strstr (mountinfo, " /dev rw,nosuid,nodev,relatime - tmpfs ") != NULL ? 0 : 1;
}

static void
wait_stopped (const char *pid)
{
  g_autofree char *stat_path = g_strdup_printf ("/proc/%s/stat", pid);

  for (int i = 0; i < 100000; i++)
    {
      g_autofree char *stat = NULL;
      const char *state;

      if (!g_file_get_contents (stat_path, &stat, NULL, NULL) ||
          (state = strrchr (stat, ')')) == NULL || state[1] == '\0' || state[2] == 'T' ||
          state[2] == 't' || state[2] == 'Z')
        return;
    }
}

/* The first child of the process outer, once it has one (NULL once outer is gone). */
static char *
first_child (const char *outer)
{
  g_autofree char *children_path = g_strdup_printf ("/proc/%s/task/%s/children", outer, outer);

  for (;;)
    {
      g_autofree char *children = NULL;

      if (!g_file_get_contents (children_path, &children, NULL, NULL))
        return NULL;
      if (atoi (children) > 0)
        return g_strdup_printf ("%d", atoi (children));
    }
}

/* Whether the process is in this test's mount namespace (bwrap outside, not its child). */
static gboolean
in_our_mount_namespace (const char *pid)
{
  g_autofree char *path = g_strdup_printf ("/proc/%s/ns/mnt", pid);
  g_autofree char *ns = g_file_read_link (path, NULL);
  g_autofree char *ours = g_file_read_link ("/proc/self/ns/mnt", NULL);

  return ns != NULL && ours != NULL && strcmp (ns, ours) == 0;
}

/* Steps the bwrap child, stopped at each look, until it is past its root bind; then mounts. */
static void
mount_while_bwrap_sets_up (SetupMount *setup, const char *bwrap)
{
  g_autofree char *child = in_our_mount_namespace (bwrap) ? first_child (bwrap)
                                                          : g_strdup (bwrap);
  pid_t pid;
  int stage;

  if (child == NULL)
    return;
  pid = (pid_t) atoi (child);
  for (;;)
    {
      kill (pid, SIGSTOP);
      wait_stopped (child);
      if ((stage = bwrap_child_stage (child)) != 1)
        break;
      kill (pid, SIGCONT);
    }
  if (stage == 2)
    g_atomic_int_set (&setup->mounted,
                      mount ("tmpfs", setup->media, "tmpfs", 0, "size=1m") == 0);
  kill (pid, SIGCONT);
}

/* Whether the process pid is bwrap started for the call: its step inside after it, or the script
 * itself when there is none to run (a probe runs neither). */
static gboolean
is_the_calls_bwrap (const char *pid, const char *script)
{
  g_autofree char *cmdline_path = g_strdup_printf ("/proc/%s/cmdline", pid);
  g_autofree char *cmdline = NULL;
  gsize len = 0;

  if (bwrap_child_stage (pid) == 0 ||
      !g_file_get_contents (cmdline_path, &cmdline, &len, NULL))
    return FALSE;
  for (gsize at = 0; at < len; at += strlen (cmdline + at) + 1)
    if (strcmp (cmdline + at, "--inside") == 0 || strcmp (cmdline + at, script) == 0)
      return TRUE;
  return FALSE;
}

static gpointer
mount_during_setup (gpointer data)
{
  SetupMount *setup = data;
  g_autofree char *children_path = g_strdup_printf ("/proc/%d/task/%d/children",
                                                    (int) setup->cli, (int) setup->cli);

  /* The call starts bwrap itself (after its probe's, when it probes). */
  for (;;)
    {
      g_autofree char *children = NULL;
      g_auto (GStrv) pids = NULL;

      if (!g_file_get_contents (children_path, &children, NULL, NULL))
        return NULL;
      pids = g_strsplit (g_strstrip (children), " ", -1);
      for (guint i = 0; pids[i] != NULL; i++)
        if (*pids[i] != '\0' && is_the_calls_bwrap (pids[i], setup->script))
          {
            mount_while_bwrap_sets_up (setup, pids[i]);
            return NULL;
          }
    }
}

/* A file system the host mounts while bwrap sets the sandbox up reaches it writable (the root
 * bind was made read-only before it came), before the step inside looks: it is none of the
 * host's noted filesystems and none bwrap made, and writing to it must be refused all the same,
 * as for one mounted once the command runs. */
static void
test_mount_made_during_setup (void)
{
  g_autofree char *dir = dsh_test_scratch_dir ("beyond");
  g_autofree char *shared = dsh_test_make_dir (dir, "shared");
  g_autofree char *media = NULL;
  g_autofree char *written = NULL;
  g_autofree char *ws = dsh_test_make_dir (dir, "ws");
  g_autofree char *state = g_strdup_printf ("DSH_SANDBOX_STATE_DIR=%s/state", dir);
  const char *env[] = { state, "DSH_SANDBOX_BACKEND=bwrap", "DSH_SANDBOX_PROBE_CACHE=off", NULL };
  g_autofree char *script = NULL;
  g_autoptr (GSubprocess) call = NULL;
  g_autofree char *outcome = NULL;
  g_autoptr (GError) error = NULL;
  SetupMount setup = { 0 };
  GThread *watcher;
  gboolean escaped;
  const char *args[] = { "exec", "--mode", "read-only", "--workspace", ws, "--", "sh", "-c",
                         NULL, NULL };

  if (!dsh_test_require_bwrap () ||
      !dsh_test_require (geteuid () == 0, "mounting file systems needs root (CI runs as root)"))
    return;
  media = make_shared_media (shared);
  written = g_build_filename (media, "written", NULL);

  script = g_strdup_printf ("grep -q ' %s ' /proc/self/mountinfo || echo not-mounted; "
                            "if echo escaped > '%s'; then echo wrote; else echo refused; fi",
                            media, written);
  args[8] = script;
  /* The window is a few milliseconds: on a loaded machine the watcher may come too late. */
  for (int attempt = 0; attempt < 40 && !setup.mounted; attempt++)
    {
      g_clear_object (&call);
      g_clear_pointer (&outcome, g_free);
      setup = (SetupMount) { media, script, 0, 0 };
      call = spawn_cli (args, env, ws);
      setup.cli = (pid_t) atoi (g_subprocess_get_identifier (call));
      watcher = g_thread_new ("mount-during-setup", mount_during_setup, &setup);
      g_subprocess_communicate_utf8 (call, NULL, NULL, &outcome, NULL, &error);
      g_assert_no_error (error);
      g_thread_join (watcher);
    }
  escaped = g_file_test (written, G_FILE_TEST_EXISTS);
  if (setup.mounted)
    g_assert_cmpint (umount (media), ==, 0);
  g_assert_cmpint (umount (shared), ==, 0);

  g_assert_true (setup.mounted);
  g_assert_cmpint (g_subprocess_get_exit_status (call), ==, 0);
  g_assert_null (strstr (outcome, "not-mounted"));
  assert_media_held (escaped, outcome, "refused\n");
}

/* What the call reports: full where Landlock holds both, else partial with what is not held. */
static void
test_enforcement_per_abi (void)
{
  g_autofree char *dir = dsh_test_scratch_dir ("beyond");
  g_autofree char *ws = dsh_test_make_dir (dir, "ws");
  g_autofree char *state = g_strdup_printf ("DSH_SANDBOX_STATE_DIR=%s/state", dir);
  const char *env[] = { state, "DSH_SANDBOX_BACKEND=bwrap", "DSH_SANDBOX_PROBE_CACHE=off", NULL };
  const char *modes[] = { "read-only", "workspace-write" };
  long abi = dsh_test_landlock_abi ();

  if (!dsh_test_require_bwrap ())
    return;
  for (guint m = 0; m < G_N_ELEMENTS (modes); m++)
    {
      const char *args[] = { "confine", "--mode", modes[m], "--workspace", ws, "--", "true",
                             NULL };
      g_auto (DshTestRun) run = { 0 };
      g_autoptr (JsonNode) node = NULL;
      JsonObject *confined;
      JsonArray *reasons;

      dsh_test_run_cli (&run, args, env, ws);
      g_assert_cmpint (run.exit_code, ==, 0);
      node = dsh_test_parse_json (run.out);
      confined = json_node_get_object (node);
      reasons = json_object_get_array_member (confined, "enforcementReasons");
      g_test_message ("ABI %ld, %s: %s", abi, modes[m], run.out);
      if (abi >= 3)
        {
          g_assert_cmpstr (json_object_get_string_member (confined, "enforcement"), ==, "full");
          g_assert_cmpuint (json_array_get_length (reasons), ==, 0);
          continue;
        }
      g_assert_cmpstr (json_object_get_string_member (confined, "enforcement"), ==, "partial");
      g_assert_cmpuint (json_array_get_length (reasons), ==, 1);
      g_assert_nonnull (strstr (json_array_get_string_element (reasons, 0),
                                abi == 2 ? "can be truncated" : "is writable inside the sandbox"));
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/beyond-mounts/descriptor-from-landlock-call",
                   test_descriptor_from_landlock_call);
  g_test_add_func ("/beyond-mounts/descriptor-of-stacked-mount", test_descriptor_of_stacked_mount);
  g_test_add_func ("/beyond-mounts/mount-made-during-call", test_mount_made_during_call);
  g_test_add_func ("/beyond-mounts/mount-made-during-setup", test_mount_made_during_setup);
  g_test_add_func ("/beyond-mounts/enforcement-per-abi", test_enforcement_per_abi);
  return g_test_run ();
}
