/* symcrash.exe [libs]: built with clang + lld so it has a real PDB (scripts/build-pdb-targets.sh).
 * With `libs` it first loads a few more system DLLs (a process with ~10 modules, for the
 * symbols benchmark). Prints its pid, then calls main -> run_job -> store_value (in symcrash-store.c), which writes
 * through a null-ish pointer: an unhandled access violation three named frames deep. Tests find
 * the crash line by the CRASH-LINE marker in symcrash-store.c, never by a number written here. */
#include "../common.h"

int store_value(volatile int *where, int value);

__attribute__((noinline)) static int run_job(int seed) {
  volatile int *target = (volatile int *)(size_t)(0x10 + (seed & 0)); /* JOB-LINE */
  int total = seed * 3;
  total += store_value(target, total); /* CALL-LINE */
  return total;
}

int main(int argc, char **argv) {
  static const char *const libs[] = {"user32.dll", "advapi32.dll", "ws2_32.dll", "ole32.dll",
                                     "shlwapi.dll", "version.dll"};
  if (argc > 1 && strcmp(argv[1], "libs") == 0) {
    for (size_t i = 0; i < sizeof libs / sizeof libs[0]; i++) LoadLibraryA(libs[i]);
  }
  print_pid();
  say("crashing");
  return run_job(argc);
}
