/* mdw.exe [-e hexcode] [-t tid] <pid> <out.dmp> [hex MINIDUMP_TYPE]
 *
 * Writes a minidump of a running process with MiniDumpWriteDump (Wine's dbghelp here), by
 * default MiniDumpWithFullMemory (2): winedbg itself only writes MiniDumpNormal, and full-memory
 * dumps are what the reader's Memory64List path needs. <out.dmp> is a Windows path (Z:\...).
 * -e CODE: add a synthetic exception record with that code, raised "at" the current instruction
 * of thread -t (default: the process's first thread), which is suspended while its context is
 * read and resumed afterwards. Without -e the dump has no exception stream, like any dump taken
 * from outside.
 * Prints "PID …", then "thread <tid>" when -e is used, then "wrote <path> <bytes>" or
 * "failed <what> <GetLastError>" (exit 1). */
#include "common.h"
#include <dbghelp.h>
#include <tlhelp32.h>

static DWORD first_thread_of(DWORD pid) {
  HANDLE snap = CreateToolhelp32Snapshot(TH32CS_SNAPTHREAD, 0);
  THREADENTRY32 entry;
  DWORD found = 0;
  if (snap == INVALID_HANDLE_VALUE) return 0;
  entry.dwSize = sizeof entry;
  for (BOOL ok = Thread32First(snap, &entry); ok; ok = Thread32Next(snap, &entry)) {
    if (entry.th32OwnerProcessID == pid) {
      found = entry.th32ThreadID;
      break;
    }
  }
  CloseHandle(snap);
  return found;
}

int main(int argc, char **argv) {
  DWORD code = 0, tid = 0;
  int have_code = 0, first = 1;
  while (first + 1 < argc && argv[first][0] == '-') {
    if (argv[first][1] == 'e') {
      code = (DWORD)strtoul(argv[first + 1], NULL, 16);
      have_code = 1;
    } else if (argv[first][1] == 't') {
      tid = (DWORD)strtoul(argv[first + 1], NULL, 0);
    }
    first += 2;
  }
  print_pid();
  if (argc - first < 2) {
    say("usage: mdw.exe [-e hexcode] [-t tid] <pid> <out.dmp> [hex MINIDUMP_TYPE]");
    return 2;
  }
  DWORD pid = (DWORD)strtoul(argv[first], NULL, 0);
  const char *out = argv[first + 1];
  MINIDUMP_TYPE type = (MINIDUMP_TYPE)(argc - first > 2 ? strtoul(argv[first + 2], NULL, 16) : 2);

  HANDLE process = OpenProcess(PROCESS_ALL_ACCESS, FALSE, pid);
  if (process == NULL) {
    say("failed OpenProcess %lu", GetLastError());
    return 1;
  }
  HANDLE file = CreateFileA(out, GENERIC_WRITE, 0, NULL, CREATE_ALWAYS, FILE_ATTRIBUTE_NORMAL, NULL);
  if (file == INVALID_HANDLE_VALUE) {
    say("failed CreateFile %lu", GetLastError());
    return 1;
  }

  MINIDUMP_EXCEPTION_INFORMATION info;
  EXCEPTION_RECORD record;
  CONTEXT context;
  EXCEPTION_POINTERS pointers;
  HANDLE thread = NULL;
  if (have_code) {
    if (tid == 0) tid = first_thread_of(pid);
    thread = OpenThread(THREAD_ALL_ACCESS, FALSE, tid);
    if (thread == NULL) {
      say("failed OpenThread %lu", GetLastError());
      return 1;
    }
    SuspendThread(thread);
    memset(&context, 0, sizeof context);
    context.ContextFlags = CONTEXT_FULL;
    if (!GetThreadContext(thread, &context)) {
      say("failed GetThreadContext %lu", GetLastError());
      return 1;
    }
    memset(&record, 0, sizeof record);
    record.ExceptionCode = code;
    record.ExceptionAddress = (PVOID)context.Rip;
    pointers.ExceptionRecord = &record;
    pointers.ContextRecord = &context;
    info.ThreadId = tid;
    info.ExceptionPointers = &pointers;
    info.ClientPointers = FALSE; /* the record lives in this process, not the target */
    say("thread %lu", (unsigned long)tid);
  }
  BOOL ok = MiniDumpWriteDump(process, pid, file, type, have_code ? &info : NULL, NULL, NULL);
  DWORD error = GetLastError();
  if (thread != NULL) {
    ResumeThread(thread);
    CloseHandle(thread);
  }
  LARGE_INTEGER size;
  size.QuadPart = 0;
  GetFileSizeEx(file, &size);
  CloseHandle(file);
  CloseHandle(process);
  if (!ok) {
    say("failed MiniDumpWriteDump %lu", error);
    return 1;
  }
  say("wrote %s %lld", out, (long long)size.QuadPart);
  return 0;
}
