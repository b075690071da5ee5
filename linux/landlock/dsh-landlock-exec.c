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
 * runner-failure signature, so both take it from dsh-landlock-exec.h.
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
#include <sys/socket.h>
#include <sys/stat.h>
#include <dirent.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/openat2.h>
#include <linux/filter.h>
#include <linux/loop.h>
#include <linux/seccomp.h>

#include "dsh-child-relay.h"
#include "dsh-execvp.h"
#include "dsh-landlock-exec.h"
#include "dsh-landlock-uapi.h"
#include "dsh-open-no-symlinks.h"
#include "dsh-seccomp-arch.h"
#include "dsh-terminal-typing.h"

static _Noreturn void
fatal (const char *what, int errnum)
{
  if (errnum != 0)
    fprintf (stderr, DSH_LANDLOCK_FATAL_PREFIX "%s: %s\n", what, strerror (errnum));
  else
    fprintf (stderr, DSH_LANDLOCK_FATAL_PREFIX "%s\n", what);
  exit (DSH_LANDLOCK_EXIT_FAILURE);
}

/* Why the version query failed, in words that name the errno and what usually causes it. */
static _Noreturn void
landlock_unavailable (int errnum)
{
  const char *name, *cause;

  dsh_landlock_unavailable_cause (errnum, &name, &cause);
  fprintf (stderr,
           DSH_LANDLOCK_FATAL_PREFIX
           "Landlock is not available: the ABI version query failed (%s%s)%s\n",
           name, strerror (errnum), cause);
  exit (DSH_LANDLOCK_EXIT_FAILURE);
}

static _Noreturn void
fatal_path (const char *what, const char *path, int errnum)
{
  fprintf (stderr, DSH_LANDLOCK_FATAL_PREFIX "%s '%s': %s\n", what, path, strerror (errnum));
  exit (DSH_LANDLOCK_EXIT_FAILURE);
}

/* openat2 predates Landlock (5.6 against 5.13); a filter may still hide it, and then the walk
 * goes one component at a time. */
