/* test-terminal-injection.c — a confined command must not type into a terminal it was handed.
 * TIOCSTI pushes bytes into a terminal's input queue as if typed there: whatever reads that
 * terminal next (the user's shell, the harness's next command on the same pty) reads them and
 * runs them unconfined. The kernel allows it on the caller's controlling terminal only, so
 * bwrap's --new-session was taken to close it. It does not when the terminal is no session's
 * controlling terminal yet (a pty a harness opened and hands its commands without making it
 * one, a terminal whose session leader is gone): the command, in bwrap's new session, calls
 * setsid, takes the terminal as its own controlling terminal with TIOCSCTTY, and types. It
 * reaches the terminal as its stdin, or through bwrap's /dev/console, which bwrap binds to the
 * caller's terminal when stdout is one. Both backends must refuse the typing itself.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "dsh-test-linux.h"

/* Takes the terminal (stdin, or /dev/console, or stdout) for its controlling terminal in a
 * session of its own, then types a line into it. */
static const char typist[] =
  "import fcntl, os, sys, termios\n"
  "try:\n"
  "    os.setsid()\n"
  "except OSError:\n"
  "    pass\n"
  "fd = 0\n"
  "if sys.argv[1] == 'stdout':\n"
  "    try:\n"
  "        fd = os.open('/dev/console', os.O_RDWR)\n"
  "    except OSError:\n"
  "        fd = 1\n"
  "try:\n"
  "    fcntl.ioctl(fd, termios.TIOCSCTTY, 0)\n"
  "except OSError as e:\n"
  "    print('no controlling terminal:', e, file=sys.stderr)\n"
  "try:\n"
  "    for c in 'touch typed-by-the-sandbox\\n':\n"
  "        fcntl.ioctl(fd, termios.TIOCSTI, c.encode())\n"
  "    print('typed', file=sys.stderr)\n"
  "except OSError as e:\n"
  "    print('refused', e.errno, file=sys.stderr)\n";

typedef struct {
  const char *backend;
  const char *mode;
  const char *route; /* "stdin" or "stdout": where the terminal is handed to the command */
} Case;

/* A new pty pair; the terminal side opened without becoming anyone's controlling terminal. */
static int
open_sessionless_terminal (int *slave)
{
  int master = posix_openpt (O_RDWR | O_NOCTTY | O_CLOEXEC);

  g_assert_cmpint (master, >=, 0);
  g_assert_cmpint (grantpt (master), ==, 0);
  g_assert_cmpint (unlockpt (master), ==, 0);
  *slave = open (ptsname (master), O_RDWR | O_NOCTTY | O_CLOEXEC);
  g_assert_cmpint (*slave, >=, 0);
  return master;
}

/* A call's scene: a scratch tree with a workspace, the script the command runs and the
 * environment that picks the case's backend. */
typedef struct {
  char *dir;
  char *ws;
  char *script;
  char *state;
  char *backend;
  const char *env[4];
} Scene;

static gboolean
scene_init (Scene *s, const Case *c, const char *name, const char *script_text)
{
  if (strcmp (c->backend, "bwrap") == 0 ? !dsh_test_require_bwrap ()
                                         : !dsh_test_require_landlock ())
    return FALSE;
  s->dir = dsh_test_scratch_dir (name);
  s->ws = dsh_test_make_dir (s->dir, "ws");
  s->script = g_build_filename (s->dir, "script.py", NULL);
  s->state = g_strdup_printf ("DSH_SANDBOX_STATE_DIR=%s/state", s->dir);
  s->backend = g_strdup_printf ("DSH_SANDBOX_BACKEND=%s", c->backend);
  s->env[0] = s->state;
  s->env[1] = s->backend;
  s->env[2] = "DSH_SANDBOX_PROBE_CACHE=off";
  s->env[3] = NULL;
  dsh_test_write_file (s->script, script_text);
  return TRUE;
}

static void
scene_clear (Scene *s)
{
  if (s->dir != NULL)
    dsh_test_remove_tree (s->dir);
  g_free (s->dir);
  g_free (s->ws);
  g_free (s->script);
  g_free (s->state);
  g_free (s->backend);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Scene, scene_clear)

