/* Shared helpers for the Windows test programs (built with mingw, run under Wine).
 * Every program prints "PID <decimal> (0x<hex>)" first, so tests learn the Windows pid
 * independently of the harness, and flushes every line (stdout is usually a file). */
#ifndef TARGETS_COMMON_H
#define TARGETS_COMMON_H
#include <windows.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void say(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  fputc('\n', stdout);
  fflush(stdout);
}

static void print_pid(void) {
  DWORD pid = GetCurrentProcessId();
  say("PID %lu (0x%lx)", (unsigned long)pid, (unsigned long)pid);
}

static long arg_long(int argc, char **argv, int index, long fallback) {
  return argc > index ? strtol(argv[index], NULL, 0) : fallback;
}
#endif