static int
open_without_symlinks (const char *path)
{
  return dsh_open_no_symlinks (AT_FDCWD, path, O_PATH | O_CLOEXEC);
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
  /* Rights that hold on a file too need no look at what the path is. */
  if ((rights & ~LL_FS_FILE_RIGHTS) != 0)
    {
      if (fstat (fd, &st) != 0)
        fatal_path ("cannot stat", path, errno);
      if (!S_ISDIR (st.st_mode))
        rights &= LL_FS_FILE_RIGHTS;
    }

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

/* ---- the command's seccomp filter -------------------------------------------------------
 *
 * One classic-BPF program, built in the launcher before it starts the command (it knows its own
 * pid then) and installed by the command's process before it execs, holding only what this ABI
 * needs:
 *
 * - always: the command keeps the caller's session and controlling terminal (so ^C and /dev/tty
 *   prompts work), which would let it push keystrokes into the caller's shell with TIOCSTI, or
 *   remap a console's keys to type its text, and have them run unconfined after it exits, so
 *   the requests of dsh-terminal-typing.h are refused (bwrap's step inside refuses them too);
 *   so are the loop driver's requests and
 *   loop-control's (LOOP_*, 0x4C00-0x4C1F and 0x4C80-0x4C82), which a descriptor opened for
 *   reading suffices for and Landlock grants with reading or, below ABI 5, does not govern: with
 *   LOOP_CHANGE_FD a read-only command could swap the backing file of the user's read-only loop
 *   device, outside every root, for one of its own; and prlimit setting the limits of any other
 *   process by id, which no Landlock ABI governs (a launcher left without descriptors could not
 *   find what the command leaves running; a limit set on any thread of the caller holds for the
 *   whole caller);
 * - below ABI 6, which scopes signals: every way of aiming a signal at the launcher, at its
 *   caller or at their process groups (kill, tkill, tgkill, rt_[tg]sigqueueinfo by pid, 0 or -1;
 *   an owner for SIGIO set with F_SETOWN, F_SETOWN_EX, FIOSETOWN or SIOCSPGRP), and
 *   pidfd_send_signal outright, whose target is a descriptor the filter cannot read (ENOSYS, so
 *   callers fall back to kill). A stopped or killed launcher would hang the call or free what the
 *   command leaves running;
 * - below ABI 3, which governs truncation: truncate(2) by path, O_TRUNC without write access
 *   (with write access Landlock's write right decides), and openat2 and io_uring_setup, whose
 *   flags a filter cannot see (ENOSYS, so callers fall back to openat and plain system calls).
 *
 * Arguments are compared on their low 32 bits: pids, flags and ioctl requests are all the kernel
 * reads of them. */
/* The unified table (424 on) is the same everywhere. */
#ifndef __NR_pidfd_send_signal
#define __NR_pidfd_send_signal 424
#endif
#ifndef __NR_io_uring_setup
#define __NR_io_uring_setup 425
#endif
#ifndef __NR_openat2
#define __NR_openat2 437
#endif

/* The access mode bits of open's flags as the kernel reads them. Not the C library's O_ACCMODE:
 * musl's also holds O_PATH, and O_TRUNC | 3 would then never match. */
#define KERNEL_ACCMODE 3

/* The loop driver's block of request numbers ('L' 0x00-0x1F in the kernel's ioctl registry, from
 * LOOP_SET_FD); loop-control's run from LOOP_CTL_ADD to LOOP_CTL_GET_FREE. */
#define LOOP_REQUESTS_FIRST LOOP_SET_FD
#define LOOP_REQUESTS_LAST 0x4C1F

typedef enum {
  CALL_IOCTL,          /* terminal injection; below ABI 6 also FIOSETOWN, SIOCSPGRP */
  CALL_PRLIMIT,        /* argument 0 is the launcher or its caller */
  CALL_KILL,           /* below ABI 6: argument 0 names a signal target */
  CALL_TGKILL,         /* below ABI 6: argument 0 or 1 does */
  CALL_PIDFD_SIGNAL,   /* below ABI 6: refused */
  CALL_FCNTL,          /* below ABI 6: F_SETOWN to a target, F_SETOWN_EX */
  CALL_TRUNCATE,       /* below ABI 3: refused */
  CALL_OPEN_FLAGS_1,   /* below ABI 3: argument 1 holds O_TRUNC without write access */
  CALL_OPEN_FLAGS_2,   /* below ABI 3: argument 2 does */
  CALL_OPAQUE_OPEN,    /* below ABI 3: refused (openat2, io_uring_setup) */
  N_CALL_KINDS
} CallKind;

typedef struct {
  int nr;
  CallKind kind;
} Call;

/* On x86-64 the x32 calls come under the native arch with DSH_SECCOMP_X32_BIT set; the filter
 * masks the bit off before it compares, so they share the native numbers, except the three x32
 * has of its own (a native call of that number does not exist). */
static const Call native_calls[] = {
  { __NR_ioctl, CALL_IOCTL },
  { __NR_prlimit64, CALL_PRLIMIT },
  { __NR_kill, CALL_KILL },
  { __NR_tkill, CALL_KILL },
  { __NR_rt_sigqueueinfo, CALL_KILL },
  { __NR_tgkill, CALL_TGKILL },
  { __NR_rt_tgsigqueueinfo, CALL_TGKILL },
  { __NR_pidfd_send_signal, CALL_PIDFD_SIGNAL },
  { __NR_fcntl, CALL_FCNTL },
  { __NR_truncate, CALL_TRUNCATE },
#ifdef __NR_open
  { __NR_open, CALL_OPEN_FLAGS_1 },
#endif
  { __NR_openat, CALL_OPEN_FLAGS_2 },
  { __NR_open_by_handle_at, CALL_OPEN_FLAGS_2 },
  { __NR_openat2, CALL_OPAQUE_OPEN },
  { __NR_io_uring_setup, CALL_OPAQUE_OPEN },
#ifdef DSH_SECCOMP_X32_BIT
  { DSH_SECCOMP_X32_IOCTL, CALL_IOCTL },
  { 524, CALL_KILL },   /* x32 rt_sigqueueinfo */
  { 536, CALL_TGKILL }, /* x32 rt_tgsigqueueinfo */
#endif
};

#ifdef DSH_SECCOMP_COMPAT_ARCH
/* The 32-bit table (i386 or arm): numbers differ, the flag values do not. */
#if defined(__x86_64__)
#define COMPAT_TGKILL 270
#define COMPAT_RT_TGSIGQUEUEINFO 335
#define COMPAT_OPENAT 295
#define COMPAT_OPEN_BY_HANDLE_AT 342
#define COMPAT_PRLIMIT64 340
#else
#define COMPAT_TGKILL 268
#define COMPAT_RT_TGSIGQUEUEINFO 363
#define COMPAT_OPENAT 322
#define COMPAT_OPEN_BY_HANDLE_AT 371
#define COMPAT_PRLIMIT64 369
#endif
static const Call compat_calls[] = {
  { DSH_SECCOMP_COMPAT_IOCTL, CALL_IOCTL },
  { COMPAT_PRLIMIT64, CALL_PRLIMIT },
  { 37, CALL_KILL },
  { 238, CALL_KILL },
  { 178, CALL_KILL },
  { COMPAT_TGKILL, CALL_TGKILL },
  { COMPAT_RT_TGSIGQUEUEINFO, CALL_TGKILL },
  { 424, CALL_PIDFD_SIGNAL },
  { 55, CALL_FCNTL },
  { 221, CALL_FCNTL },
  { 92, CALL_TRUNCATE },
  { 193, CALL_TRUNCATE },
  { 5, CALL_OPEN_FLAGS_1 },
  { COMPAT_OPENAT, CALL_OPEN_FLAGS_2 },
  { COMPAT_OPEN_BY_HANDLE_AT, CALL_OPEN_FLAGS_2 },
  { 437, CALL_OPAQUE_OPEN },
  { 425, CALL_OPAQUE_OPEN },
};
#endif

/* What the filter does with a call of a kind on this ABI. */
typedef enum {
  ACT_ALLOW,  /* nothing this ABI leaves open: not even compared */
  ACT_CHECK,  /* its arguments decide (the kind's checks) */
  ACT_EACCES, /* refused outright */
  ACT_ENOSYS, /* refused outright, as if the kernel lacked it */
} Action;

static Action
action_for (CallKind kind, long abi)
{
  int scoped = abi >= 6, truncation_governed = abi >= 3;

  switch (kind)
    {
    case CALL_IOCTL:
    case CALL_PRLIMIT:
      return ACT_CHECK;
    case CALL_KILL:
    case CALL_TGKILL:
    case CALL_FCNTL:
      return scoped ? ACT_ALLOW : ACT_CHECK;
    case CALL_PIDFD_SIGNAL:
      return scoped ? ACT_ALLOW : ACT_ENOSYS;
    case CALL_TRUNCATE:
      return truncation_governed ? ACT_ALLOW : ACT_EACCES;
    case CALL_OPEN_FLAGS_1:
    case CALL_OPEN_FLAGS_2:
      return truncation_governed ? ACT_ALLOW : ACT_CHECK;
    case CALL_OPAQUE_OPEN:
      return truncation_governed ? ACT_ALLOW : ACT_ENOSYS;
    case N_CALL_KINDS:
      break;
    }
  return ACT_CHECK;
}

/* The program's layout: the arch decides which call table is compared; a call of a kind whose
 * arguments decide jumps to that kind's checks, shared by both tables; every refusal jumps to
 * one return per errno at the end. Only forward jumps, so the targets are labels resolved once
 * the program is complete. */
typedef enum {
  LABEL_NATIVE,
  LABEL_COMPAT,
  LABEL_ALLOW,
  LABEL_EPERM,
  LABEL_EACCES,
  LABEL_ENOSYS,
  LABEL_CHECKS, /* + CallKind */
  N_LABELS = LABEL_CHECKS + N_CALL_KINDS
} Label;

#define FILTER_MAX 256
#define NO_LABEL 0xFF

typedef struct {
  struct sock_filter code[FILTER_MAX];
  /* Per instruction, the labels its true and false branches go to (NO_LABEL: the offset as
   * emitted). */
  uint8_t jt_label[FILTER_MAX];
  uint8_t jf_label[FILTER_MAX];
  int label_at[N_LABELS];
  int label_used[N_LABELS];
  unsigned short len;
  int too_long;
} Filter;

/* Built before the command starts, installed by its process before it execs. */
static Filter command_filter;

static void
emit_jump (Filter *f, struct sock_filter insn, uint8_t jt_label, uint8_t jf_label)
{
  if (f->len == FILTER_MAX)
    {
      f->too_long = 1;
      return;
    }
  f->jt_label[f->len] = jt_label;
  f->jf_label[f->len] = jf_label;
  if (jt_label != NO_LABEL)
    f->label_used[jt_label] = 1;
  if (jf_label != NO_LABEL)
    f->label_used[jf_label] = 1;
  f->code[f->len++] = insn;
}

static void
emit (Filter *f, struct sock_filter insn)
{
  emit_jump (f, insn, NO_LABEL, NO_LABEL);
}

static void
place_label (Filter *f, Label label)
{
  f->label_at[label] = f->len;
}

static void
load_arg (Filter *f, int n)
{
  emit (f, (struct sock_filter) BPF_STMT (BPF_LD | BPF_W | BPF_ABS, DSH_SECCOMP_ARG_LOW (n)));
}

/* lo <= A <= hi (unsigned): go to `label`; else on with the next instruction. */
static void
jump_if_in_range (Filter *f, uint32_t lo, uint32_t hi, Label label)
{
  emit (f, (struct sock_filter) BPF_JUMP (BPF_JMP | BPF_JGE | BPF_K, lo, 0, 1));
  emit_jump (f, (struct sock_filter) BPF_JUMP (BPF_JMP | BPF_JGT | BPF_K, hi, 0, 0), NO_LABEL,
             label);
}

/* A == value: go to `label`; else on with the next instruction. */
static void
jump_if_equal (Filter *f, uint32_t value, Label label)
{
  emit_jump (f, (struct sock_filter) BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, value, 0, 0), label,
             NO_LABEL);
}

