/* The C++ part of inlined.exe (see inlined.c): a method and a namespaced function inlined into
 * run_method, so the PDB names them through LF_MFUNC_ID (with its class, shapes::Counter, from the
 * type stream) and LF_FUNC_ID with a scope (shapes). No exceptions, no C++ library: the C driver
 * links it. */
namespace shapes {
struct Counter {
  int total;
  __attribute__((always_inline)) int add(volatile int *where, int value) {
    *where = value; /* METHOD-CRASH-LINE */
    total += value;
    return total;
  }
};

static inline __attribute__((always_inline)) int bump(Counter &counter, volatile int *where,
                                                      int value) {
  return counter.add(where, value + 1); /* BUMP-CALL */
}
} // namespace shapes

extern "C" __attribute__((noinline)) int run_method(int seed) {
  shapes::Counter counter{seed};
  volatile int *target = (volatile int *)(__SIZE_TYPE__)(0x30 + (seed & 0x100));
  return shapes::bump(counter, target, seed) * 3; /* METHOD-OUTER-CALL */
}
