/* test-spawn.c — how the command's process starts: with the caller's signal mask, its ignored
 * signals still ignored but the forwarded ones and SIGPIPE at their default and nothing caught;
 * with only descriptors 0-2 when asked; calls from several threads at once forwarding signals
 * and putting back the dispositions they found; in the asked directory; quiet on /dev/null; and a
 * program that cannot start is an error, with nothing left behind.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dsh-spawn-private.h"
#include "dsh-spawn-start-private.h"
#include "dsh-test-util.h"

/* Runs argv and returns what it wrote to stderr. */
static char *
run (const char *const *argv, const DshSpawnOptions *options, int *exit_code)
{
  g_autoptr (GString) captured = g_string_new (NULL);
  g_autoptr (GError) error = NULL;
  int code = -1, term_signal = -1;

  g_assert_true (dsh_spawn_run (argv, options, &code, &term_signal, captured, &error));
  g_assert_no_error (error);
  if (exit_code != NULL)
    *exit_code = code;
  return g_string_free (g_steal_pointer (&captured), FALSE);
}

/* The hexadecimal signal mask of a /proc/self/status line ("SigIgn:\t0000..."). */
static guint64
status_mask (const char *status, const char *field)
{
  g_autofree char *prefix = g_strdup_printf ("\n%s:\t", field);
  const char *at = strstr (status, prefix);

  g_assert_nonnull (at);
  return g_ascii_strtoull (at + strlen (prefix), NULL, 16);
}

#define BIT(sig) (G_GUINT64_CONSTANT (1) << ((sig) - 1))

static void
caught (int signum)
{
}

static void
test_signals (void)
{
  const char *argv[] = { "/bin/sh", "-c", "exec cat /proc/self/status >&2", NULL };
  const DshSpawnOptions options = { .close_inherited_fds = TRUE };
  struct sigaction handler = { .sa_handler = caught }, ignore = { .sa_handler = SIG_IGN };
  struct sigaction saved[5];
  const int changed[] = { SIGUSR1, SIGUSR2, SIGINT, SIGPIPE, SIGTERM };
  sigset_t blocked, old_mask;
  g_autofree char *status = NULL;
  guint64 ignored, caught_mask, blocked_mask;

  /* Caught here: exec resets it, and it must not run in the child before that either. */
  sigaction (SIGUSR1, &handler, &saved[0]);
  /* Ignored here: ignored in the command too, as posix_spawn() leaves it. */
  sigaction (SIGUSR2, &ignore, &saved[1]);
  /* Ignored here, but forwarded (SIGINT, SIGTERM) or SIGPIPE: at their default there. */
  sigaction (SIGINT, &ignore, &saved[2]);
  sigaction (SIGPIPE, &ignore, &saved[3]);
  sigaction (SIGTERM, &ignore, &saved[4]);
  sigemptyset (&blocked);
  sigaddset (&blocked, SIGWINCH);
  pthread_sigmask (SIG_BLOCK, &blocked, &old_mask);

  status = run (argv, &options, NULL);

  pthread_sigmask (SIG_SETMASK, &old_mask, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (changed); i++)
    sigaction (changed[i], &saved[i], NULL);

  ignored = status_mask (status, "SigIgn");
  caught_mask = status_mask (status, "SigCgt");
  blocked_mask = status_mask (status, "SigBlk");
  g_assert_cmphex (ignored & BIT (SIGUSR2), ==, BIT (SIGUSR2));
  g_assert_cmphex (ignored & (BIT (SIGINT) | BIT (SIGPIPE) | BIT (SIGTERM) | BIT (SIGUSR1)), ==,
                   0);
  g_assert_cmphex (caught_mask, ==, 0);
  /* The caller's mask, not the all-blocked one the start runs under. */
  g_assert_cmphex (blocked_mask, ==, BIT (SIGWINCH));
}

/* Ignored by the caller, SIGTERM still ends the command (its default), and is reported so. */
static void
test_term_signal_reported (void)
{
  const char *argv[] = { "/bin/sh", "-c", "kill -TERM $$; sleep 5", NULL };
  const DshSpawnOptions options = { .close_inherited_fds = TRUE, .timeout_ms = 20000 };
  struct sigaction ignore = { .sa_handler = SIG_IGN }, saved;
  g_autoptr (GString) captured = g_string_new (NULL);
  int code = -1, term_signal = -1;

  sigaction (SIGTERM, &ignore, &saved);
  g_assert_true (dsh_spawn_run (argv, &options, &code, &term_signal, captured, NULL));
  sigaction (SIGTERM, &saved, NULL);
  g_assert_cmpint (term_signal, ==, SIGTERM);
  g_assert_cmpint (code, ==, 128 + SIGTERM);
}

