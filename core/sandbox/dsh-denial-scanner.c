/* dsh-denial-scanner.c — finds, in a flood of stderr, the first line that proves a denial: a
 * prefilter on two bytes of each denial signature, 64 positions at a time, points at the few
 * places worth a look; the classifier's own rule then judges the whole line there.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#define _GNU_SOURCE

#include "dsh-denial-scanner-private.h"

#include <string.h>

/* A longer line is not kept whole, so it is not judged: scanning errs towards no denial. */
#define LINE_LIMIT (64 * 1024)

/* Each signature is looked for by its first byte and its byte at the shared anchor: SSE2
 * where the compiler has it (every x86-64), 32 bytes at a time with AVX2 where the processor
 * has that too (a flood's scan was most of what the relay spent on it), else GCC's and
 * Clang's portable vectors. */
#if defined(__SSE2__) && !defined(DSH_DENIAL_SCANNER_PORTABLE)
#include <emmintrin.h>
typedef __m128i Bytes16;
#if defined(__x86_64__) && defined(__GNUC__) && !defined(DSH_DENIAL_SCANNER_NO_AVX2)
#include <immintrin.h>
#define HAVE_AVX2_PATH 1
/* More signatures than this take the SSE2 path: their bytes are kept on the stack. */
#define AVX2_MAX_NEEDLES 16
/* From this many on, up to 8 (a bit each), the bytes are looked up by their nibbles instead of
 * compared with each signature's: a cost that no longer grows with their number. */
#define NIBBLE_MIN_NEEDLES 3
#define NIBBLE_MAX_NEEDLES 8
#include <cpuid.h>
#endif
#else
typedef guint8 Bytes16 __attribute__ ((vector_size (16)));
typedef gint8 Mask16 __attribute__ ((vector_size (16)));
#endif

typedef struct {
  const char *text;
  gsize len;
  Bytes16 first; /* its first byte, folded, in every lane */
  Bytes16 last;  /* its byte at the scanner's second anchor, folded, in every lane */
} Needle;

struct _DshDenialScanner {
  const DshConfinement *confinement;
  Needle *needles;
  guint n_needles;
  gsize max_len;
  /* Where the second byte compared lies, the same for every signature (so each block is
   * loaded once): the last byte of the shortest. */
  gsize anchor;
  gboolean use_avx2;
  /* Bit k of first_low[b & 15] & first_high[b >> 4]: byte b (folded) is signature k's first;
   * the same for its byte at the anchor in anchor_low and anchor_high. */
  gboolean use_nibbles;
  guint8 first_low[16];
  guint8 first_high[16];
  guint8 anchor_low[16];
  guint8 anchor_high[16];
  GString *carry;           /* the line the last feed left unfinished */
  gboolean carry_too_long;  /* ... which is past LINE_LIMIT: it is skipped to its end */
  GString *evidence;
};

/* Setting bit 5 folds ASCII case; other bytes may collide, which only costs a closer look. */
#define FOLD 0x20

#if defined(__SSE2__) && !defined(DSH_DENIAL_SCANNER_PORTABLE)
static Bytes16
splat (guint8 byte)
{
  return _mm_set1_epi8 ((char) byte);
}

/* Bit i: some signature's first byte is at p + i and its last where it would end. */
static guint64
candidates_at (const DshDenialScanner *self, const char *p)
{
  const __m128i fold = _mm_set1_epi8 (FOLD);
  guint64 mask = 0;

  for (guint u = 0; u < 4; u++)
    {
      const char *q = p + 16 * u;
      __m128i block = _mm_or_si128 (_mm_loadu_si128 ((const __m128i *) q), fold);
      __m128i tail = _mm_or_si128 (_mm_loadu_si128 ((const __m128i *) (q + self->anchor)), fold);
      __m128i hits = _mm_setzero_si128 ();

      for (guint k = 0; k < self->n_needles; k++)
        {
          const Needle *needle = &self->needles[k];

          hits = _mm_or_si128 (hits, _mm_and_si128 (_mm_cmpeq_epi8 (block, needle->first),
                                                    _mm_cmpeq_epi8 (tail, needle->last)));
        }
      mask |= (guint64) (guint) _mm_movemask_epi8 (hits) << (16 * u);
    }
  return mask;
}
#else
static Bytes16
splat (guint8 byte)
{
  Bytes16 v;

  memset (&v, byte, sizeof (v));
  return v;
}

