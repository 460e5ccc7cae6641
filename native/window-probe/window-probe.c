/* window-probe: asks each visible top-level window of one process whether it answers, the way
 * Windows itself decides a window is hung, for `cdb-harness dump -h` (ProcDump's hung-window
 * trigger). Product code run on the target's host (Windows, or the same Wine as the target), never
 * attached to the target: it only sends WM_NULL, which every window procedure must pass through.
 *   SendMessageTimeout + SMTO_ABORTIFHUNG:
 *     https://learn.microsoft.com/windows/win32/api/winuser/nf-winuser-sendmessagetimeoutw
 *   IsHungAppWindow (no message retrieved for 5 s):
 *     https://learn.microsoft.com/windows/win32/api/winuser/nf-winuser-ishungappwindow
 * Usage: window-probe PID [TIMEOUT_MS]. Output, one line per window, fields tab-separated (tabs
 * and line breaks in titles become spaces), then END:
 *   WINDOW <hwnd hex> <answers|silent> <IsHungAppWindow 0|1> <class> <title>
 *   END <windows seen>
 * or GONE when the process has ended (exit 0 either way); exit 2 on bad arguments. */
#include <windows.h>
#include <stdio.h>
#include <stdlib.h>

static DWORD target_pid;
static UINT timeout_ms = 500;
static unsigned seen;

static void put_utf8(const wchar_t *text) {
  char out[1024];
  int n = WideCharToMultiByte(CP_UTF8, 0, text, -1, out, sizeof out, NULL, NULL);
  if (n <= 0) out[0] = '\0';
  for (char *p = out; *p; p++)
    if (*p == '\t' || *p == '\r' || *p == '\n') *p = ' ';
  fputs(out, stdout);
}

static BOOL CALLBACK each_window(HWND window, LPARAM unused) {
  (void)unused;
  DWORD pid = 0;
  GetWindowThreadProcessId(window, &pid);
  if (pid != target_pid || !IsWindowVisible(window)) return TRUE;
  seen++;
  DWORD_PTR result = 0;
  LRESULT answered = SendMessageTimeoutW(window, WM_NULL, 0, 0, SMTO_ABORTIFHUNG | SMTO_BLOCK,
                                         timeout_ms, &result);
  BOOL hung = IsHungAppWindow(window);
  wchar_t title[256] = L"", class_name[256] = L"";
  GetWindowTextW(window, title, 256);
  GetClassNameW(window, class_name, 256);
  printf("WINDOW\t%llx\t%s\t%d\t", (unsigned long long)(ULONG_PTR)window,
         answered ? "answers" : "silent", hung ? 1 : 0);
  put_utf8(class_name);
  fputc('\t', stdout);
  put_utf8(title);
  fputc('\n', stdout);
  return TRUE;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: window-probe PID [TIMEOUT_MS]\n");
    return 2;
  }
  target_pid = strtoul(argv[1], NULL, 0);
  if (argc > 2) timeout_ms = strtoul(argv[2], NULL, 0);
  if (target_pid == 0 || timeout_ms == 0 || timeout_ms > 60000) {
    fprintf(stderr, "window-probe: bad PID or TIMEOUT_MS\n");
    return 2;
  }
  HANDLE process = OpenProcess(SYNCHRONIZE | PROCESS_QUERY_LIMITED_INFORMATION, FALSE, target_pid);
  if (process == NULL || WaitForSingleObject(process, 0) == WAIT_OBJECT_0) {
    puts("GONE");
    return 0;
  }
  EnumWindows(each_window, 0);
  CloseHandle(process);
  printf("END\t%u\n", seen);
  fflush(stdout);
  return 0;
}
