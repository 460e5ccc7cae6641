/* idle.exe [interval_ms] [ticks]: prints "tick N" every interval (forever when ticks is 0).
 * A log that keeps growing proves the process is alive and not suspended. */
#include "common.h"

int main(int argc, char **argv) {
  long interval = arg_long(argc, argv, 1, 200);
  long ticks = arg_long(argc, argv, 2, 0);
  print_pid();
  for (long i = 1; ticks == 0 || i <= ticks; i++) {
    Sleep((DWORD)interval);
    say("tick %ld", i);
  }
  return 0;
}
