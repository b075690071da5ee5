/* dsh-test-landlock-abi — test helper: run a command as if the kernel's Landlock ABI were N, so
 * the ABI < current branches of the module and the launcher are run, not reasoned.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 *   dsh-test-landlock-abi N -- ARGV...
 *
 * The command runs under a seccomp filter that turns the three Landlock calls into user
 * notifications, and this process supervises them: it answers the version query with N, refuses
 * what an ABI-N kernel refuses (rights, rule types, flags and attribute fields it does not know)
 * with that kernel's errno, and lets every other call through to the real kernel, which then
 * enforces exactly the rights the caller asked for. An unhandled REFER, TRUNCATE or IOCTL_DEV
 * right or an unset signal scope behaves on today's kernel as on the kernel that lacked it, so
 * file effects are those of ABI N. The filter is inherited by every descendant, across exec, and
 * this process stays up until the command exits; a descendant still asking afterwards gets
 * ENOSYS. The callers are the tests' own programs, so reading their arguments before letting
 * the call continue is sound here (it would not be against a hostile caller).
 *
 * With a kernel older than N it cannot emulate: it prints a TAP plan that skips (outside CI) or
 * fails (with CI set). Not installed; test use only.
 */
#define _GNU_SOURCE

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dsh-test-seccomp.h"

#ifndef __NR_pidfd_open
#define __NR_pidfd_open 434
#endif

#define LL_CREATE_RULESET_VERSION (1U << 0)
#define LL_RULE_NET_PORT 2
#define NEWEST_EMULATED_ABI 7

static _Noreturn void
die (const char *message, const char *detail)
{
  fprintf (stderr, "dsh-test-landlock-abi: %s%s%s\n", message, detail ? ": " : "",
           detail ? detail : "");
  exit (2);
}

/* The file-system rights an ABI-N kernel knows: 13 in ABI 1, then REFER (2), TRUNCATE (3),
 * IOCTL_DEV (5). */
static uint64_t
fs_rights_of_abi (long abi)
{
  int n_rights = abi >= 5 ? 16 : abi >= 3 ? 15 : abi >= 2 ? 14 : 13;

  return (1ULL << n_rights) - 1;
}

/* How much of struct landlock_ruleset_attr an ABI-N kernel knows: handled_access_fs, then
 * handled_access_net (ABI 4), then scoped (ABI 6). It refuses nonzero bytes beyond (E2BIG). */
static size_t
ruleset_attr_size_of_abi (long abi)
{
  return abi >= 6 ? 24 : abi >= 4 ? 16 : 8;
}

/* 0: let the real kernel decide; otherwise the errno an ABI-N kernel gives; or, for the version
 * query, the answer in *value. */
static int
judge (const struct seccomp_notif *req, long abi, int64_t *value)
{
  const __u64 *args = req->data.args;

  if (req->data.nr == __NR_landlock_create_ruleset)
    {
      uint64_t attr[3] = { 0 };
      size_t size = (size_t) args[1], known = ruleset_attr_size_of_abi (abi);
      uint32_t flags = (uint32_t) args[2];
      struct iovec local, remote;

      if (flags != 0)
        {
          if (flags == LL_CREATE_RULESET_VERSION && args[0] == 0 && size == 0)
            {
              *value = abi;
              return -1;
            }
          return abi < NEWEST_EMULATED_ABI ? EINVAL : 0;
        }
      /* Too small, too large or unreadable: the real kernel's answer is the same. */
      if (args[0] == 0 || size < 8 || size > 4096)
        return 0;
      local.iov_base = attr;
      local.iov_len = size < sizeof attr ? size : sizeof attr;
      remote.iov_base = (void *) (uintptr_t) args[0];
      remote.iov_len = local.iov_len;
      if (process_vm_readv ((pid_t) req->pid, &local, 1, &remote, 1, 0) !=
          (ssize_t) local.iov_len)
        return 0;
      for (size_t i = known / 8; i < local.iov_len / 8; i++)
        if (attr[i] != 0)
          return E2BIG;
      if ((attr[0] & ~fs_rights_of_abi (abi)) != 0)
        return EINVAL;
      return 0;
    }
  if (req->data.nr == __NR_landlock_add_rule)
    return abi < 4 && args[1] == LL_RULE_NET_PORT ? EINVAL : 0;
  if (req->data.nr == __NR_landlock_restrict_self)
    return abi < 7 && (uint32_t) args[1] != 0 ? EINVAL : 0;
  return 0;
}

static void
answer (int listener, long abi, struct seccomp_notif *req, struct seccomp_notif_resp *resp,
        size_t req_size, size_t resp_size)
{
  int64_t value = 0;
  int errnum;

  memset (req, 0, req_size);
  if (ioctl (listener, SECCOMP_IOCTL_NOTIF_RECV, req) != 0)
    {
      if (errno == EINTR || errno == ENOENT)
        return;
      die ("SECCOMP_IOCTL_NOTIF_RECV", strerror (errno));
    }
  errnum = judge (req, abi, &value);

  memset (resp, 0, resp_size);
  resp->id = req->id;
  if (errnum < 0)
    resp->val = value;
  else if (errnum > 0)
    resp->error = -errnum;
  else
    resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
  /* ENOENT: the caller died (or was interrupted) meanwhile. */
  if (ioctl (listener, SECCOMP_IOCTL_NOTIF_SEND, resp) != 0 && errno != ENOENT)
    die ("SECCOMP_IOCTL_NOTIF_SEND", strerror (errno));
}

