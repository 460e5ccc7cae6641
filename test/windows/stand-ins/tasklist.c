/* tasklist stand-in for the test:windows tier (a TEST FIXTURE): Wine 8's tasklist.exe prints
 * nothing, so the harness's real listing code (`tasklist /fo csv /nh`, parsed by
 * src/engine/dialects/cdb/process-list.ts) would see no process at all. This prints the same
 * shape from the Toolhelp32 snapshot, one row per process, as Windows' tasklist does:
 *   "explorer.exe","5144","Console","1","938,060 K"
 * https://learn.microsoft.com/windows-server/administration/windows-commands/tasklist
 * Only `/fo csv /nh` is understood; anything else exits 2. */
#include <windows.h>
#include <tlhelp32.h>
#include <psapi.h>
#include <stdio.h>
#include <string.h>

static void thousands(unsigned long long kb, char *out, size_t size) {
  char digits[32];
  int n = snprintf(digits, sizeof digits, "%llu", kb), o = 0;
  for (int i = 0; i < n && o + 2 < (int)size; i++) {
    if (i > 0 && (n - i) % 3 == 0) out[o++] = ',';
    out[o++] = digits[i];
  }
  out[o] = '\0';
}

int main(int argc, char **argv) {
  if (argc != 4 || _stricmp(argv[1], "/fo") || _stricmp(argv[2], "csv") || _stricmp(argv[3], "/nh")) {
    fprintf(stderr, "tasklist stand-in: only /fo csv /nh\n");
    return 2;
  }
  HANDLE snap = CreateToolhelp32Snapshot(TH32CS_SNAPPROCESS, 0);
  if (snap == INVALID_HANDLE_VALUE) return 1;
  PROCESSENTRY32 entry;
  entry.dwSize = sizeof entry;
  for (BOOL more = Process32First(snap, &entry); more; more = Process32Next(snap, &entry)) {
    unsigned long long kb = 0;
    HANDLE process = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE, entry.th32ProcessID);
    if (process) {
      PROCESS_MEMORY_COUNTERS counters;
      if (GetProcessMemoryInfo(process, &counters, sizeof counters))
        kb = counters.WorkingSetSize / 1024;
      CloseHandle(process);
    }
    char mem[40];
    thousands(kb, mem, sizeof mem);
    printf("\"%s\",\"%lu\",\"Console\",\"1\",\"%s K\"\r\n", entry.szExeFile,
           (unsigned long)entry.th32ProcessID, mem);
  }
  CloseHandle(snap);
  return 0;
}