static void
emit_return (Filter *f, uint32_t action)
{
  emit (f, (struct sock_filter) BPF_STMT (BPF_RET | BPF_K, action));
}

/* What the command must not signal: the launcher, its caller, their process groups, "my own
 * group" (0) and "everyone" (-1). The first four may also not be made a descriptor's owner. */
typedef struct {
  int32_t pids[6];
  size_t n_owners;
  size_t n_pids;
} SignalTargets;

static void
refuse_targets (Filter *f, int arg, const SignalTargets *t, size_t n)
{
  load_arg (f, arg);
  for (size_t i = 0; i < n; i++)
    jump_if_equal (f, (uint32_t) t->pids[i], LABEL_EPERM);
}

/* The checks of a kind whose arguments decide; each ends in "allow". */
static void
add_checks (Filter *f, CallKind kind, long abi, const SignalTargets *t)
{
  place_label (f, LABEL_CHECKS + kind);
  switch (kind)
    {
    case CALL_IOCTL:
      load_arg (f, 1);
      for (size_t i = 0; i < DSH_N_TERMINAL_TYPING_REQUESTS; i++)
        jump_if_equal (f, dsh_terminal_typing_requests[i], LABEL_EPERM);
      /* The loop driver's requests are plain numbers (no direction or size bits), compared as
       * the kernel does, whatever the descriptor. */
      jump_if_in_range (f, LOOP_REQUESTS_FIRST, LOOP_REQUESTS_LAST, LABEL_EPERM);
      jump_if_in_range (f, LOOP_CTL_ADD, LOOP_CTL_GET_FREE, LABEL_EPERM);
      if (abi < 6)
        {
          jump_if_equal (f, FIOSETOWN, LABEL_EPERM);
          jump_if_equal (f, SIOCSPGRP, LABEL_EPERM);
        }
      break;
    case CALL_PRLIMIT:
      /* Reading any limits and setting its own (pid 0) are allowed; setting another process's
       * by id is refused: a filter cannot tell a thread id of the launcher's caller from any
       * other id, and Linux applies a limit set on a thread id to its whole process. */
      load_arg (f, 0);
      jump_if_equal (f, 0, LABEL_ALLOW);
      load_arg (f, 2);
      emit_jump (f, (struct sock_filter) BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 0), NO_LABEL,
                 LABEL_EPERM);
      emit (f, (struct sock_filter) BPF_STMT (BPF_LD | BPF_W | BPF_ABS, DSH_SECCOMP_ARG_HIGH (2)));
      emit_jump (f, (struct sock_filter) BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 0),
                 LABEL_ALLOW, LABEL_EPERM);
      break;
    case CALL_KILL:
      refuse_targets (f, 0, t, t->n_pids);
      break;
    case CALL_TGKILL:
      refuse_targets (f, 0, t, t->n_pids);
      refuse_targets (f, 1, t, t->n_pids);
      break;
    case CALL_FCNTL:
      load_arg (f, 1);
      jump_if_equal (f, F_SETOWN_EX, LABEL_EPERM);
      emit_jump (f, (struct sock_filter) BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, F_SETOWN, 0, 0),
                 NO_LABEL, LABEL_ALLOW);
      refuse_targets (f, 2, t, t->n_owners);
      break;
    case CALL_OPEN_FLAGS_1:
    case CALL_OPEN_FLAGS_2:
      load_arg (f, kind == CALL_OPEN_FLAGS_1 ? 1 : 2);
      emit (f, (struct sock_filter) BPF_STMT (BPF_ALU | BPF_AND | BPF_K, O_TRUNC | KERNEL_ACCMODE));
      jump_if_equal (f, O_TRUNC | O_RDONLY, LABEL_EACCES);
      jump_if_equal (f, O_TRUNC | KERNEL_ACCMODE, LABEL_EACCES);
      break;
    case CALL_PIDFD_SIGNAL:
    case CALL_TRUNCATE:
    case CALL_OPAQUE_OPEN:
    case N_CALL_KINDS:
      break;
    }
  emit_return (f, SECCOMP_RET_ALLOW);
}