static Bytes16
load16 (const char *p)
{
  Bytes16 v;

  memcpy (&v, p, sizeof (v));
  return v;
}

static guint64
candidates_at (const DshDenialScanner *self, const char *p)
{
  const Bytes16 fold = splat (FOLD);
  guint64 mask = 0;

  for (guint u = 0; u < 4; u++)
    {
      const char *q = p + 16 * u;
      Bytes16 block = load16 (q) | fold;
      Bytes16 tail = load16 (q + self->anchor) | fold;
      Mask16 hits = { 0 };
      guint64 halves[2];
      gint8 lanes[16];

      for (guint k = 0; k < self->n_needles; k++)
        {
          const Needle *needle = &self->needles[k];

          hits |= (Mask16) ((block == needle->first) & (tail == needle->last));
        }
      memcpy (halves, &hits, sizeof (halves));
      if ((halves[0] | halves[1]) == 0)
        continue;
      memcpy (lanes, &hits, sizeof (lanes));
      for (guint j = 0; j < 16; j++)
        if (lanes[j] != 0)
          mask |= G_GUINT64_CONSTANT (1) << (16 * u + j);
    }
  return mask;
}
#endif

#ifdef HAVE_AVX2_PATH
/* Whether the processor has AVX2 and the system saves its registers: asked once, when the first
 * scanner is made. libgcc's __builtin_cpu_supports() asks in a constructor instead, which every
 * start of the front would pay (about ten cpuid instructions, each a trap to the hypervisor on a
 * virtual machine) for a scan most calls never run. */
static gboolean
processor_has_avx2 (void)
{
  static gsize answer; /* 0 before the first question, then 1 (no) or 2 (yes) */

  if (g_once_init_enter (&answer))
    {
      unsigned int eax, ebx, ecx, edx;
      gboolean yes = FALSE;

      if (__get_cpuid (1, &eax, &ebx, &ecx, &edx) && (ecx & bit_OSXSAVE) && (ecx & bit_AVX))
        {
          unsigned int xcr0_low, xcr0_high;

          /* XCR0: the SSE (bit 1) and AVX (bit 2) register state is saved across switches. */
          __asm__ ("xgetbv" : "=a"(xcr0_low), "=d"(xcr0_high) : "c"(0));
          (void) xcr0_high;
          yes = (xcr0_low & 6) == 6 && __get_cpuid_count (7, 0, &eax, &ebx, &ecx, &edx) &&
                (ebx & bit_AVX2);
        }
      g_once_init_leave (&answer, yes ? 2 : 1);
    }
  return answer == 2;
}
#endif

