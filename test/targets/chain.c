/* chain.exe <mode> [depth]: crashes at the end of a known call chain, for the stack walker's
 * tests (whose truth is winedbg's own `bt` on the same crash). Every function on the chain is
 * noinline and uses its callee's result, so -O1 keeps one real frame per function (GCC does no
 * sibling-call optimisation below -O2). Modes:
 *   abc          main -> run -> a -> b -> c -> write to 0x18
 *   deep N       main -> run -> recurse(N) ... -> recurse(0) -> c -> write to 0x18
 *   leaf         main -> run -> a -> b -> leaf_store (a leaf: no frame, no unwind data)
 *   big          main -> run -> big_frame (64 KiB local array) -> c
 *   alloca N     main -> run -> with_alloca(N bytes of alloca) -> c
 *   qsort        main -> run -> sort_them -> msvcrt!qsort -> compare -> c
 *   callback     main -> run -> enum_them -> user32!EnumWindows-style callback (EnumChildWindows
 *                of the desktop has no windows here, so EnumSystemLocalesA) -> on_locale -> c
 */
#include "common.h"
#include <malloc.h>

volatile int sink;

__attribute__((noinline)) int c(int x) {
  volatile int *p = (volatile int *)0x18;
  *p = x;
  return x + 1;
}

__attribute__((noinline)) int b(int x) { return c(x * 3) + 2; }
__attribute__((noinline)) int a(int x) { return b(x + 5) * 7; }

__attribute__((noinline)) int recurse(int n) {
  if (n <= 0) return c(n) + 1;
  return recurse(n - 1) + n;
}

/* A leaf that needs no stack: GCC emits no .pdata entry for it, so the return address is at RSP. */
__attribute__((noinline)) void leaf_store(volatile int *p, int v) { *p = v; }
__attribute__((noinline)) int leaf_caller(int x) {
  leaf_store((volatile int *)0x18, x);
  return x + 3;
}

__attribute__((noinline)) int big_frame(int x) {
  volatile char buffer[65536];
  buffer[0] = (char)x;
  buffer[65535] = (char)(x + 1);
  return c(buffer[0] + buffer[65535]) + 4;
}

__attribute__((noinline)) int with_alloca(int x, int bytes) {
  volatile char *p = alloca((size_t)bytes);
  p[0] = (char)x;
  p[bytes - 1] = (char)x;
  return c(p[0] + p[bytes - 1]) + 5;
}

static int compare(const void *l, const void *r) {
  int left = *(const int *)l, right = *(const int *)r;
  if (left == 3 || right == 3) sink = c(left);
  return left - right;
}

__attribute__((noinline)) int sort_them(int x) {
  int values[8] = {5, 1, 4, 3, 2, 8, 7, 6};
  qsort(values, 8, sizeof values[0], compare);
  return values[0] + x;
}

static BOOL CALLBACK on_locale(LPSTR name) {
  sink = c(name[0]);
  return TRUE;
}

__attribute__((noinline)) int enum_them(int x) {
  EnumSystemLocalesA(on_locale, LCID_INSTALLED);
  return x + 6;
}

__attribute__((noinline)) int run(const char *mode, int depth) {
  if (strcmp(mode, "abc") == 0) return a(depth) + 1;
  if (strcmp(mode, "deep") == 0) return recurse(depth) + 1;
  if (strcmp(mode, "leaf") == 0) return leaf_caller(depth) + 1;
  if (strcmp(mode, "big") == 0) return big_frame(depth) + 1;
  if (strcmp(mode, "alloca") == 0) return with_alloca(1, depth > 0 ? depth : 4096) + 1;
  if (strcmp(mode, "qsort") == 0) return sort_them(depth) + 1;
  if (strcmp(mode, "callback") == 0) return enum_them(depth) + 1;
  say("unknown mode %s", mode);
  return -1;
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "abc";
  int depth = (int)arg_long(argc, argv, 2, 3);
  print_pid();
  say("crashing (%s %d)", mode, depth);
  sink = run(mode, depth);
  return sink;
}
