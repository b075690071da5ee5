/* bench-interleave.c — wall time of several commands, measured in turns: one execution of each
 * command, then the next turn, so that whatever else the machine is doing weighs on all of them
 * alike. A tool that runs one command's executions before the next command's lets that drift
 * into the ratios, and on a shared machine it moved them by a tenth.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 *   bench-interleave [--stderr-pipe] RUNS 'NAME=[VAR=VALUE]... PROGRAM [ARG]...'...
 *
 * Each command is one shell-quoted string (no shell runs it); leading VAR=VALUE words are added to
 * its environment. stdin, stdout and stderr are /dev/null; with --stderr-pipe stderr is a pipe
 * this process reads to its end, as a harness that captures it would, and the time includes
 * that. A command failing is an error. Prints one JSON object: per name, the median and the 10th
 * and 90th percentiles in milliseconds.
 */
#define _GNU_SOURCE

#include <fcntl.h>
#include <glib.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define WARMUP_TURNS 20

typedef struct {
  char *name;
  GStrv argv;
  GStrv envp;
  GArray *samples_ms;
} Command;

static gboolean
parse_command (const char *spec, Command *command)
{
  const char *equals = strchr (spec, '=');
  g_auto (GStrv) environment = g_get_environ ();
  g_auto (GStrv) words = NULL;
  GStrvBuilder *env = NULL;
  guint first = 0;

  if (equals == NULL || equals == spec || !g_shell_parse_argv (equals + 1, NULL, &words, NULL))
    return FALSE;
  env = g_strv_builder_new ();
  g_strv_builder_addv (env, (const char **) environment);
  for (; words[first] != NULL && strchr (words[first], '=') != NULL && words[first][0] != '/';
       first++)
    g_strv_builder_add (env, words[first]);
  if (words[first] == NULL)
    {
      g_strv_builder_unref (env);
      return FALSE;
    }
  command->name = g_strndup (spec, (gsize) (equals - spec));
  command->argv = g_strdupv (words + first);
  command->envp = g_strv_builder_end (env);
  command->samples_ms = g_array_new (FALSE, FALSE, sizeof (double));
  g_strv_builder_unref (env);
  return TRUE;
}

/* Reads fd to its end, keeping nothing. */
static void
drain (int fd)
{
  static char buffer[1024 * 1024];

  while (read (fd, buffer, sizeof buffer) > 0)
    ;
}

static double
run_once (const Command *command, posix_spawn_file_actions_t *quiet, gboolean stderr_pipe)
{
  gint64 start = g_get_monotonic_time ();
  int captured[2] = { -1, -1 };
  posix_spawn_file_actions_t with_pipe;
  int status;
  pid_t pid;

  if (stderr_pipe)
    {
      if (pipe2 (captured, O_CLOEXEC) != 0)
        g_error ("cannot make a pipe for %s", command->name);
      posix_spawn_file_actions_init (&with_pipe);
      posix_spawn_file_actions_addopen (&with_pipe, 0, "/dev/null", O_RDONLY, 0);
      posix_spawn_file_actions_addopen (&with_pipe, 1, "/dev/null", O_WRONLY, 0);
      posix_spawn_file_actions_adddup2 (&with_pipe, captured[1], 2);
    }
  if (posix_spawnp (&pid, command->argv[0], stderr_pipe ? &with_pipe : quiet, NULL,
                    command->argv, command->envp) != 0)
    g_error ("cannot run %s", command->name);
  if (stderr_pipe)
    {
      posix_spawn_file_actions_destroy (&with_pipe);
      close (captured[1]);
      drain (captured[0]);
      close (captured[0]);
    }
  if (waitpid (pid, &status, 0) != pid)
    g_error ("cannot wait for %s", command->name);
  if (!WIFEXITED (status) || WEXITSTATUS (status) != 0)
    g_error ("%s failed (wait status %d)", command->name, status);
  return (double) (g_get_monotonic_time () - start) / 1000.0;
}

static int
compare_doubles (gconstpointer a, gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

static double
percentile (GArray *sorted, guint percent)
{
  return g_array_index (sorted, double, (sorted->len - 1) * percent / 100);
}

int
main (int argc, char **argv)
{
  g_autofree Command *commands = NULL;
  posix_spawn_file_actions_t quiet;
  gboolean stderr_pipe = argc > 1 && g_str_equal (argv[1], "--stderr-pipe");
  int n_commands;
  int runs;

  if (stderr_pipe)
    {
      argv++;
      argc--;
    }
  n_commands = argc - 2;
  if (argc < 3 || (runs = atoi (argv[1])) <= 0)
    {
      g_printerr ("usage: bench-interleave [--stderr-pipe] RUNS "
                  "'NAME=[VAR=VALUE]... PROGRAM [ARG]...'...\n");
      return 2;
    }
  commands = g_new0 (Command, n_commands);
  for (int i = 0; i < n_commands; i++)
    {
      if (!parse_command (argv[i + 2], &commands[i]))
        {
          g_printerr ("bench-interleave: cannot parse command '%s'\n", argv[i + 2]);
          return 2;
        }
    }

  posix_spawn_file_actions_init (&quiet);
  posix_spawn_file_actions_addopen (&quiet, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen (&quiet, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen (&quiet, 2, "/dev/null", O_WRONLY, 0);

  for (int turn = -WARMUP_TURNS; turn < runs; turn++)
    {
      for (int i = 0; i < n_commands; i++)
        {
          double ms = run_once (&commands[i], &quiet, stderr_pipe);

          if (turn >= 0)
            g_array_append_val (commands[i].samples_ms, ms);
        }
    }

  g_print ("{");
  for (int i = 0; i < n_commands; i++)
    {
      g_array_sort (commands[i].samples_ms, compare_doubles);
      g_print ("%s\n  \"%s\": { \"median_ms\": %.4f, \"p10_ms\": %.4f, \"p90_ms\": %.4f }",
               i > 0 ? "," : "", commands[i].name, percentile (commands[i].samples_ms, 50),
               percentile (commands[i].samples_ms, 10), percentile (commands[i].samples_ms, 90));
    }
  g_print ("\n}\n");
  posix_spawn_file_actions_destroy (&quiet);
  return 0;
}
