/* dsh-landlock-exec — the Landlock launcher: allow writes only beneath the given roots and the
 * required sinks, run the command confined in a child, and take down whatever it leaves running
 * when it exits.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 *   dsh-landlock-exec [--write PATH]... -- ARGV...
 *
 * Plain C and libc only, so the whole trust boundary fits on a few screens. Everything that can
 * go wrong before the confinement is in place ends in exit status 125 and exactly one stderr line
 * starting with "dsh-landlock-exec: fatal: "; the backend module publishes that prefix as its
 * runner-failure signature, so the two must change together.
 */
#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <dirent.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/audit.h>
#include <linux/openat2.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#define FATAL_PREFIX "dsh-landlock-exec: fatal: "
#define EXIT_RUNNER_FAILURE 125

/* The Landlock uapi, spelled out here: Debian 12's <linux/landlock.h> stops at ABI 2, and the
 * values are fixed kernel ABI. Syscall numbers are the same on every architecture (unified table
 * from 424 on). */
#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#endif
#ifndef __NR_landlock_add_rule
#define __NR_landlock_add_rule 445
#endif
#ifndef __NR_landlock_restrict_self
#define __NR_landlock_restrict_self 446
#endif

#define LL_CREATE_RULESET_VERSION (1U << 0)
#define LL_RULE_PATH_BENEATH 1

#define LL_FS_EXECUTE (1ULL << 0)
#define LL_FS_WRITE_FILE (1ULL << 1)
#define LL_FS_READ_FILE (1ULL << 2)
#define LL_FS_READ_DIR (1ULL << 3)
#define LL_FS_REMOVE_DIR (1ULL << 4)
#define LL_FS_REMOVE_FILE (1ULL << 5)
#define LL_FS_MAKE_CHAR (1ULL << 6)
#define LL_FS_MAKE_DIR (1ULL << 7)
#define LL_FS_MAKE_REG (1ULL << 8)
#define LL_FS_MAKE_SOCK (1ULL << 9)
#define LL_FS_MAKE_FIFO (1ULL << 10)
#define LL_FS_MAKE_BLOCK (1ULL << 11)
#define LL_FS_MAKE_SYM (1ULL << 12)
#define LL_FS_REFER (1ULL << 13)    /* ABI 2 */
#define LL_FS_TRUNCATE (1ULL << 14) /* ABI 3 */
#define LL_FS_IOCTL_DEV (1ULL << 15) /* ABI 5 */

/* Rights that mean something on a non-directory; the kernel refuses others on a file rule. */
#define LL_FS_FILE_RIGHTS \
  (LL_FS_EXECUTE | LL_FS_WRITE_FILE | LL_FS_READ_FILE | LL_FS_TRUNCATE | LL_FS_IOCTL_DEV)

struct ll_ruleset_attr {
  uint64_t handled_access_fs;
  uint64_t handled_access_net; /* ABI 4; never set: network is out of scope */
  uint64_t scoped;             /* ABI 6 */
};

#define LL_SCOPE_SIGNAL (1ULL << 1) /* ABI 6 */

struct ll_path_beneath_attr {
  uint64_t allowed_access;
  int32_t parent_fd;
} __attribute__ ((packed));

/* Every file-system right the running ABI knows; rights of newer ABIs than this file knows stay
 * unhandled (the kernel would reject them anyway). */
static uint64_t
handled_rights_for_abi (long abi)
{
  uint64_t rights = LL_FS_EXECUTE | LL_FS_WRITE_FILE | LL_FS_READ_FILE | LL_FS_READ_DIR |
                    LL_FS_REMOVE_DIR | LL_FS_REMOVE_FILE | LL_FS_MAKE_CHAR | LL_FS_MAKE_DIR |
                    LL_FS_MAKE_REG | LL_FS_MAKE_SOCK | LL_FS_MAKE_FIFO | LL_FS_MAKE_BLOCK |
                    LL_FS_MAKE_SYM;

  if (abi >= 2)
    rights |= LL_FS_REFER;
  if (abi >= 3)
    rights |= LL_FS_TRUNCATE;
  if (abi >= 5)
    rights |= LL_FS_IOCTL_DEV;
  return rights;
}

