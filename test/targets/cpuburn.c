/* cpuburn.exe <cue_file> [burn_ms] [tick_ms]: idles, printing "tick N" every tick_ms, until
 * cue_file exists; then one thread spins for burn_ms (one core at ~100%) and the process idles
 * again. Prints "BURN start" and "BURN end", so tests know when the CPU condition held
 * independently of the harness, and start the burn only once the harness is watching. */
#include "common.h"

int main(int argc, char **argv) {
  const char *cue = argc > 1 ? argv[1] : "burn.cue";
  long burn = arg_long(argc, argv, 2, 5000);
  long tick = arg_long(argc, argv, 3, 100);
  volatile unsigned long long spin = 0;
  long i = 1;
  print_pid();
  while (GetFileAttributesA(cue) == INVALID_FILE_ATTRIBUTES) {
    Sleep((DWORD)tick);
    say("tick %ld", i++);
  }
  DWORD start = GetTickCount();
  say("BURN start %lu", (unsigned long)start);
  while ((long)(GetTickCount() - start) < burn) {
    for (int k = 0; k < 100000; k++) spin += (unsigned long long)k;
  }
  say("BURN end %lu", (unsigned long)GetTickCount());
  for (;; i++) {
    Sleep((DWORD)tick);
    say("tick %ld", i);
  }
  return 0;
}
