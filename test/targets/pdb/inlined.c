/* inlined.exe [top]: built at -O2 with clang + lld (scripts/build-pdb-targets.sh reads the
 * `build-flags:` line below), so its PDB carries S_INLINESITE records: main -> run_chain, and
 * inside run_chain the inlined chain middle_step -> inner_step, which calls crash_store (kept out
 * of line), which writes through a null-ish pointer. The crashing stack is then
 *   crash_store, (inline) inner_step, (inline) middle_step, run_chain, main
 * where frames 1-3 share one return address. With `top` the write happens inside the inlined
 * chain itself (top_inner inlined into top_middle inlined into run_top): frame 0 is inline.
 * With `method` the write happens in a C++ method inlined through a namespaced function
 * (inlined-method.cpp): inline frames named shapes::Counter::add and shapes::bump.
 * Tests find lines by the markers in the comments below, never by numbers written here.
 * build-flags: -O2 -fno-exceptions */
#include "../common.h"

int run_method(int seed);

/* The results feed the callers' arithmetic, so no call here becomes a tail call (a jump that
 * would leave no return address, and so no caller frame). */
__attribute__((noinline)) int crash_store(volatile int *where, int value) {
  *where = value; /* CRASH-LINE */
  return value + 7;
}

static inline __attribute__((always_inline)) int inner_step(volatile int *where, int value) {
  int stored = crash_store(where, value * 3); /* INNER-CALL */
  return stored ^ value;
}

static inline __attribute__((always_inline)) int middle_step(volatile int *where, int value) {
  int inner = inner_step(where, value + 2); /* MIDDLE-CALL */
  return inner * 5;
}

__attribute__((noinline)) int run_chain(int seed) {
  volatile int *target = (volatile int *)(size_t)(0x10 + (seed & 0x100));
  int result = middle_step(target, seed); /* OUTER-CALL */
  return result - seed;
}

static inline __attribute__((always_inline)) int top_inner(volatile int *where, int value) {
  *where = value; /* TOP-CRASH-LINE */
  return value * 11;
}

static inline __attribute__((always_inline)) int top_middle(volatile int *where, int value) {
  int inner = top_inner(where, value + 4); /* TOP-MIDDLE-CALL */
  return inner + 9;
}

__attribute__((noinline)) int run_top(int seed) {
  volatile int *target = (volatile int *)(size_t)(0x20 + (seed & 0x100));
  int result = top_middle(target, seed); /* TOP-OUTER-CALL */
  return result - seed;
}

int main(int argc, char **argv) {
  print_pid();
  say("crashing");
  const char *mode = argc > 1 ? argv[1] : "";
  int result;
  if (strcmp(mode, "top") == 0)
    result = run_top(argc); /* MAIN-TOP-CALL */
  else if (strcmp(mode, "method") == 0)
    result = run_method(argc); /* MAIN-METHOD-CALL */
  else
    result = run_chain(argc); /* MAIN-CALL */
  say("survived %d", result);
  return result & 1;
}