static _Noreturn void
fatal (const char *what, int errnum)
{
  if (errnum != 0)
    fprintf (stderr, FATAL_PREFIX "%s: %s\n", what, strerror (errnum));
  else
    fprintf (stderr, FATAL_PREFIX "%s\n", what);
  exit (EXIT_RUNNER_FAILURE);
}

static _Noreturn void
fatal_path (const char *what, const char *path, int errnum)
{
  fprintf (stderr, FATAL_PREFIX "%s '%s': %s\n", what, path, strerror (errnum));
  exit (EXIT_RUNNER_FAILURE);
}

static int
open_without_symlinks (const char *path)
{
  struct open_how how = { .flags = O_PATH | O_CLOEXEC, .resolve = RESOLVE_NO_SYMLINKS };
  int fd = (int) syscall (SYS_openat2, AT_FDCWD, path, &how, sizeof how);

  /* openat2 predates Landlock (5.6 against 5.13); a filter may still hide it. */
  if (fd < 0 && (errno == ENOSYS || errno == EPERM))
    fd = open (path, O_PATH | O_CLOEXEC | O_NOFOLLOW);
  return fd;
}

/* Grant `rights` beneath `path`. A path that does not exist is skipped: a missing root matches
 * nothing until it exists, and skipping only ever denies more. */
static void
allow_beneath (int ruleset_fd, const char *path, uint64_t rights)
{
  struct ll_path_beneath_attr attr = { 0 };
  struct stat st;
  int fd;

  /* Roots arrive canonical: a symlink anywhere on the way means one was put there since (a
   * confined command racing this call), and following it would grant whatever it points to. */
  fd = open_without_symlinks (path);
  if (fd < 0)
    {
      if (errno == ENOENT || errno == ENOTDIR)
        return;
      if (errno == ELOOP)
        fatal_path ("a symlink appeared on the way to", path, errno);
      fatal_path ("cannot open", path, errno);
    }
  if (fstat (fd, &st) != 0)
    fatal_path ("cannot stat", path, errno);
  if (!S_ISDIR (st.st_mode))
    rights &= LL_FS_FILE_RIGHTS;

  attr.allowed_access = rights;
  attr.parent_fd = fd;
  if (syscall (__NR_landlock_add_rule, ruleset_fd, LL_RULE_PATH_BENEATH, &attr, 0) != 0)
    fatal_path ("landlock_add_rule failed for", path, errno);
  close (fd);
}

/* The terminal behind the inherited stdio: the command already holds it open, and reopening it
 * by name (`>/dev/stderr`, /dev/tty prompts) must keep working. */
static void
allow_own_terminals (int ruleset_fd, uint64_t rights)
{
  for (int fd = 0; fd <= 2; fd++)
    {
      char name[PATH_MAX];

      if (!isatty (fd) || ttyname_r (fd, name, sizeof name) != 0)
        continue;
      if (strncmp (name, "/dev/", 5) == 0)
        allow_beneath (ruleset_fd, name, rights);
    }
}

/* The command keeps the caller's session and controlling terminal (so ^C and /dev/tty prompts
 * work), which would let it push keystrokes into the caller's shell with TIOCSTI and have them
 * run unconfined after it exits (bwrap closes the same hole with --new-session). Refuse TIOCSTI
 * and TIOCLINUX ioctls. The kernel truncates the request to 32 bits, so only those are compared. */
