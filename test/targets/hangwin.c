/* hangwin.exe <cue_file> [hang_ms]: shows one top-level window ("hangwin test", class HangWin)
 * and pumps its messages until cue_file exists; then its only thread sleeps hang_ms (default
 * 60000) without pumping, so the window stops answering, and it exits. Prints "WINDOW <hwnd>"
 * once shown and "HANG start <tick>" when it stops pumping, so tests know when the window went
 * silent independently of the harness. Exit 2 when no window can be made (no display). */
#include "common.h"

static LRESULT CALLBACK window_proc(HWND window, UINT message, WPARAM w, LPARAM l) {
  return DefWindowProcW(window, message, w, l);
}

int main(int argc, char **argv) {
  const char *cue = argc > 1 ? argv[1] : "hang.cue";
  long hang = arg_long(argc, argv, 2, 60000);
  print_pid();
  WNDCLASSW wc = {0};
  wc.lpfnWndProc = window_proc;
  wc.hInstance = GetModuleHandleW(NULL);
  wc.lpszClassName = L"HangWin";
  RegisterClassW(&wc);
  HWND window = CreateWindowW(L"HangWin", L"hangwin test", WS_OVERLAPPEDWINDOW, 0, 0, 200, 100,
                              NULL, NULL, wc.hInstance, NULL);
  if (window == NULL) {
    say("NOWINDOW %lu", (unsigned long)GetLastError());
    return 2;
  }
  ShowWindow(window, SW_SHOW);
  say("WINDOW %llx", (unsigned long long)(ULONG_PTR)window);
  MSG msg;
  while (GetFileAttributesA(cue) == INVALID_FILE_ATTRIBUTES) {
    while (PeekMessageW(&msg, NULL, 0, 0, PM_REMOVE)) {
      TranslateMessage(&msg);
      DispatchMessageW(&msg);
    }
    MsgWaitForMultipleObjects(0, NULL, FALSE, 20, QS_ALLINPUT);
  }
  say("HANG start %lu", (unsigned long)GetTickCount());
  Sleep((DWORD)hang);
  say("HANG end %lu", (unsigned long)GetTickCount());
  return 0;
}
