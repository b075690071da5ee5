/* dsh-test-seccomp.h — what the test helpers that filter system calls share, in plain C: the
 * Landlock call numbers older kernel headers lack, this architecture's audit arch, and the start
 * of a filter that leaves other architectures' calls alone.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <stddef.h>
#include <sys/syscall.h>

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

/* The three calls came together (Linux 5.13), numbered alike on every
 * architecture below. */
#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#define __NR_landlock_add_rule 445
#define __NR_landlock_restrict_self 446
#endif

#if defined(__x86_64__)
#define NATIVE_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define NATIVE_ARCH AUDIT_ARCH_AARCH64
#elif defined(__riscv) && __riscv_xlen == 64
#define NATIVE_ARCH AUDIT_ARCH_RISCV64
#else
#error "dsh-test-seccomp.h: add this architecture's audit arch"
#endif

/* The first instructions of every filter here: a call of another architecture's table is
 * allowed, and the call number is loaded for what follows. */
#define NATIVE_ARCH_PROLOGUE \
  BPF_STMT (BPF_LD | BPF_W | BPF_ABS, offsetof (struct seccomp_data, arch)), \
  BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, NATIVE_ARCH, 1, 0), \
  BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_ALLOW), \
  BPF_STMT (BPF_LD | BPF_W | BPF_ABS, offsetof (struct seccomp_data, nr))
