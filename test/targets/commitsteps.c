/* commitsteps.exe [step_mb] [interval_ms] [steps] [cue_file]: once cue_file exists (at once
 * without one), commits step_mb of private memory (VirtualAlloc MEM_COMMIT, every page touched)
 * every interval_ms, `steps` times, then idles.
 * Prints "COMMIT step=N total_mb=M" after each step, so tests know which commit steps were
 * crossed and when, independently of the harness. */
#include "common.h"

int main(int argc, char **argv) {
  long step_mb = arg_long(argc, argv, 1, 20);
  long interval = arg_long(argc, argv, 2, 1000);
  long steps = arg_long(argc, argv, 3, 4);
  const char *cue = argc > 4 ? argv[4] : NULL;
  print_pid();
  while (cue != NULL && GetFileAttributesA(cue) == INVALID_FILE_ATTRIBUTES) Sleep(50);
  say("STEPPING");
  for (long step = 1; step <= steps; step++) {
    Sleep((DWORD)interval);
    SIZE_T bytes = (SIZE_T)step_mb * 1024 * 1024;
    char *block = VirtualAlloc(NULL, bytes, MEM_COMMIT | MEM_RESERVE, PAGE_READWRITE);
    if (block == NULL) {
      say("VirtualAlloc failed: %lu", GetLastError());
      return 1;
    }
    for (SIZE_T at = 0; at < bytes; at += 4096) block[at] = 1;
    say("COMMIT step=%ld total_mb=%ld", step, step * step_mb);
  }
  for (long i = 1;; i++) {
    Sleep(200);
    say("tick %ld", i);
  }
  return 0;
}
