/* dsh-approver-tty-text.h — what the terminal prompt says and how it reads a typed line, apart
 * from the terminal itself so that both can be tested and fuzzed.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <dsh-sandbox.h>

G_BEGIN_DECLS

/* A line longer than this is not a y/n answer; keep reading, but as garbage. */
#define DSH_TTY_LINE_LIMIT 256

/* Written to the terminal before each question: the display state a command that ran before
 * on this terminal could have left (autowrap off, a scrolling region, margins, origin or
 * insert mode, another character set, hidden or coloured text) put back to where the
 * question reads as it is written, and what lies below the cursor (a question drawn there
 * ahead of time) erased, so that the real question is the last thing on the screen. The
 * scrolling region's reset moves the cursor home: it is saved around it (DECSC/DECRC), and
 * what DECRC restores besides the position is reset after it. */
#define DSH_TTY_PROMPT_RESET \
  "\0337\033[r\0338\033[0m\033(B\017\033[4l\033[?6l\033[?69l\033[?7h\033[?25h\033[J"

/* The question shown for request: every text from the request is escaped so that no control
 * character, escape sequence or bidirectional override reaches the terminal. */
char     *dsh_tty_format_prompt    (DshApprovalRequest *request);

/* TRUE with *out_outcome when the typed line (length bytes; overlong: more was typed than
 * DSH_TTY_LINE_LIMIT bytes) settles the question: y/yes allows once, n/no rejects, in any
 * letter case with white space around; anything else (a NUL too) is neither and asks again. */
gboolean  dsh_tty_answer_from_line (const char         *line,
                                    gsize               length,
                                    gboolean            overlong,
                                    DshApprovalOutcome *out_outcome);

G_END_DECLS
