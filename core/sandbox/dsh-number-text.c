/* dsh-number-text.c — integers appended to a GString as printf would spell them, without
 * printf.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-number-text-private.h"

#include <string.h>

/* The most digits any 64-bit value takes in base 8 (22) or 10 (20). */
#define MAX_DIGITS 22

/* The decimal digits of value, written backwards ending at end; returns where they start. */
static char *
decimal_digits (guint64 value, char *end)
{
  char *p = end;

  do
    {
      *--p = (char) ('0' + value % 10);
      value /= 10;
    }
  while (value != 0);
  return p;
}

static char *
octal_digits (guint64 value, char *end)
{
  char *p = end;

  do
    {
      *--p = (char) ('0' + (value & 7));
      value >>= 3;
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

/* A sign when negative, zeros, then the digits from start to end: the text grows once. */
static void
append_digits (GString *text, gboolean negative, gsize zeros, const char *start, const char *end)
{
  gsize digits = (gsize) (end - start);
  gsize at = text->len;
  char *p;

  g_string_set_size (text, at + (negative ? 1 : 0) + zeros + digits);
  p = text->str + at;
  if (negative)
    *p++ = '-';
  memset (p, '0', zeros);
  memcpy (p + zeros, start, digits);
}

void
dsh_number_text_append_unsigned (GString *text, guint64 value)
{
  char buf[MAX_DIGITS];

  append_digits (text, FALSE, 0, decimal_digits (value, buf + sizeof buf), buf + sizeof buf);
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

  append_digits (text, FALSE, 0, octal_digits (value, buf + sizeof buf), buf + sizeof buf);
}

void
dsh_number_text_append_padded (GString *text, gint64 value, guint width)
{
  char buf[MAX_DIGITS];
  char *end = buf + sizeof buf;
  char *start = decimal_digits (magnitude (value), end);
  /* As printf counts it: the sign is part of the width. */
  gsize len = (gsize) (end - start) + (value < 0 ? 1 : 0);

  append_digits (text, value < 0, width > len ? width - len : 0, start, end);
}
