/* break-in: breaks into a live process that a debugger is attached to, the way Windows debuggers
 * do it (WinDbg's Debug > Break, cdb's Ctrl-Break): DebugBreakProcess makes the target raise a
 * breakpoint exception on a new thread, so the attached debugger stops with a prompt. Product code,
 * run on the target's host by the library's interrupt() (src/platform/windows/break-in.ts) where
 * the console's Ctrl-C cannot be relied on (ConPTY under Wine closes the pseudo console on 0x03).
 *   DebugBreakProcess ("the handle must have the PROCESS_ALL_ACCESS access right"):
 *     https://learn.microsoft.com/windows/win32/api/winbase/nf-winbase-debugbreakprocess
 * A breakpoint that no debugger handles ends the process (an unhandled 0x80000003), so the helper
 * first asks whether a debugger is attached and refuses when none is:
 *     https://learn.microsoft.com/windows/win32/api/debugapi/nf-debugapi-checkremotedebuggerpresent
 * Usage: break-in PID (decimal). Output, one line: `BROKE <pid>` (exit 0), `NOT-DEBUGGED <pid>`
 * (exit 1, nothing done), or `FAILED <call> <GetLastError()>` (exit 1); exit 2 on bad arguments. */
#include <windows.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  char *end = NULL;
  errno = 0;
  unsigned long long pid = argc == 2 ? strtoull(argv[1], &end, 10) : 0;
  if (argc != 2 || end == argv[1] || *end != '\0' || errno != 0 || pid == 0 || pid > 0xffffffffULL) {
    fprintf(stderr, "usage: break-in PID (a decimal Windows process id)\n");
    return 2;
  }
  HANDLE process = OpenProcess(PROCESS_ALL_ACCESS, FALSE, (DWORD)pid);
  if (!process) {
    printf("FAILED OpenProcess %lu\n", (unsigned long)GetLastError());
    return 1;
  }
  BOOL debugged = FALSE;
  if (!CheckRemoteDebuggerPresent(process, &debugged)) {
    DWORD error = GetLastError();
    CloseHandle(process);
    printf("FAILED CheckRemoteDebuggerPresent %lu\n", (unsigned long)error);
    return 1;
  }
  if (!debugged) {
    CloseHandle(process);
    printf("NOT-DEBUGGED %llu\n", pid);
    return 1;
  }
  BOOL ok = DebugBreakProcess(process);
  DWORD error = GetLastError();
  CloseHandle(process);
  if (!ok) {
    printf("FAILED DebugBreakProcess %lu\n", (unsigned long)error);
    return 1;
  }
  printf("BROKE %llu\n", pid);
  fflush(stdout);
  return 0;
}