static void
test_typing (gconstpointer data)
{
  const Case *c = data;
  g_auto (Scene) scene = { 0 };
  const char *argv[] = { dsh_test_cli (), "exec", "--mode", c->mode, "--workspace", NULL, "--",
                         "python3", NULL, c->route, NULL };
  g_autoptr (GSubprocessLauncher) launcher = NULL;
  g_autoptr (GSubprocess) call = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *err = NULL;
  char queued[256];
  ssize_t n;
  int master, slave;

  if (!scene_init (&scene, c, "typing", typist))
    return;
  argv[5] = scene.ws;
  argv[8] = scene.script;
  master = open_sessionless_terminal (&slave);

  launcher = g_subprocess_launcher_new (strcmp (c->route, "stdin") == 0
                                          ? G_SUBPROCESS_FLAGS_STDOUT_SILENCE |
                                              G_SUBPROCESS_FLAGS_STDERR_PIPE
                                          : G_SUBPROCESS_FLAGS_STDERR_PIPE);
  dsh_test_launcher_set_env (launcher, scene.env);
  g_subprocess_launcher_set_cwd (launcher, scene.ws);
  if (strcmp (c->route, "stdin") == 0)
    g_subprocess_launcher_take_stdin_fd (launcher, dup (slave));
  else
    g_subprocess_launcher_take_stdout_fd (launcher, dup (slave));
  call = g_subprocess_launcher_spawnv (launcher, argv, &error);
  g_assert_no_error (error);
  g_assert_true (g_subprocess_communicate_utf8 (call, NULL, NULL, NULL, &err, &error));
  g_assert_no_error (error);
  g_test_message ("%s %s via %s: %s", c->backend, c->mode, c->route, err);
  g_assert_cmpint (g_subprocess_get_exit_status (call), ==, 0);

  /* What the terminal's next reader would read: nothing. */
  g_assert_cmpint (fcntl (slave, F_SETFL, O_NONBLOCK), ==, 0);
  n = read (slave, queued, sizeof queued - 1);
  if (n > 0)
    {
      queued[n] = '\0';
      g_test_message ("the terminal's next reader reads: %s", queued);
    }
  g_assert_cmpint (n, <, 0);
  g_assert_cmpint (errno, ==, EAGAIN);
  g_assert_nonnull (strstr (err, "refused"));
  close (slave);
  close (master);
}

/* On a virtual console a command that may use its terminal could remap keys instead: the text
 * a function key types (KDSKBSENT), which key types it (KDSKBENT, KDSETKEYCODE), the accent
 * table (which Linux 6.18 lets a command without capabilities rewrite on a console it took as
 * its controlling terminal). The user's next keystroke would then type the command's text. No
 * console is touched here: each request is made on /dev/null, where the kernel answers ENOTTY,
 * so EPERM is the filter's refusal, whatever the descriptor. */
static const char remapper[] =
  "import errno, fcntl, os, sys\n"
  "requests = [('KDSKBSENT', 0x4B49), ('KDSKBENT', 0x4B47), ('KDSETKEYCODE', 0x4B4D),\n"
  "            ('KDSKBDIACR', 0x4B4B), ('KDSKBDIACRUC', 0x4BFB), ('TIOCSTI', 0x5412),\n"
  "            ('TIOCLINUX', 0x541C)]\n"
  "fd = os.open('/dev/null', os.O_RDWR)\n"
  "answers = []\n"
  "for name, request in requests:\n"
  "    try:\n"
  "        fcntl.ioctl(fd, request, bytes(1024))\n"
  "        answers.append(name + ':done')\n"
  "    except OSError as e:\n"
  "        answers.append(name + ':' + errno.errorcode[e.errno])\n"
  "print(' '.join(answers), file=sys.stderr)\n";

static void
test_keymap (gconstpointer data)
{
  const Case *c = data;
  g_auto (Scene) scene = { 0 };
  const char *argv[] = { "exec", "--mode", c->mode, "--workspace", NULL, "--", "python3", NULL,
                         NULL };
  g_auto (DshTestRun) run = { 0 };
  g_auto (GStrv) answers = NULL;

  if (!scene_init (&scene, c, "keymap", remapper))
    return;
  argv[4] = scene.ws;
  argv[7] = scene.script;
  dsh_test_run_cli (&run, argv, scene.env, scene.ws);
  g_test_message ("%s %s: %s", c->backend, c->mode, run.err);
  g_assert_cmpint (run.exit_code, ==, 0);
  answers = g_strsplit (g_strstrip (run.err), " ", -1);
  g_assert_cmpuint (g_strv_length (answers), ==, 7);
  for (guint i = 0; answers[i] != NULL; i++)
    g_assert_true (g_str_has_suffix (answers[i], ":EPERM"));
}

static const Case cases[] = {
  { "bwrap", "read-only", "stdin" },
  { "bwrap", "workspace-write", "stdin" },
  { "bwrap", "read-only", "stdout" },
  { "bwrap", "workspace-write", "stdout" },
  { "landlock", "read-only", "stdin" },
  { "landlock", "workspace-write", "stdin" },
  { "landlock", "read-only", "stdout" },
  { "landlock", "workspace-write", "stdout" },
};

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  for (size_t i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *name = g_strdup_printf ("/terminal-injection/%s/%s/via-%s",
                                               cases[i].backend, cases[i].mode, cases[i].route);

      g_test_add_data_func (name, &cases[i], test_typing);
      if (strcmp (cases[i].route, "stdin") == 0)
        {
          g_autofree char *keymap = g_strdup_printf ("/terminal-injection/%s/%s/keymap",
                                                     cases[i].backend, cases[i].mode);

          g_test_add_data_func (keymap, &cases[i], test_keymap);
        }
    }
  return g_test_run ();
}