/* One arch's table: the call number (A), compared with every call this ABI filters. */
static void
add_dispatch (Filter *f, Label at, uint32_t nr_mask, const Call *calls, size_t n, long abi,
              int *checked)
{
  static const Label refusal[] = {
    [ACT_EACCES] = LABEL_EACCES,
    [ACT_ENOSYS] = LABEL_ENOSYS,
  };

  place_label (f, at);
  emit (f, (struct sock_filter) BPF_STMT (BPF_LD | BPF_W | BPF_ABS,
                                          offsetof (struct seccomp_data, nr)));
  if (nr_mask != UINT32_MAX)
    emit (f, (struct sock_filter) BPF_STMT (BPF_ALU | BPF_AND | BPF_K, nr_mask));
  for (size_t i = 0; i < n; i++)
    {
      Action action = action_for (calls[i].kind, abi);

      if (action == ACT_ALLOW)
        continue;
      if (action == ACT_CHECK)
        checked[calls[i].kind] = 1;
      jump_if_equal (f, (uint32_t) calls[i].nr,
                     action == ACT_CHECK ? LABEL_CHECKS + calls[i].kind : refusal[action]);
    }
  emit_return (f, SECCOMP_RET_ALLOW);
}

/* One of the returns at the end, if any branch goes there. */
static void
add_shared_return (Filter *f, Label label, uint32_t action)
{
  if (!f->label_used[label])
    return;
  place_label (f, label);
  emit_return (f, action);
}