/* Only 0-2 when asked, whatever the caller holds open without close-on-exec; everything it
 * holds otherwise. */
static void
test_inherited_descriptors (void)
{
  int fd = open ("/dev/null", O_RDONLY);
  g_autofree char *script = g_strdup_printf (
    "if [ -e /proc/self/fd/%d ]; then echo open >&2; else echo closed >&2; fi", fd);
  const char *argv[] = { "/bin/sh", "-c", script, NULL };

  g_assert_cmpint (fd, >, 2);
  for (guint i = 0; i < 2; i++)
    {
      const DshSpawnOptions options = { .close_inherited_fds = i == 0 };
      g_autofree char *said = run (argv, &options, NULL);

      g_assert_cmpstr (said, ==, i == 0 ? "closed\n" : "open\n");
    }
  close (fd);
}

static void
test_quiet_and_cwd (void)
{
  /* Read from a subshell: the shell's own 0 and 1, not those of a redirected command. */
  const char *argv[] = { "/bin/sh", "-c",
                         "pwd >&2; echo $(readlink /proc/$$/fd/0) $(readlink /proc/$$/fd/1) >&2",
                         NULL };
  const DshSpawnOptions options = { .cwd = "/", .quiet = TRUE, .timeout_ms = 20000,
                                    .close_inherited_fds = TRUE };
  g_autofree char *said = run (argv, &options, NULL);

  g_assert_cmpstr (said, ==, "/\n/dev/null /dev/null\n");
}

/* By path or by name on PATH, a program that cannot start is an error naming it, and no child
 * is left to reap. */
static void
test_cannot_start (void)
{
  const char *const missing[] = { "/nonexistent/dsh-no-such-program", "dsh-no-such-program" };
  const char *argv_dir[] = { "/", NULL };

  for (guint i = 0; i < G_N_ELEMENTS (missing) + 1; i++)
    {
      const char *one[] = { i < G_N_ELEMENTS (missing) ? missing[i] : NULL, NULL };
      const char *const *argv = i < G_N_ELEMENTS (missing) ? one : argv_dir;
      const DshSpawnOptions options = { .close_inherited_fds = TRUE };
      g_autoptr (GString) captured = g_string_new (NULL);
      g_autoptr (GError) error = NULL;
      int code = -1, term_signal = -1;

      g_assert_false (dsh_spawn_run (argv, &options, &code, &term_signal, captured, &error));
      g_assert_error (error, G_SPAWN_ERROR, G_SPAWN_ERROR_FAILED);
      g_assert_nonnull (strstr (error->message, argv[0]));
      g_assert_cmpint (waitpid (-1, NULL, WNOHANG), ==, -1);
      g_assert_cmpint (errno, ==, ECHILD);
    }
}

static pid_t test_pid;
static volatile sig_atomic_t caught_elsewhere;
static gint stop_sending;

static void
note_where_caught (int signum)
{
  if (getpid () != test_pid)
    caught_elsewhere = 1;
}

static gpointer
send_to_group (gpointer data)
{
  sigset_t usr1;

  /* Taken by the thread that starts the commands, never by this one. */
  sigemptyset (&usr1);
  sigaddset (&usr1, SIGUSR1);
  pthread_sigmask (SIG_BLOCK, &usr1, NULL);
  while (!g_atomic_int_get (&stop_sending))
    kill (0, SIGUSR1);
  return NULL;
}

/* The child runs in our memory until it execs: a signal that reaches it then (one sent to the
 * process group, say) must not run our handler there, which would act for us on our data. */
