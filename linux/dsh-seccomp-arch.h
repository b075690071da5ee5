/* dsh-seccomp-arch.h — what both launchers' seccomp filters know of the architecture they run
 * on: its audit arch, the 32-bit one its kernel also runs (where there is one) and that table's
 * ioctl, x32's bit and ioctl on x86-64, and where a system call's argument lies.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <linux/audit.h>
#include <linux/seccomp.h>
#include <stddef.h>

#if defined(__x86_64__)
#define DSH_SECCOMP_NATIVE_ARCH AUDIT_ARCH_X86_64
#define DSH_SECCOMP_COMPAT_ARCH AUDIT_ARCH_I386
#define DSH_SECCOMP_COMPAT_IOCTL 54
/* x32 calls come under the native arch with this bit set; x32's ioctl has a number of its own. */
#define DSH_SECCOMP_X32_BIT 0x40000000u
#define DSH_SECCOMP_X32_IOCTL 514
#elif defined(__aarch64__)
#define DSH_SECCOMP_NATIVE_ARCH AUDIT_ARCH_AARCH64
#define DSH_SECCOMP_COMPAT_ARCH AUDIT_ARCH_ARM
#define DSH_SECCOMP_COMPAT_IOCTL 54
#elif defined(__riscv) && __riscv_xlen == 64
#define DSH_SECCOMP_NATIVE_ARCH AUDIT_ARCH_RISCV64
#else
#error "dsh-seccomp-arch.h: add this architecture's audit arch and compat ioctl number"
#endif

/* The low and the high 32 bits of argument n in struct seccomp_data. */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define DSH_SECCOMP_ARG_LOW(n) offsetof (struct seccomp_data, args[n])
#define DSH_SECCOMP_ARG_HIGH(n) (offsetof (struct seccomp_data, args[n]) + 4)
#else
#define DSH_SECCOMP_ARG_LOW(n) (offsetof (struct seccomp_data, args[n]) + 4)
#define DSH_SECCOMP_ARG_HIGH(n) offsetof (struct seccomp_data, args[n])
#endif