/* Turns every labelled branch into its offset; a branch reaches at most 255 instructions. */
static void
resolve_labels (Filter *f)
{
  for (unsigned short i = 0; i < f->len; i++)
    {
      uint8_t labels[2] = { f->jt_label[i], f->jf_label[i] };

      for (int b = 0; b < 2; b++)
        {
          int offset;

          if (labels[b] == NO_LABEL)
            continue;
          offset = f->label_at[labels[b]] - (i + 1);
          if (offset < 0 || offset > 255)
            {
              f->too_long = 1;
              return;
            }
          if (b == 0)
            f->code[i].jt = (uint8_t) offset;
          else
            f->code[i].jf = (uint8_t) offset;
        }
    }
}

/* Builds command_filter for this ABI; the launcher's pid and group are known before the fork.
 * The process groups matter only where signals are not scoped (prlimit takes a pid). */
static void
build_command_filter (long abi, pid_t caller)
{
  Filter *f = &command_filter;
  SignalTargets t = { 0 };
  int checked[N_CALL_KINDS] = { 0 };
  uint32_t native_mask = UINT32_MAX;

  t.pids[t.n_pids++] = getpid ();
  t.pids[t.n_pids++] = caller;
  if (abi < 6)
    {
      t.pids[t.n_pids++] = -getpgrp ();
      t.pids[t.n_pids++] = -getpgid (caller);
      t.n_owners = t.n_pids;
      t.pids[t.n_pids++] = 0;
      t.pids[t.n_pids++] = -1;
    }
#ifdef DSH_SECCOMP_X32_BIT
  native_mask = ~(uint32_t) DSH_SECCOMP_X32_BIT;
#endif

  emit (f, (struct sock_filter) BPF_STMT (BPF_LD | BPF_W | BPF_ABS,
                                          offsetof (struct seccomp_data, arch)));
  jump_if_equal (f, DSH_SECCOMP_NATIVE_ARCH, LABEL_NATIVE);
#ifdef DSH_SECCOMP_COMPAT_ARCH
  jump_if_equal (f, DSH_SECCOMP_COMPAT_ARCH, LABEL_COMPAT);
#endif
  emit_return (f, SECCOMP_RET_ALLOW);
  add_dispatch (f, LABEL_NATIVE, native_mask, native_calls,
                sizeof native_calls / sizeof native_calls[0], abi, checked);
#ifdef DSH_SECCOMP_COMPAT_ARCH
  add_dispatch (f, LABEL_COMPAT, UINT32_MAX, compat_calls,
                sizeof compat_calls / sizeof compat_calls[0], abi, checked);
#endif
  for (int kind = 0; kind < N_CALL_KINDS; kind++)
    if (checked[kind])
      add_checks (f, (CallKind) kind, abi, &t);
  add_shared_return (f, LABEL_ALLOW, SECCOMP_RET_ALLOW);
  add_shared_return (f, LABEL_EPERM, SECCOMP_RET_ERRNO | EPERM);
  add_shared_return (f, LABEL_EACCES, SECCOMP_RET_ERRNO | EACCES);
  add_shared_return (f, LABEL_ENOSYS, SECCOMP_RET_ERRNO | ENOSYS);
  if (!f->too_long)
    resolve_labels (f);
  if (f->too_long)
    fatal ("the command's seccomp filter does not fit", 0);
}