#if defined(__x86_64__)
#define NATIVE_ARCH AUDIT_ARCH_X86_64
#define NATIVE_IOCTL 16
#define NATIVE_IOCTL_ALT (0x40000000 | 514) /* x32 */
#define COMPAT_ARCH AUDIT_ARCH_I386
#define COMPAT_IOCTL 54
#elif defined(__aarch64__)
#define NATIVE_ARCH AUDIT_ARCH_AARCH64
#define NATIVE_IOCTL 29
#define NATIVE_IOCTL_ALT 29
#define COMPAT_ARCH AUDIT_ARCH_ARM
#define COMPAT_IOCTL 54
#elif defined(__riscv) && __riscv_xlen == 64
#define NATIVE_ARCH AUDIT_ARCH_RISCV64
#define NATIVE_IOCTL 29
#define NATIVE_IOCTL_ALT 29
#define COMPAT_ARCH AUDIT_ARCH_RISCV64
#define COMPAT_IOCTL 29
#else
#error "dsh-landlock-exec: add this architecture's audit arch and ioctl syscall numbers"
#endif

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define ARG1_LOW offsetof (struct seccomp_data, args[1])
#else
#define ARG1_LOW (offsetof (struct seccomp_data, args[1]) + 4)
#endif

static int
refuse_terminal_injection (void)
{
  struct sock_filter code[] = {
    /* 0 */ BPF_STMT (BPF_LD | BPF_W | BPF_ABS, offsetof (struct seccomp_data, arch)),
    /* 1 */ BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, NATIVE_ARCH, 0, 4),
    /* 2 */ BPF_STMT (BPF_LD | BPF_W | BPF_ABS, offsetof (struct seccomp_data, nr)),
    /* 3 */ BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, NATIVE_IOCTL, 6, 0),
    /* 4 */ BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, NATIVE_IOCTL_ALT, 5, 0),
    /* 5 */ BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    /* 6 */ BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, COMPAT_ARCH, 0, 2),
    /* 7 */ BPF_STMT (BPF_LD | BPF_W | BPF_ABS, offsetof (struct seccomp_data, nr)),
    /* 8 */ BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, COMPAT_IOCTL, 1, 0),
    /* 9 */ BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    /* 10 */ BPF_STMT (BPF_LD | BPF_W | BPF_ABS, ARG1_LOW),
    /* 11 */ BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, TIOCSTI, 2, 0),
    /* 12 */ BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, TIOCLINUX, 1, 0),
    /* 13 */ BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    /* 14 */ BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)),
  };
  struct sock_fprog prog = { .len = sizeof code / sizeof code[0], .filter = code };

  return prctl (PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) == 0 ? 0 : errno;
}

/* ---- running the command --------------------------------------------------------------- */

static volatile sig_atomic_t command_pid;
static pid_t original_parent;

/* Signals another process sends us (dsh-sandbox forwarding) go on to the command; the terminal's
 * own (SI_KERNEL) already reached it, being in our process group. When our parent died, the
 * call is over: the command is killed outright, and its leftovers with it after it exits. */
static void
forward_signal (int signum, siginfo_t *info, void *context)
{
  (void) context;
  if (command_pid <= 0)
    return;
  if (getppid () != original_parent)
    kill (command_pid, SIGKILL);
  else if (info->si_code != SI_KERNEL)
    kill (command_pid, signum);
}

static const int forwarded_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };

/* Kills every child we have. Orphans of the command are reparented to us (a subreaper), so
 * repeating this until none is left takes down the whole tree the command started. */
static void
kill_children (void)
{
  DIR *proc = opendir ("/proc");
  struct dirent *entry;
  pid_t self = getpid ();

  if (proc == NULL)
    return;
  while ((entry = readdir (proc)) != NULL)
    {
      char path[sizeof "/proc//stat" + sizeof entry->d_name], stat_line[512];
      const char *after_name;
      char state;
      int fd, ppid;
      ssize_t n;

      if (entry->d_name[0] < '1' || entry->d_name[0] > '9')
        continue;
      snprintf (path, sizeof path, "/proc/%s/stat", entry->d_name);
      fd = open (path, O_RDONLY | O_CLOEXEC);
      if (fd < 0)
        continue;
      n = read (fd, stat_line, sizeof stat_line - 1);
      close (fd);
      if (n <= 0)
        continue;
      stat_line[n] = '\0';
      /* "pid (comm) state ppid ...": comm may hold anything, so parse after the last ')'. */
      after_name = strrchr (stat_line, ')');
      if (after_name != NULL && sscanf (after_name + 1, " %c %d", &state, &ppid) == 2 &&
          ppid == self)
        kill ((pid_t) atoi (entry->d_name), SIGKILL);
    }
  closedir (proc);
}

