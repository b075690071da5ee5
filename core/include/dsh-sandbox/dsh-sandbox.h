/* dsh-sandbox.h — the umbrella header of libdsh-sandbox-1.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "dsh-mode.h"
#include "dsh-error.h"
#include "dsh-policy.h"
#include "dsh-roots.h"
#include "dsh-texts.h"
#include "dsh-confined-argv.h"
#include "dsh-sandbox-provider.h"
#include "dsh-local-provider.h"
#include "dsh-classify.h"
