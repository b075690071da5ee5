/* dsh-acl-compiler.h — what the planner and the runner ask of the compiler: format checks for
 * their printf-like helpers, with GCC and Clang (mingw-w64 included), and nothing elsewhere.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if defined(__MINGW32__)
/* mingw-w64's "printf" means the Microsoft runtime's dialect; the helpers are written in C99's
 * (%zu), which mingw-w64 and the runtimes Windows 10 ships understand. */
#define PRINTF_LIKE(format_index, first_arg) \
  __attribute__ ((format (gnu_printf, format_index, first_arg)))
#elif defined(__GNUC__) || defined(__clang__)
#define PRINTF_LIKE(format_index, first_arg) \
  __attribute__ ((format (printf, format_index, first_arg)))
#else
#define PRINTF_LIKE(format_index, first_arg)
#endif