static void
reap_leftovers (void)
{
  for (;;)
    {
      pid_t reaped = waitpid (-1, NULL, WNOHANG);

      if (reaped > 0)
        continue;
      if (reaped < 0 && errno != EINTR)
        return; /* ECHILD: nothing is left */
      kill_children ();
      if (waitpid (-1, NULL, 0) < 0 && errno == ECHILD)
        return;
    }
}

/* The child shares our memory until it execs (see supervise), so it reports with one write(2)
 * and leaves with _exit(): no stdio, no atexit handlers run on our behalf. */
static _Noreturn void
child_exit (int status, const char *prefix, const char *what, const char *detail)
{
  char line[PATH_MAX + 256];
  int n = snprintf (line, sizeof line, "%s%s%s%s\n", prefix, what, detail != NULL ? ": " : "",
                    detail != NULL ? detail : "");

  if (n > 0)
    (void) !write (STDERR_FILENO, line, (size_t) n < sizeof line ? (size_t) n : sizeof line - 1);
  _exit (status);
}

/* In the child: confine it (only it — the launcher stays outside the domain it supervises), then
 * run the command. */
static _Noreturn void
confine_and_exec (int ruleset_fd, char **command)
{
  char what[PATH_MAX + 32];
  int errnum;

  for (size_t i = 0; i < sizeof forwarded_signals / sizeof forwarded_signals[0]; i++)
    signal (forwarded_signals[i], SIG_DFL);
  if (prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
    child_exit (EXIT_RUNNER_FAILURE, FATAL_PREFIX, "prctl(PR_SET_NO_NEW_PRIVS) failed",
                strerror (errno));
  errnum = refuse_terminal_injection ();
  if (errnum != 0)
    child_exit (EXIT_RUNNER_FAILURE, FATAL_PREFIX, "cannot install the terminal-injection filter",
                strerror (errnum));
  if (syscall (__NR_landlock_restrict_self, ruleset_fd, 0) != 0)
    child_exit (EXIT_RUNNER_FAILURE, FATAL_PREFIX, "landlock_restrict_self failed",
                strerror (errno));
  close (ruleset_fd);
  execvp (command[0], command);

  /* The confinement is in place and the command itself cannot be run: that is the command's
   * failure (as a shell reports it, 127 or 126), not the runner's, so no "fatal:" here. */
  errnum = errno;
  snprintf (what, sizeof what, "cannot execute '%s'", command[0]);
  child_exit (errnum == ENOENT ? 127 : 126, "dsh-landlock-exec: ", what, strerror (errnum));
}

/* Runs the command, confined, as our child and, once it exits, kills and reaps every process it
 * left behind: a background process must not outlive the call, and with it the policy of the
 * call. Passes the command's exit status on, or dies of the same signal. */
static int
supervise (int ruleset_fd, char **command)
{
  struct sigaction action = { 0 };
  int status = 0;
  pid_t child;

  if (prctl (PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0)
    fatal ("prctl(PR_SET_CHILD_SUBREAPER) failed", errno);
  /* If whoever started us dies, the command and its tree go too. */
  original_parent = getppid ();
  if (prctl (PR_SET_PDEATHSIG, SIGTERM, 0, 0, 0) != 0)
    fatal ("prctl(PR_SET_PDEATHSIG) failed", errno);

  action.sa_sigaction = forward_signal;
  action.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset (&action.sa_mask);
  for (size_t i = 0; i < sizeof forwarded_signals / sizeof forwarded_signals[0]; i++)
    sigaction (forwarded_signals[i], &action, NULL);

  /* vfork: the child borrows our memory (nothing is copied, and we take no copy-on-write faults
   * afterwards) and we wait until it has exec'd; it only makes system calls before that. */
  child = vfork ();
  if (child < 0)
    fatal ("cannot start the command", errno);
  if (child == 0)
    confine_and_exec (ruleset_fd, command);
  close (ruleset_fd);

  command_pid = child;
  /* The parent may have died before the death signal was armed. */
  if (getppid () != original_parent)
    kill (child, SIGKILL);
  while (waitpid (child, &status, 0) < 0)
    {
      if (errno != EINTR)
        fatal ("waitpid failed", errno);
    }
  command_pid = 0;
  reap_leftovers ();

  if (WIFSIGNALED (status))
    {
      struct rlimit no_core = { 0, 0 };
      int signum = WTERMSIG (status);

      /* Die the same way, so the caller sees the signal, not a made-up status. */
      setrlimit (RLIMIT_CORE, &no_core);
      signal (signum, SIG_DFL);
      raise (signum);
      return 128 + signum;
    }
  return WEXITSTATUS (status);
}

int
main (int argc, char **argv)
{
  const char *sinks[] = { "/dev/null", "/dev/zero", "/dev/full", "/dev/tty" };
  struct ll_ruleset_attr ruleset_attr = { 0 };
  uint64_t handled, read_rights, write_rights;
  int cmd_index = -1;
  int ruleset_fd;
  long abi;

  for (int i = 1; i < argc; i++)
    {
      if (strcmp (argv[i], "--") == 0)
        {
          cmd_index = i + 1;
          break;
        }
      if (strcmp (argv[i], "--write") != 0 || i + 1 >= argc || argv[i + 1][0] != '/')
        fatal ("usage: dsh-landlock-exec [--write ABSOLUTE-PATH]... -- ARGV...", 0);
      i++;
    }
  if (cmd_index < 0 || cmd_index >= argc)
    fatal ("usage: dsh-landlock-exec [--write ABSOLUTE-PATH]... -- ARGV...", 0);

  abi = syscall (__NR_landlock_create_ruleset, NULL, 0, LL_CREATE_RULESET_VERSION);
  if (abi < 1)
    fatal ("Landlock is not available (ABI version query failed)", abi < 0 ? errno : EINVAL);

  handled = handled_rights_for_abi (abi);
  ruleset_attr.handled_access_fs = handled;
  /* From ABI 6 the command cannot signal processes outside its domain — above all not this
   * launcher, whose death would otherwise free the command's leftovers. */
  if (abi >= 6)
    ruleset_attr.scoped = LL_SCOPE_SIGNAL;
  ruleset_fd = (int) syscall (__NR_landlock_create_ruleset, &ruleset_attr, sizeof ruleset_attr, 0);
  if (ruleset_fd < 0)
    fatal ("landlock_create_ruleset failed", errno);

  /* Device ioctls come with reading: device policy is out of scope, and ioctls that modify
   * storage need a descriptor opened for writing, which WRITE_FILE governs. */
  read_rights = handled & (LL_FS_EXECUTE | LL_FS_READ_FILE | LL_FS_READ_DIR | LL_FS_IOCTL_DEV);
  allow_beneath (ruleset_fd, "/", read_rights);

  /* Everything beneath a writable root except creating device nodes: a caller running as root
   * could otherwise mknod a disk inside the workspace and write the host through it. */
  write_rights = handled & ~(LL_FS_MAKE_CHAR | LL_FS_MAKE_BLOCK);
  for (int i = 2; i < cmd_index - 1; i += 2)
    allow_beneath (ruleset_fd, argv[i], write_rights);

  /* Required sinks: the bit buckets a shell writes to and the controlling terminal; writing
   * them changes no file. Only the write right is added; read comes from `/`. */
  for (size_t i = 0; i < sizeof sinks / sizeof sinks[0]; i++)
    allow_beneath (ruleset_fd, sinks[i], handled & LL_FS_WRITE_FILE);
  allow_own_terminals (ruleset_fd, handled & LL_FS_WRITE_FILE);

  return supervise (ruleset_fd, &argv[cmd_index]);
}
