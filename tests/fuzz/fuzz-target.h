/* fuzz-target.h — the libFuzzer entry point every fuzz target defines; fuzz-driver.c runs it
 * over a corpus when the target is not built with -fsanitize=fuzzer.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);
