/* commit-probe: the committed memory of a process, read from outside without attaching, for
 * `cdb-harness dump -m` where the debugger cannot total it (the Debugger Engine without exts.dll
 * has no !address). VirtualQueryEx over the whole user address space, the walk !address -summary
 * and winedbg's `info maps` make; the target is never suspended. Product code, run on the target's
 * host (Windows, or the same Wine as the target).
 *   VirtualQueryEx: https://learn.microsoft.com/windows/win32/api/memoryapi/nf-memoryapi-virtualqueryex
 *   MEMORY_BASIC_INFORMATION (State MEM_COMMIT, Type MEM_PRIVATE):
 *     https://learn.microsoft.com/windows/win32/api/winnt/ns-winnt-memory_basic_information
 * Usage: commit-probe PID (decimal). Output, one line:
 *   COMMIT <bytes> PRIVATE <bytes> REGIONS <n>   every MEM_COMMIT region, of them MEM_PRIVATE
 *   GONE <pid>                                   no such process (exit 0 either way)
 *   FAILED <call> <GetLastError()>               exit 1; exit 2 on bad arguments. */
#include <windows.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

/* A walk is bounded: a 128 TB address space has far fewer regions than this. */
#define MAX_REGIONS (1u << 22)

int main(int argc, char **argv) {
  char *end = NULL;
  errno = 0;
  unsigned long long pid = argc == 2 ? strtoull(argv[1], &end, 10) : 0;
  if (argc != 2 || end == argv[1] || *end != '\0' || errno != 0 || pid == 0 || pid > 0xffffffffULL) {
    fprintf(stderr, "usage: commit-probe PID (a decimal Windows process id)\n");
    return 2;
  }
  HANDLE process = OpenProcess(PROCESS_QUERY_INFORMATION, FALSE, (DWORD)pid);
  if (!process) {
    DWORD error = GetLastError();
    if (error == ERROR_INVALID_PARAMETER) {
      printf("GONE %llu\n", pid);
      return 0;
    }
    printf("FAILED OpenProcess %lu\n", (unsigned long)error);
    return 1;
  }
  unsigned long long commit = 0, private_commit = 0;
  unsigned regions = 0;
  MEMORY_BASIC_INFORMATION mbi;
  ULONG_PTR address = 0;
  while (regions < MAX_REGIONS &&
         VirtualQueryEx(process, (LPCVOID)address, &mbi, sizeof mbi) == sizeof mbi) {
    if (mbi.State == MEM_COMMIT) {
      commit += mbi.RegionSize;
      if (mbi.Type == MEM_PRIVATE) private_commit += mbi.RegionSize;
    }
    regions++;
    ULONG_PTR next = (ULONG_PTR)mbi.BaseAddress + mbi.RegionSize;
    if (next <= address) break;
    address = next;
  }
  DWORD exit_code = STILL_ACTIVE;
  GetExitCodeProcess(process, &exit_code);
  CloseHandle(process);
  if (exit_code != STILL_ACTIVE) {
    printf("GONE %llu\n", pid);
    return 0;
  }
  if (regions == 0) {
    printf("FAILED VirtualQueryEx %lu\n", (unsigned long)GetLastError());
    return 1;
  }
  printf("COMMIT %llu PRIVATE %llu REGIONS %u\n", commit, private_commit, regions);
  return 0;
}