DshDenialScanner *
dsh_denial_scanner_new (const DshConfinement *confinement)
{
  DshDenialScanner *self = g_new0 (DshDenialScanner, 1);
  guint n = confinement->denial_signatures != NULL
              ? g_strv_length (confinement->denial_signatures)
              : 0;

  self->confinement = confinement;
  self->needles = g_new0 (Needle, MAX (n, 1));
  self->anchor = G_MAXSIZE;
  for (guint i = 0; i < n; i++)
    {
      gsize len = strlen (confinement->denial_signatures[i]);

      if (len > 0)
        self->anchor = MIN (self->anchor, len - 1);
    }
  for (guint i = 0; i < n; i++)
    {
      const char *text = confinement->denial_signatures[i];
      gsize len = strlen (text);
      Needle *needle = &self->needles[self->n_needles];

      /* An empty signature matches nothing (as in the classifier). */
      if (len == 0)
        continue;
      needle->text = text;
      needle->len = len;
      needle->first = splat ((guint8) text[0] | FOLD);
      needle->last = splat ((guint8) text[self->anchor] | FOLD);
      self->max_len = MAX (self->max_len, len);
      self->n_needles++;
    }
#ifdef HAVE_AVX2_PATH
  self->use_avx2 = self->n_needles <= AVX2_MAX_NEEDLES && processor_has_avx2 ();
  self->use_nibbles = self->use_avx2 && self->n_needles >= NIBBLE_MIN_NEEDLES &&
                      self->n_needles <= NIBBLE_MAX_NEEDLES;
  for (guint k = 0; self->use_nibbles && k < self->n_needles; k++)
    {
      guint8 first = (guint8) self->needles[k].text[0] | FOLD;
      guint8 at_anchor = (guint8) self->needles[k].text[self->anchor] | FOLD;

      self->first_low[first & 15] |= (guint8) (1u << k);
      self->first_high[first >> 4] |= (guint8) (1u << k);
      self->anchor_low[at_anchor & 15] |= (guint8) (1u << k);
      self->anchor_high[at_anchor >> 4] |= (guint8) (1u << k);
    }
#endif
  self->carry = g_string_new (NULL);
  self->evidence = g_string_new (NULL);
  return self;
}

void
dsh_denial_scanner_free (DshDenialScanner *self)
{
  if (self == NULL)
    return;
  g_free (self->needles);
  g_string_free (self->carry, TRUE);
  g_string_free (self->evidence, TRUE);
  g_free (self);
}

const char *
dsh_denial_scanner_get_evidence (const DshDenialScanner *self, gsize *len)
{
  *len = self->evidence->len;
  return self->evidence->len > 0 ? self->evidence->str : NULL;
}

static gboolean
needle_at (const Needle *needle, const char *p, const char *end)
{
  return (gsize) (end - p) >= needle->len && ((guint8) *p | FOLD) == ((guint8) *needle->text | FOLD) &&
         g_ascii_strncasecmp (p, needle->text, needle->len) == 0;
}

static gboolean
any_needle_at (const DshDenialScanner *self, const char *p, const char *end)
{
  for (guint k = 0; k < self->n_needles; k++)
    {
      if (needle_at (&self->needles[k], p, end))
        return TRUE;
    }
  return FALSE;
}

/* Of the 64 positions from p that mask marks, the first where a signature starts, or NULL. */
static const char *
first_signature_marked (const DshDenialScanner *self, const char *p, guint64 mask,
                        const char *end)
{
  while (mask != 0)
    {
      guint j = (guint) __builtin_ctzll (mask);

      if (any_needle_at (self, p + j, end))
        return p + j;
      mask &= mask - 1;
    }
  return NULL;
}

/* Whether the 64-byte block at p, with its loads at the anchor, lies inside [p, end). */
static gboolean
block_fits (const DshDenialScanner *self, const char *p, const char *end)
{
  return (gsize) (end - p) >= 64 + self->max_len - 1;
}

/* A signature in the whole 64-byte blocks from *p, or NULL with *p where they end. */
static const char *
scan_blocks (const DshDenialScanner *self, const char **p, const char *end)
{
  for (; block_fits (self, *p, end); *p += 64)
    {
      guint64 mask = candidates_at (self, *p);
      const char *hit;

      if (mask != 0 && (hit = first_signature_marked (self, *p, mask, end)) != NULL)
        return hit;
    }
  return NULL;
}

#ifdef HAVE_AVX2_PATH
/* The signatures' bytes as AVX2 compares them, made once per scan. */
typedef struct {
  /* Each signature's first and anchor bytes in all 32 lanes. */
  __m256i first[AVX2_MAX_NEEDLES];
  __m256i last[AVX2_MAX_NEEDLES];
  /* With nibbles: the scanner's four tables, in both halves. */
  __m256i first_low, first_high, anchor_low, anchor_high;
} Avx2Needles;

