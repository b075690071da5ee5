/* dsh-sandbox.h — the umbrella header of libdsh-sandbox-1.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "dsh-api.h"
#include "dsh-mode.h"
#include "dsh-error.h"
#include "dsh-policy.h"
#include "dsh-roots.h"
#include "dsh-texts.h"
#include "dsh-confined-argv.h"
#include "dsh-sandbox-provider.h"
#include "dsh-local-provider.h"
#include "dsh-classify.h"
#include "dsh-run.h"
#include "dsh-approval-vocabulary.h"
#include "dsh-session-log.h"
#include "dsh-policy-service.h"
#include "dsh-permission-presets.h"
#include "dsh-fs-fence.h"
#include "dsh-approval-request.h"
#include "dsh-approval-answerer.h"
#include "dsh-approval-service.h"
#include "dsh-command-answerer.h"
#include "dsh-escalation.h"
#include "dsh-execution.h"
#include "dsh-bash-description.h"
