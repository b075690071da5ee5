/* dsh-api.h — DSH_API marks what libdsh-sandbox-1 exports. The library is built with hidden
 * visibility, so a declaration without it stays inside the library, whatever header holds it.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if defined(_WIN32) || defined(__CYGWIN__)
#  ifdef DSH_SANDBOX_COMPILATION
#    define DSH_API __declspec(dllexport) extern
#  else
#    define DSH_API extern
#  endif
#else
#  define DSH_API __attribute__((visibility ("default"))) extern
#endif