static int
install_filter (void)
{
  struct sock_filter code[] = {
    NATIVE_ARCH_PROLOGUE,
    BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, __NR_landlock_create_ruleset, 3, 0),
    BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, __NR_landlock_add_rule, 2, 0),
    BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, __NR_landlock_restrict_self, 1, 0),
    BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
  };
  struct sock_fprog prog = { .len = sizeof code / sizeof code[0], .filter = code };

  if (prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
    die ("prctl(PR_SET_NO_NEW_PRIVS)", strerror (errno));
  return (int) syscall (SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER,
                        &prog);
}

static void
send_fd (int sock, int fd)
{
  char buf[CMSG_SPACE (sizeof fd)] = { 0 };
  char byte = 0;
  struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
  struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = buf,
                        .msg_controllen = sizeof buf };
  struct cmsghdr *cmsg = CMSG_FIRSTHDR (&msg);

  cmsg->cmsg_level = SOL_SOCKET;
  cmsg->cmsg_type = SCM_RIGHTS;
  cmsg->cmsg_len = CMSG_LEN (sizeof fd);
  memcpy (CMSG_DATA (cmsg), &fd, sizeof fd);
  if (sendmsg (sock, &msg, 0) != 1)
    die ("cannot hand over the listener", strerror (errno));
}

static int
receive_fd (int sock)
{
  char buf[CMSG_SPACE (sizeof (int))] = { 0 };
  char byte;
  struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
  struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = buf,
                        .msg_controllen = sizeof buf };
  struct cmsghdr *cmsg;
  int fd;

  if (recvmsg (sock, &msg, MSG_CMSG_CLOEXEC) != 1)
    return -1;
  cmsg = CMSG_FIRSTHDR (&msg);
  if (cmsg == NULL || cmsg->cmsg_type != SCM_RIGHTS)
    return -1;
  memcpy (&fd, CMSG_DATA (cmsg), sizeof fd);
  return fd;
}

/* The kernel cannot be made to look older than N when it is older already. */
static _Noreturn void
cannot_emulate (long abi, long real_abi)
{
  const char *ci = getenv ("CI");

  if (ci != NULL && ci[0] != '\0')
    {
      printf ("1..1\nnot ok 1 - required in CI: emulating Landlock ABI %ld needs a kernel with "
              "at least that ABI (this one: %ld)\n", abi, real_abi);
      exit (1);
    }
  printf ("1..0 # SKIP emulating Landlock ABI %ld needs a kernel with at least that ABI "
          "(this one: %ld)\n", abi, real_abi);
  exit (0);
}

int
main (int argc, char **argv)
{
  struct seccomp_notif_sizes sizes;
  struct seccomp_notif *req;
  struct seccomp_notif_resp *resp;
  char *end = NULL;
  long abi, real_abi;
  int sv[2], listener, child_fd, status;
  pid_t child;

  if (argc < 4 || strcmp (argv[2], "--") != 0)
    die ("usage: dsh-test-landlock-abi N -- ARGV...", NULL);
  abi = strtol (argv[1], &end, 10);
  if (*end != '\0' || abi < 1 || abi > NEWEST_EMULATED_ABI)
    die ("N must be a Landlock ABI from 1 to 7", argv[1]);
  real_abi = syscall (__NR_landlock_create_ruleset, NULL, 0, LL_CREATE_RULESET_VERSION);
  if (real_abi < abi)
    cannot_emulate (abi, real_abi);

  if (syscall (SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes) != 0)
    die ("SECCOMP_GET_NOTIF_SIZES", strerror (errno));
  if (socketpair (AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
    die ("socketpair", strerror (errno));

  child = fork ();
  if (child < 0)
    die ("fork", strerror (errno));
  if (child == 0)
    {
      close (sv[0]);
      listener = install_filter ();
      if (listener < 0)
        die ("cannot install the seccomp filter", strerror (errno));
      send_fd (sv[1], listener);
      close (listener);
      close (sv[1]);
      execvp (argv[3], &argv[3]);
      die ("cannot execute", strerror (errno));
    }

  close (sv[1]);
  listener = receive_fd (sv[0]);
  close (sv[0]);
  if (listener < 0)
    {
      waitpid (child, NULL, 0);
      die ("the command never handed over its seccomp listener", NULL);
    }
  child_fd = (int) syscall (__NR_pidfd_open, child, 0);
  if (child_fd < 0)
    die ("pidfd_open", strerror (errno));

  req = calloc (1, sizes.seccomp_notif);
  resp = calloc (1, sizes.seccomp_notif_resp);
  if (req == NULL || resp == NULL)
    die ("out of memory", NULL);

  for (;;)
    {
      struct pollfd fds[2] = { { .fd = listener, .events = POLLIN },
                               { .fd = child_fd, .events = POLLIN } };

      if (poll (fds, 2, -1) < 0)
        {
          if (errno == EINTR)
            continue;
          die ("poll", strerror (errno));
        }
      if (fds[0].revents & POLLIN)
        answer (listener, abi, req, resp, sizes.seccomp_notif, sizes.seccomp_notif_resp);
      if (fds[1].revents & POLLIN)
        break;
    }

  while (waitpid (child, &status, 0) < 0)
    if (errno != EINTR)
      die ("waitpid", strerror (errno));
  if (WIFSIGNALED (status))
    {
      struct rlimit no_core = { 0, 0 };

      setrlimit (RLIMIT_CORE, &no_core);
      signal (WTERMSIG (status), SIG_DFL);
      raise (WTERMSIG (status));
      return 128 + WTERMSIG (status);
    }
  return WEXITSTATUS (status);
}
