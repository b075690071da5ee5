/* bench-serve-floor.c — the floor under serve's one-at-a-time round trip: a line server that
 * does nothing but answer every request line at once with one fixed answer of a confine's
 * shape. bench-serve.py drives it exactly as it drives `dsh-sandbox serve`, so what serve adds
 * to a round trip stands beside what two pipes and two wake-ups cost on this machine.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 *   bench-serve-floor serve
 */
#include <string.h>
#include <unistd.h>

static const char answer[] = "{\"id\":0,\"result\":{\"argv\":[\"true\"]}}\n";

static char buffer[1 << 16];

int
main (void)
{
  for (;;)
    {
      ssize_t n = read (STDIN_FILENO, buffer, sizeof buffer);

      if (n <= 0)
        return n == 0 ? 0 : 1;
      for (const char *line = memchr (buffer, '\n', (size_t) n); line != NULL;
           line = memchr (line + 1, '\n', (size_t) (buffer + n - line - 1)))
        if (write (STDOUT_FILENO, answer, sizeof answer - 1) != sizeof answer - 1)
          return 1;
    }
}