static void
test_handler_never_runs_in_child (void)
{
  const char *argv[] = { "/bin/true", NULL };
  const DshSpawnOptions options = { .close_inherited_fds = TRUE, .timeout_ms = 20000 };
  struct sigaction handler = { .sa_handler = note_where_caught, .sa_flags = SA_RESTART };
  struct sigaction saved;
  gint64 deadline = g_get_monotonic_time () + G_USEC_PER_SEC;
  pid_t old_group = getpgrp ();
  GThread *sender;
  guint runs = 0;

  test_pid = getpid ();
  /* A process group of our own: the signals reach this test and what it starts, no one else. */
  if (old_group != test_pid)
    g_assert_cmpint (setpgid (0, 0), ==, 0);
  sigaction (SIGUSR1, &handler, &saved);
  g_atomic_int_set (&stop_sending, FALSE);
  sender = g_thread_new ("send-to-group", send_to_group, NULL);
  while (runs < 100 && g_get_monotonic_time () < deadline && !caught_elsewhere)
    {
      g_autoptr (GString) captured = g_string_new (NULL);
      int code = -1, term_signal = -1;

      /* The command either ran or got the signal at its default: either is right. */
      g_assert_true (dsh_spawn_run (argv, &options, &code, &term_signal, captured, NULL));
      g_assert_true (code == 0 || term_signal == SIGUSR1);
      runs++;
    }
  g_atomic_int_set (&stop_sending, TRUE);
  g_thread_join (sender);
  sigaction (SIGUSR1, &saved, NULL);
  if (old_group != test_pid)
    setpgid (0, old_group);
  g_test_message ("%u commands started", runs);
  g_assert_false (caught_elsewhere);
}

/* Where the kernel cannot reset caught signals while cloning, the child does, one by one. */
/* One call of run_overlapping(): its command and, once it ends, its exit status. */
typedef struct {
  const char *seconds;
  int exit_code;
} Overlapping;

static gpointer
run_overlapping (gpointer data)
{
  Overlapping *call = data;
  const char *argv[] = { "sleep", call->seconds, NULL };
  const DshSpawnOptions options = { .close_inherited_fds = TRUE, .forward_signals = TRUE };
  g_autofree char *err = run (argv, &options, &call->exit_code);

  return NULL;
}

/* Calls from several threads share the process's signal dispositions: the first ending must
 * not take forwarding away from one still running, and the last one leaves SIGTERM and SIGPIPE
 * as it found them, not ignored or caught for good. */
static void
test_overlapping_calls_forward_and_restore (void)
{
  Overlapping first = { "0.3", -1 }, second = { "30", -1 };
  struct sigaction before_term, before_pipe, after_term, after_pipe;
  GThread *threads[2];

  sigaction (SIGTERM, NULL, &before_term);
  sigaction (SIGPIPE, NULL, &before_pipe);
  g_assert_true (before_term.sa_handler == SIG_DFL);
  g_assert_true (before_pipe.sa_handler == SIG_DFL);

  threads[0] = g_thread_new ("first", run_overlapping, &first);
  g_usleep (100 * 1000);
  threads[1] = g_thread_new ("second", run_overlapping, &second);
  g_thread_join (threads[0]);
  g_assert_cmpint (first.exit_code, ==, 0);
  /* The second call still runs: a SIGTERM sent to us goes on to its command. */
  g_usleep (100 * 1000);
  kill (getpid (), SIGTERM);
  g_thread_join (threads[1]);
  g_assert_cmpint (second.exit_code, ==, 128 + SIGTERM);

  sigaction (SIGTERM, NULL, &after_term);
  sigaction (SIGPIPE, NULL, &after_pipe);
  g_assert_true (after_term.sa_handler == SIG_DFL);
  g_assert_true (after_pipe.sa_handler == SIG_DFL);
}

static void
test_signals_reset_one_by_one (void)
{
  dsh_spawn_start_reset_handlers_for_testing ();
  test_signals ();
  test_handler_never_runs_in_child ();
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/spawn/signals", test_signals);
  g_test_add_func ("/spawn/term-signal-reported", test_term_signal_reported);
  g_test_add_func ("/spawn/inherited-descriptors", test_inherited_descriptors);
  g_test_add_func ("/spawn/quiet-and-cwd", test_quiet_and_cwd);
  g_test_add_func ("/spawn/cannot-start", test_cannot_start);
  g_test_add_func ("/spawn/handler-never-runs-in-child", test_handler_never_runs_in_child);
  g_test_add_func ("/spawn/overlapping-calls-forward-and-restore",
                   test_overlapping_calls_forward_and_restore);
  /* Last: the start keeps resetting one by one from here on. */
  g_test_add_func ("/spawn/signals-reset-one-by-one", test_signals_reset_one_by_one);
  return g_test_run ();
}
