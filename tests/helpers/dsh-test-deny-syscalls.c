/* dsh-test-deny-syscalls — test helper: run a command with some system calls failing, so tests can
 * make a sandbox runner fail for real on a kernel that would otherwise let it work.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 *   dsh-test-deny-syscalls --errno ENOSYS|EPERM|EACCES|EOPNOTSUPP|EIO --syscall NAME[,NAME...]...
 *                          -- ARGV...
 *
 * Installs a seccomp filter (raw BPF, no libseccomp) that makes the named calls return the errno,
 * then execs ARGV; the filter is inherited by every descendant. `clone` is refused only when its
 * flags ask for a new user namespace (bubblewrap 0.8 creates its namespaces with one raw clone),
 * and naming it also makes clone3 return ENOSYS: clone3 passes its flags in memory, where a filter
 * cannot look, and libc falls back to clone on ENOSYS. Calls of another architecture's syscall
 * table are left alone. Not installed; test use only.
 */
#define _GNU_SOURCE

#include <errno.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "dsh-test-seccomp.h"

#ifndef __NR_clone3
#define __NR_clone3 435
#endif
#ifndef __NR_openat2
#define __NR_openat2 437
#endif

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define ARG0_LOW offsetof (struct seccomp_data, args[0])
#else
#define ARG0_LOW (offsetof (struct seccomp_data, args[0]) + 4)
#endif

#define MAX_INSNS 128

typedef struct {
  const char *name;
  long nr;
} Syscall;

/* Plain calls: refused whatever their arguments. */
static const Syscall plain_syscalls[] = {
  { "landlock_create_ruleset", __NR_landlock_create_ruleset },
  { "landlock_add_rule", __NR_landlock_add_rule },
  { "landlock_restrict_self", __NR_landlock_restrict_self },
  { "unshare", __NR_unshare },
  { "setns", __NR_setns },
  { "clone3", __NR_clone3 },
  { "mount", __NR_mount },
  { "umount2", __NR_umount2 },
  { "pivot_root", __NR_pivot_root },
  { "openat2", __NR_openat2 },
  { "memfd_create", __NR_memfd_create },
  { "fsync", __NR_fsync },
};

static const struct sock_filter prologue[] = { NATIVE_ARCH_PROLOGUE };
static struct sock_filter insns[MAX_INSNS];
static unsigned short n_insns;

static _Noreturn void
die (const char *message, const char *detail)
{
  fprintf (stderr, "dsh-test-deny-syscalls: %s%s%s\n", message, detail ? ": " : "",
           detail ? detail : "");
  exit (2);
}

static void
emit (struct sock_filter insn)
{
  if (n_insns >= MAX_INSNS)
    die ("too many system calls", NULL);
  insns[n_insns++] = insn;
}

static void
emit_refuse_nr (long nr, int errnum)
{
  emit ((struct sock_filter) BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, (unsigned) nr, 0, 1));
  emit ((struct sock_filter) BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (unsigned) errnum));
}

static void
emit_refuse (long nr, int errnum)
{
  emit_refuse_nr (nr, errnum);
#ifdef __x86_64__
  /* The x32 ABI shares the x86-64 audit arch and marks its calls with a high bit. */
  emit_refuse_nr (nr | 0x40000000, errnum);
#endif
}

/* clone with CLONE_NEWUSER among its flags; other clones (fork, threads) go through. */
static void
emit_refuse_clone_newuser (int errnum)
{
  emit ((struct sock_filter) BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, __NR_clone, 0, 4));
  emit ((struct sock_filter) BPF_STMT (BPF_LD | BPF_W | BPF_ABS, ARG0_LOW));
  emit ((struct sock_filter) BPF_JUMP (BPF_JMP | BPF_JSET | BPF_K, CLONE_NEWUSER, 0, 1));
  emit ((struct sock_filter) BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (unsigned) errnum));
  emit ((struct sock_filter) BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
}

static int
parse_errno (const char *name)
{
  if (strcmp (name, "ENOSYS") == 0)
    return ENOSYS;
  if (strcmp (name, "EPERM") == 0)
    return EPERM;
  if (strcmp (name, "EACCES") == 0)
    return EACCES;
  if (strcmp (name, "EOPNOTSUPP") == 0)
    return EOPNOTSUPP;
  if (strcmp (name, "EIO") == 0)
    return EIO;
  die ("unsupported --errno (use ENOSYS, EPERM, EACCES, EOPNOTSUPP or EIO)", name);
}

static void
add_syscall (const char *name, int errnum)
{
  if (strcmp (name, "clone") == 0)
    {
      emit_refuse (__NR_clone3, ENOSYS);
      emit_refuse_clone_newuser (errnum);
      return;
    }
  for (size_t i = 0; i < sizeof plain_syscalls / sizeof plain_syscalls[0]; i++)
    {
      if (strcmp (name, plain_syscalls[i].name) == 0)
        {
          emit_refuse (plain_syscalls[i].nr, errnum);
          return;
        }
    }
  die ("unsupported --syscall", name);
}

int
main (int argc, char **argv)
{
  const char *usage = "usage: dsh-test-deny-syscalls --errno ENOSYS|EPERM|EACCES|EOPNOTSUPP|EIO "
                      "--syscall NAME[,NAME...]... -- ARGV...";
  const char *errno_name = NULL;
  char *lists[32];
  int n_lists = 0, cmd_index = -1, errnum;
  struct sock_fprog prog;

  for (int i = 1; i < argc; i++)
    {
      if (strcmp (argv[i], "--") == 0)
        {
          cmd_index = i + 1;
          break;
        }
      if (i + 1 >= argc)
        die (usage, NULL);
      if (strcmp (argv[i], "--errno") == 0)
        errno_name = argv[++i];
      else if (strcmp (argv[i], "--syscall") == 0 && n_lists < 32)
        lists[n_lists++] = argv[++i];
      else
        die (usage, NULL);
    }
  if (errno_name == NULL || n_lists == 0 || cmd_index < 0 || cmd_index >= argc)
    die (usage, NULL);
  errnum = parse_errno (errno_name);

  /* Other architectures' tables are left alone; then dispatch on the call number. */
  for (size_t i = 0; i < sizeof prologue / sizeof prologue[0]; i++)
    emit (prologue[i]);
  for (int i = 0; i < n_lists; i++)
    {
      char *saveptr = NULL;

      for (char *name = strtok_r (lists[i], ",", &saveptr); name != NULL;
           name = strtok_r (NULL, ",", &saveptr))
        add_syscall (name, errnum);
    }
  emit ((struct sock_filter) BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_ALLOW));

  prog.len = n_insns;
  prog.filter = insns;
  if (prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
    die ("prctl(PR_SET_NO_NEW_PRIVS)", strerror (errno));
  if (prctl (PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) != 0)
    die ("prctl(PR_SET_SECCOMP)", strerror (errno));

  execvp (argv[cmd_index], &argv[cmd_index]);
  die ("cannot execute", strerror (errno));
}
