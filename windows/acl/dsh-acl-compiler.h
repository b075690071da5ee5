/* dsh-acl-compiler.h — what the planner and the runner ask of the compiler: format checks for
 * their printf-like helpers, with GCC and Clang (mingw-w64 included), and nothing elsewhere.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if defined(__GNUC__) || defined(__clang__)
#define PRINTF_LIKE(format_index, first_arg) \
  __attribute__ ((format (printf, format_index, first_arg)))
#else
#define PRINTF_LIKE(format_index, first_arg)
#endif
