/* dsh-number-text.c — integers appended to a GString as printf would spell them, without
 * printf.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-number-text-private.h"

/* The most digits any 64-bit value takes in base 8 (22) or 10 (20). */
#define MAX_DIGITS 22

/* The digits of value in base, written backwards from the end of buf; returns where they
 * start. */
static char *
digits_of (guint64 value, guint base, char *end)
{
  char *p = end;

  do
    {
      *--p = (char) ('0' + value % base);
      value /= base;
    }
  while (value != 0);
  return p;
}

/* The magnitude of value, even for G_MININT64 (whose negation overflows a gint64). */
static guint64
magnitude (gint64 value)
{
  return value < 0 ? (guint64) 0 - (guint64) value : (guint64) value;
}

void
dsh_number_text_append_unsigned (GString *text, guint64 value)
{
  char buf[MAX_DIGITS];
  char *start = digits_of (value, 10, buf + sizeof buf);

  g_string_append_len (text, start, buf + sizeof buf - start);
}

void
dsh_number_text_append_signed (GString *text, gint64 value)
{
  dsh_number_text_append_padded (text, value, 0);
}

void
dsh_number_text_append_octal (GString *text, guint64 value)
{
  char buf[MAX_DIGITS];
  char *start = digits_of (value, 8, buf + sizeof buf);

  g_string_append_len (text, start, buf + sizeof buf - start);
}

void
dsh_number_text_append_padded (GString *text, gint64 value, guint width)
{
  char buf[MAX_DIGITS];
  char *start = digits_of (magnitude (value), 10, buf + sizeof buf);
  gsize len = (gsize) (buf + sizeof buf - start) + (value < 0 ? 1 : 0);

  /* As printf does: the sign first, then the zeros, then the digits. */
  if (value < 0)
    g_string_append_c (text, '-');
  for (; len < width; len++)
    g_string_append_c (text, '0');
  g_string_append_len (text, start, buf + sizeof buf - start);
}