__attribute__ ((target ("avx2"))) static __m256i
nibble_table (const guint8 table[16])
{
  return _mm256_broadcastsi128_si256 (_mm_loadu_si128 ((const __m128i *) table));
}

/* Bit k in each lane: the byte there is the one of signature k that low and high describe. */
__attribute__ ((target ("avx2"))) static inline __m256i
nibble_members (__m256i bytes, __m256i low, __m256i high)
{
  const __m256i low4 = _mm256_set1_epi8 (0x0f);
  __m256i by_low = _mm256_shuffle_epi8 (low, _mm256_and_si256 (bytes, low4));
  __m256i by_high = _mm256_shuffle_epi8 (high, _mm256_and_si256 (_mm256_srli_epi16 (bytes, 4),
                                                                 low4));

  return _mm256_and_si256 (by_low, by_high);
}

/* Bit i: a signature's first byte is at q + i and its anchor byte where it would be. By
 * nibbles, a lane is a candidate when one signature's bit survives both lookups; otherwise
 * each signature is compared in turn. */
__attribute__ ((target ("avx2"), always_inline)) static inline guint32
candidates_in_32 (const DshDenialScanner *self, const Avx2Needles *v, const char *q,
                  gboolean nibbles)
{
  const __m256i fold = _mm256_set1_epi8 (FOLD);
  __m256i block = _mm256_or_si256 (_mm256_loadu_si256 ((const __m256i *) q), fold);
  __m256i tail = _mm256_or_si256 (_mm256_loadu_si256 ((const __m256i *) (q + self->anchor)),
                                  fold);
  __m256i hits = _mm256_setzero_si256 ();

  if (nibbles)
    {
      __m256i both = _mm256_and_si256 (nibble_members (block, v->first_low, v->first_high),
                                       nibble_members (tail, v->anchor_low, v->anchor_high));

      return ~(guint32) _mm256_movemask_epi8 (_mm256_cmpeq_epi8 (both, hits));
    }
  for (guint k = 0; k < self->n_needles; k++)
    hits = _mm256_or_si256 (hits, _mm256_and_si256 (_mm256_cmpeq_epi8 (block, v->first[k]),
                                                    _mm256_cmpeq_epi8 (tail, v->last[k])));
  return (guint32) _mm256_movemask_epi8 (hits);
}

/* The block loop, made once for each way of finding candidates (nibbles a constant). */
__attribute__ ((target ("avx2"), always_inline)) static inline const char *
scan_blocks_avx2_by (const DshDenialScanner *self, const Avx2Needles *v, const char **p,
                     const char *end, gboolean nibbles)
{
  for (; block_fits (self, *p, end); *p += 64)
    {
      guint64 mask = candidates_in_32 (self, v, *p, nibbles) |
                     (guint64) candidates_in_32 (self, v, *p + 32, nibbles) << 32;
      const char *hit;

      if (mask != 0 && (hit = first_signature_marked (self, *p, mask, end)) != NULL)
        return hit;
    }
  return NULL;
}

/* scan_blocks() 32 bytes per instruction. */
__attribute__ ((target ("avx2"))) static const char *
scan_blocks_avx2 (const DshDenialScanner *self, const char **p, const char *end)
{
  Avx2Needles v;

  if (self->use_nibbles)
    {
      v.first_low = nibble_table (self->first_low);
      v.first_high = nibble_table (self->first_high);
      v.anchor_low = nibble_table (self->anchor_low);
      v.anchor_high = nibble_table (self->anchor_high);
    }
  else
    for (guint k = 0; k < self->n_needles; k++)
      {
        v.first[k] = _mm256_broadcastsi128_si256 (self->needles[k].first);
        v.last[k] = _mm256_broadcastsi128_si256 (self->needles[k].last);
      }
  return self->use_nibbles ? scan_blocks_avx2_by (self, &v, p, end, TRUE)
                           : scan_blocks_avx2_by (self, &v, p, end, FALSE);
}
#endif

