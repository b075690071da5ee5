/* dsh-number-text-private.h — integers appended to a GString as printf would spell them, without
 * printf: the probe cache's key is rebuilt on every call, and formatting its few dozen numbers
 * through vasprintf cost more than the stat calls behind them.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* value in decimal: what "%" G_GUINT64_FORMAT (and so %u and %lu) makes of it. */
void dsh_number_text_append_unsigned (GString *text,
                                      guint64  value);

/* value in decimal with a '-' when negative: what "%" G_GINT64_FORMAT (%d, %ld) makes of it. */
void dsh_number_text_append_signed   (GString *text,
                                      gint64   value);

/* value in octal, no prefix: what "%" G_GINT64_MODIFIER "o" (and %o) makes of it. */
void dsh_number_text_append_octal    (GString *text,
                                      guint64  value);

/* value in decimal, zero-padded to at least width characters counting the sign: what
 * "%0*" G_GINT64_FORMAT makes of it with that width. */
void dsh_number_text_append_padded   (GString *text,
                                      gint64   value,
                                      guint    width);

G_END_DECLS