static int
install_command_filter (void)
{
  struct sock_fprog prog = { .len = command_filter.len, .filter = command_filter.code };

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

#ifndef PR_CAP_AMBIENT
#define PR_CAP_AMBIENT 47
#define PR_CAP_AMBIENT_CLEAR_ALL 4
#endif

/* In the child: gives up every capability, as bwrap's profile does. A root caller's command
 * would otherwise keep root's powers beyond the files Landlock governs, and some undo what the
 * roots rely on: with CAP_SYS_TIME it could step the clock back and date a symlink it plants
 * before a grant. The bounding set goes first (that needs CAP_SETPCAP; a caller without it has
 * none to regain, since no_new_privs keeps exec from granting any), then what the child holds. */
static int
drop_capabilities (void)
{
  struct __user_cap_header_struct header = { _LINUX_CAPABILITY_VERSION_3, 0 };
  struct __user_cap_data_struct none[_LINUX_CAPABILITY_U32S_3] = { { 0 } };

  /* Up to the kernel's last capability, which answers EINVAL past it. */
  for (int cap = 0; cap < 64; cap++)
    {
      if (prctl (PR_CAPBSET_DROP, cap, 0, 0, 0) == 0)
        continue;
      if (errno == EINVAL)
        break;
      if (errno != EPERM)
        return errno;
    }
  if (prctl (PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL)
    return errno;
  if (syscall (SYS_capset, &header, none) != 0)
    return errno;
  return 0;
}

/* In the child: confine it (only it — the launcher stays outside the domain it supervises), then
 * run the command. The relayed signals still have the dispositions the launcher was started
 * with (its handlers are installed only once the child has exec'd), so the command gets them
 * as it would have without us. */
static _Noreturn void
confine_and_exec (int ruleset_fd, char **command, const sigset_t *mask)
{
  char what[PATH_MAX + 32];
  int errnum;

  sigprocmask (SIG_SETMASK, mask, NULL);
  if (prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
    child_exit (DSH_LANDLOCK_EXIT_FAILURE, DSH_LANDLOCK_FATAL_PREFIX,
                "prctl(PR_SET_NO_NEW_PRIVS) failed", strerror (errno));
  errnum = drop_capabilities ();
  if (errnum != 0)
    child_exit (DSH_LANDLOCK_EXIT_FAILURE, DSH_LANDLOCK_FATAL_PREFIX,
                "cannot drop the command's capabilities", strerror (errnum));
  errnum = install_command_filter ();
  if (errnum != 0)
    child_exit (DSH_LANDLOCK_EXIT_FAILURE, DSH_LANDLOCK_FATAL_PREFIX,
                "cannot install the command's seccomp filter", strerror (errnum));
  if (syscall (__NR_landlock_restrict_self, ruleset_fd, 0) != 0)
    child_exit (DSH_LANDLOCK_EXIT_FAILURE, DSH_LANDLOCK_FATAL_PREFIX,
                "landlock_restrict_self failed", strerror (errno));
  close (ruleset_fd);
  dsh_execvp (command[0], command);

  /* The confinement is in place and the command itself cannot be run: that is the command's
   * failure (as a shell reports it, 127 or 126), not the runner's, so no "fatal:" here. */
  errnum = errno;
  snprintf (what, sizeof what, "cannot execute '%s'", command[0]);
  child_exit (errnum == ENOENT ? 127 : 126, DSH_LANDLOCK_EXEC_PREFIX, what, strerror (errnum));
}

/* Runs the command, confined, as our child and, once it exits, kills and reaps every process it
 * left behind: a background process must not outlive the call, and with it the policy of the
 * call. Passes the command's exit status on, or dies of the same signal. */
static int
supervise (int ruleset_fd, char **command)
{
  sigset_t forwarded, previous;
  int status = 0;
  pid_t child;

  if (prctl (PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0)
    fatal ("prctl(PR_SET_CHILD_SUBREAPER) failed", errno);
  /* If whoever started us dies, the command and its tree go too. */
  if (prctl (PR_SET_PDEATHSIG, SIGTERM, 0, 0, 0) != 0)
    fatal ("prctl(PR_SET_PDEATHSIG) failed", errno);

  /* A signal that arrived before the command's pid is known would have nowhere to go: held
   * back until it is, then forwarded. */
  dsh_relayed_signal_set (&forwarded);
  sigprocmask (SIG_BLOCK, &forwarded, &previous);

  /* vfork: the child borrows our memory (nothing is copied, and we take no copy-on-write faults
   * afterwards) and we wait until it has exec'd; it only makes system calls before that. */
  child = vfork ();
  if (child < 0)
    fatal ("cannot start the command", errno);
  if (child == 0)
    confine_and_exec (ruleset_fd, command, &previous);
  close (ruleset_fd);

  /* Still blocked: what arrived since is forwarded as soon as they are unblocked below. */
  command_pid = child;
  dsh_catch_relayed_signals (forward_signal);
  /* The parent may have died before the death signal was armed. */
  if (getppid () != original_parent)
    kill (child, SIGKILL);
  sigprocmask (SIG_SETMASK, &previous, NULL);
  while (waitpid (child, &status, 0) < 0)
    {
      if (errno != EINTR)
        fatal ("waitpid failed", errno);
    }
  command_pid = 0;
  reap_leftovers ();
  return dsh_exit_like_child (status);
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

  /* Options come in pairs: "--write" and its path. */
  for (int i = 1; i < argc; i += 2)
    {
      if (strcmp (argv[i], "--") == 0)
        {
          cmd_index = i + 1;
          break;
        }
      if (strcmp (argv[i], "--write") != 0 || i + 1 >= argc || argv[i + 1][0] != '/')
        fatal ("usage: dsh-landlock-exec [--write ABSOLUTE-PATH]... -- ARGV...", 0);
    }
  if (cmd_index < 0 || cmd_index >= argc)
    fatal ("usage: dsh-landlock-exec [--write ABSOLUTE-PATH]... -- ARGV...", 0);

  abi = syscall (__NR_landlock_create_ruleset, NULL, 0, LL_CREATE_RULESET_VERSION);
  if (abi < 1)
    landlock_unavailable (abi < 0 ? errno : EINVAL);

  handled = dsh_landlock_handled_rights (abi);
  ruleset_attr.handled_access_fs = handled;
  /* From ABI 6 the command cannot signal processes outside its domain — above all not this
   * launcher, whose death would otherwise free the command's leftovers. */
  if (abi >= 6)
    ruleset_attr.scoped = LL_SCOPE_SIGNAL;
  ruleset_fd = (int) syscall (__NR_landlock_create_ruleset, &ruleset_attr, sizeof ruleset_attr, 0);
  if (ruleset_fd < 0)
    fatal ("landlock_create_ruleset failed", errno);

  /* Device ioctls come with reading: device policy is out of scope. Most ioctls that modify
   * storage need a descriptor opened for writing, which WRITE_FILE governs; the loop driver's
   * do not, and the command's seccomp filter refuses them on every ABI. */
  read_rights = dsh_landlock_read_rights (handled);
  allow_beneath (ruleset_fd, "/", read_rights);

  write_rights = dsh_landlock_write_rights (handled);
  for (int i = 2; i < cmd_index - 1; i += 2)
    allow_beneath (ruleset_fd, argv[i], write_rights);

  /* Required sinks: the bit buckets a shell writes to and the controlling terminal; writing
   * them changes no file. Only the write right is added; read comes from `/`. */
  for (size_t i = 0; i < sizeof sinks / sizeof sinks[0]; i++)
    allow_beneath (ruleset_fd, sinks[i], handled & LL_FS_WRITE_FILE);
  allow_own_terminals (ruleset_fd, handled & LL_FS_WRITE_FILE);

  original_parent = getppid ();
  build_command_filter (abi, original_parent);
  return supervise (ruleset_fd, &argv[cmd_index]);
}
