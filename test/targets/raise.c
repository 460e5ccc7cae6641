/* raise.exe [-w wait_ms] [-i interval_ms] [-n rounds] [-p nparams] [-u] CODE...
 *
 * Raises each hex CODE in turn with RaiseException, `rounds` times (0 = forever), sleeping
 * interval_ms between raises. A vectored handler marks each one handled, so the program runs on
 * (the debugger still sees every first chance). Codes of note: e0434352 (CLR, raised with 5
 * parameters like the runtime: HRESULT 0x80131500 first), e06d7363 (MSVC C++ EH, 3 or 4
 * parameters with the 0x19930520 magic), anything else with nparams parameters 0x1000+i.
 * -u: after the rounds, raise the last code once more, noncontinuable, with no handler: the
 * process dies with that code (second chance under a debugger).
 * Prints "PID …", then "raise N CODE" before each raise and "handled N CODE" after it. */
#include "common.h"

static volatile LONG g_handling = 1;
static volatile LONG g_handled = 0;

static LONG CALLBACK on_exception(PEXCEPTION_POINTERS info) {
  DWORD code = info->ExceptionRecord->ExceptionCode;
  if (!g_handling || code == 0x80000003 || code == 0xc0000005) return EXCEPTION_CONTINUE_SEARCH;
  if (info->ExceptionRecord->ExceptionFlags & EXCEPTION_NONCONTINUABLE) return EXCEPTION_CONTINUE_SEARCH;
  InterlockedIncrement(&g_handled);
  return EXCEPTION_CONTINUE_EXECUTION;
}

static void raise_one(DWORD code, DWORD flags, int nparams) {
  ULONG_PTR params[EXCEPTION_MAXIMUM_PARAMETERS];
  int n = nparams;
  for (int i = 0; i < EXCEPTION_MAXIMUM_PARAMETERS; i++) params[i] = 0x1000 + (ULONG_PTR)i;
  if (code == 0xe0434352 || code == 0xe0434f4d) {
    n = 5; /* like the CLR: HRESULT, 0, 0, 0, runtime module base */
    params[0] = 0x80131500;
    params[1] = params[2] = params[3] = 0;
    params[4] = (ULONG_PTR)GetModuleHandleA(NULL);
  } else if (code == 0xe06d7363) {
    n = sizeof(void *) == 8 ? 4 : 3;
    params[0] = 0x19930520;
    params[1] = 0x1111;
    params[2] = 0x2222;
    params[3] = (ULONG_PTR)GetModuleHandleA(NULL);
  }
  RaiseException(code, flags, (DWORD)n, n > 0 ? params : NULL);
}

int main(int argc, char **argv) {
  long wait = 0, interval = 100, rounds = 1;
  int nparams = 0, unhandled = 0, first = 1;
  while (first < argc && argv[first][0] == '-') {
    char opt = argv[first][1];
    if (opt == 'u') {
      unhandled = 1;
      first++;
      continue;
    }
    if (first + 1 >= argc) break;
    long value = strtol(argv[first + 1], NULL, 0);
    if (opt == 'w') wait = value;
    else if (opt == 'i') interval = value;
    else if (opt == 'n') rounds = value;
    else if (opt == 'p') nparams = (int)value;
    first += 2;
  }
  print_pid();
  if (first >= argc) {
    say("usage: raise.exe [-w ms] [-i ms] [-n rounds] [-p nparams] [-u] CODE...");
    return 2;
  }
  AddVectoredExceptionHandler(1, on_exception);
  if (wait > 0) Sleep((DWORD)wait);
  long count = 0;
  DWORD last = 0;
  for (long round = 0; rounds == 0 || round < rounds; round++) {
    for (int i = first; i < argc; i++) {
      DWORD code = (DWORD)strtoul(argv[i], NULL, 16);
      last = code;
      count++;
      say("raise %ld 0x%08lx", count, (unsigned long)code);
      raise_one(code, 0, nparams);
      say("handled %ld 0x%08lx", count, (unsigned long)code);
      if (interval > 0) Sleep((DWORD)interval);
    }
  }
  if (unhandled) {
    g_handling = 0;
    say("unhandled 0x%08lx", (unsigned long)last);
    raise_one(last, EXCEPTION_NONCONTINUABLE, nparams);
  }
  say("done %ld", count);
  return 0;
}
