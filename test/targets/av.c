/* av.exe [delay_ms] [read|write|exec]: waits (so a debugger can attach), then faults on
 * address 0x10 (read/write) or jumps to 0x10 (exec). Unhandled: the process dies with
 * 0xc0000005. */
#include "common.h"

__attribute__((noinline)) static int crash_here(int mode) {
  volatile int *p = (volatile int *)0x10;
  if (mode == 1) {
    *p = 42;
    return 0;
  }
  if (mode == 2) {
    void (*fn)(void) = (void (*)(void))0x10;
    fn();
    return 0;
  }
  return *p;
}

int main(int argc, char **argv) {
  long delay = arg_long(argc, argv, 1, 0);
  const char *mode = argc > 2 ? argv[2] : "write";
  print_pid();
  if (delay > 0) Sleep((DWORD)delay);
  say("crashing (%s)", mode);
  return crash_here(strcmp(mode, "write") == 0 ? 1 : strcmp(mode, "exec") == 0 ? 2 : 0);
}
