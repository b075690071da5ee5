/* dsh-acl-cmdline.h — Windows command lines: a process receives one string, and the C runtime
 * (like CommandLineToArgvW) splits it back into argv by the rules of quotes and backslashes. The
 * encoder writes what that split turns back into exactly the argv given; the decoder is that
 * split, for the runner's own command line and for tests.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <stddef.h>

/* The longest command line CreateProcess takes, in UTF-16 units without the NUL. */
#define DSH_ACL_CMDLINE_MAX 32766

/* A malloc()ed command line for argv (NULL-terminated, UTF-8, at least the program), or NULL
 * with *error set to a static message (a program name a command line cannot carry, no memory). */
char   *dsh_acl_cmdline_encode   (const char *const *argv,
                                  const char       **error);

/* The argv a C runtime makes of cmdline: one malloc() block holding the NULL-terminated array
 * and its strings, freed with free(); NULL when out of memory. An empty line gives no items. */
char  **dsh_acl_cmdline_decode   (const char        *cmdline);

/* The number of UTF-16 units text takes (text is valid UTF-8). */
size_t  dsh_acl_utf16_length     (const char        *text);
