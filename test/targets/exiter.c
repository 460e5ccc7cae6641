/* exiter.exe <cue_file> [exit_code]: idles, printing "tick N" every 100 ms, until cue_file
 * exists, then prints "EXITING" and returns exit_code. Tests create the file to make the process
 * end at a moment they choose (no fixed sleeps). */
#include "common.h"

int main(int argc, char **argv) {
  const char *cue = argc > 1 ? argv[1] : "exit.cue";
  long code = arg_long(argc, argv, 2, 7);
  print_pid();
  for (long i = 1;; i++) {
    if (GetFileAttributesA(cue) != INVALID_FILE_ATTRIBUTES) break;
    Sleep(100);
    say("tick %ld", i);
  }
  say("EXITING %ld", code);
  return (int)code;
}
