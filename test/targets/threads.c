/* threads.exe [nthreads] [buffer_kb] [lifetime_ms]
 *
 * A process with facts a dump must show: `nthreads` extra threads (each blocked on an event),
 * and a VirtualAlloc'd buffer filled with a known pattern: byte i = (i * 7 + 13) & 0xff, so any
 * offset can be checked on its own. Prints "PID …", "thread <tid>" per extra thread,
 * "BUFFER 0x<address> <bytes>", then "READY", and waits lifetime_ms (0 = forever) before exiting. */
#include "common.h"

static HANDLE g_stop;

static DWORD WINAPI worker(LPVOID arg) {
  (void)arg;
  WaitForSingleObject(g_stop, INFINITE);
  return 0;
}

int main(int argc, char **argv) {
  long nthreads = arg_long(argc, argv, 1, 4);
  long kb = arg_long(argc, argv, 2, 64);
  long lifetime = arg_long(argc, argv, 3, 0);
  print_pid();
  g_stop = CreateEventA(NULL, TRUE, FALSE, NULL);
  for (long i = 0; i < nthreads; i++) {
    DWORD tid = 0;
    HANDLE thread = CreateThread(NULL, 0, worker, NULL, 0, &tid);
    if (thread == NULL) {
      say("CreateThread failed: %lu", GetLastError());
      return 1;
    }
    CloseHandle(thread);
    say("thread %lu", (unsigned long)tid);
  }
  size_t bytes = (size_t)kb * 1024;
  unsigned char *buffer = VirtualAlloc(NULL, bytes, MEM_COMMIT | MEM_RESERVE, PAGE_READWRITE);
  if (buffer == NULL) {
    say("VirtualAlloc failed: %lu", GetLastError());
    return 1;
  }
  for (size_t i = 0; i < bytes; i++) buffer[i] = (unsigned char)((i * 7 + 13) & 0xff);
  say("BUFFER 0x%llx %zu", (unsigned long long)(ULONG_PTR)buffer, bytes);
  say("READY");
  Sleep(lifetime > 0 ? (DWORD)lifetime : INFINITE);
  SetEvent(g_stop);
  return 0;
}