const char *
dsh_denial_scanner_get_method (const DshDenialScanner *self)
{
  if (self->use_nibbles)
    return "avx2-nibbles";
  if (self->use_avx2)
    return "avx2";
#if defined(__SSE2__) && !defined(DSH_DENIAL_SCANNER_PORTABLE)
  return "sse2";
#else
  return "portable";
#endif
}

/* The first place in [p, end) where a signature starts (case-insensitively), or NULL. */
static const char *
find_signature (const DshDenialScanner *self, const char *p, const char *end)
{
  const char *hit;

  if (self->n_needles == 0)
    return NULL;
#ifdef HAVE_AVX2_PATH
  if (self->use_avx2)
    hit = scan_blocks_avx2 (self, &p, end);
  else
#endif
    hit = scan_blocks (self, &p, end);
  if (hit != NULL)
    return hit;
  for (; p < end; p++)
    {
      if (any_needle_at (self, p, end))
        return p;
    }
  return NULL;
}

static void
judge_line (DshDenialScanner *self, const char *line, gsize len)
{
  if (len <= LINE_LIMIT && dsh_confinement_is_denial_evidence (self->confinement, line, len))
    {
      g_string_append_len (self->evidence, line, (gssize) len);
      g_string_append_c (self->evidence, '\n');
    }
}

/* Whole lines: [p, end) ends at the end of a line. */
static void
scan_lines (DshDenialScanner *self, const char *p, const char *end)
{
  while (p < end && self->evidence->len == 0)
    {
      const char *hit = find_signature (self, p, end);
      const char *start;
      const char *stop;

      if (hit == NULL)
        return;
      for (start = hit; start > p && start[-1] != '\n'; start--)
        ;
      stop = memchr (hit, '\n', (gsize) (end - hit));
      if (stop == NULL)
        stop = end;
      judge_line (self, start, (gsize) (stop - start));
      p = stop + 1;
    }
}

static void
carry_append (DshDenialScanner *self, const char *data, gsize len)
{
  if (self->carry_too_long)
    return;
  if (self->carry->len + len > LINE_LIMIT)
    {
      self->carry_too_long = TRUE;
      g_string_truncate (self->carry, 0);
      return;
    }
  g_string_append_len (self->carry, data, (gssize) len);
}

/* Just past the last '\n' in [p, end), or p when there is none. */
static const char *
after_last_newline (const char *p, const char *end)
{
#ifdef __GLIBC__
  const char *newline = memrchr (p, '\n', (gsize) (end - p));

  return newline != NULL ? newline + 1 : p;
#else
  while (end > p && end[-1] != '\n')
    end--;
  return end;
#endif
}

void
dsh_denial_scanner_feed (DshDenialScanner *self, const char *data, gsize len)
{
  const char *p = data;
  const char *end = data + len;
  const char *rest;

  /* One line proves the denial; the rest of the flood cannot take it back. */
  if (self->evidence->len > 0 || len == 0)
    return;

  if (self->carry->len > 0 || self->carry_too_long)
    {
      const char *newline = memchr (p, '\n', len);

      carry_append (self, p, (gsize) ((newline != NULL ? newline : end) - p));
      if (newline == NULL)
        return;
      if (!self->carry_too_long)
        judge_line (self, self->carry->str, self->carry->len);
      g_string_truncate (self->carry, 0);
      self->carry_too_long = FALSE;
      p = newline + 1;
    }

  rest = after_last_newline (p, end);
  if (rest > p)
    scan_lines (self, p, rest - 1);
  carry_append (self, rest, (gsize) (end - rest));
}
