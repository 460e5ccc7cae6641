// thrower.exe [n] [wait_ms] [interval_ms]: throws and catches n rounds of several std exception
// types (runtime_error, out_of_range, invalid_argument, bad_alloc), then throws one
// std::runtime_error nobody catches (std::terminate, exit 3). With mingw's SEH-based libgcc
// every throw is RaiseException(0x20474343 'GCC '), so a debugger sees each as a first chance.
#include <windows.h>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <stdexcept>

static void say(const char *text, long n) {
  std::printf("%s %ld\n", text, n);
  std::fflush(stdout);
}

__attribute__((noinline)) static void throw_kind(long i) {
  switch (i % 4) {
    case 0: throw std::runtime_error("boom");
    case 1: throw std::out_of_range("index");
    case 2: throw std::invalid_argument("arg");
    default: throw std::bad_alloc();
  }
}

int main(int argc, char **argv) {
  long n = argc > 1 ? std::strtol(argv[1], nullptr, 0) : 3;
  long wait = argc > 2 ? std::strtol(argv[2], nullptr, 0) : 0;
  long interval = argc > 3 ? std::strtol(argv[3], nullptr, 0) : 50;
  DWORD pid = GetCurrentProcessId();
  std::printf("PID %lu (0x%lx)\n", (unsigned long)pid, (unsigned long)pid);
  std::fflush(stdout);
  if (wait > 0) Sleep((DWORD)wait);
  for (long i = 0; i < n; i++) {
    try {
      throw_kind(i);
    } catch (const std::exception &e) {
      std::printf("caught %ld %s\n", i, e.what());
      std::fflush(stdout);
    }
    if (interval > 0) Sleep((DWORD)interval);
  }
  say("throwing unhandled", n);
  throw std::runtime_error("unhandled boom");
}
