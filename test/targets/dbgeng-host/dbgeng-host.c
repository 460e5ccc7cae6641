/*
 * dbgeng-host: a TEST FIXTURE, not a product. Real users run Microsoft's cdb.exe.
 *
 * cdb.exe is a thin console around the Debugger Engine (dbgeng.dll): the engine prints the
 * prompt, the event banners and every command's output. This host is the smallest console that
 * lets cdb-harness drive the real engine on Linux, under Wine, with the command-line flags the
 * harness's cdb dialect passes (src/engine/dialects/cdb.ts launchArgs):
 *
 *   -z <dump>          open a crash dump                     (IDebugClient::OpenDumpFile)
 *   -p <pid>           attach (invasive)                     (IDebugClient::AttachProcess)
 *   -pn <name>         attach by executable name             (GetRunningProcessSystemIdByExecutableName)
 *   -pv                noninvasive attach                    (DEBUG_ATTACH_NONINVASIVE)
 *   -pd                detach, do not kill, when the session ends (DEBUG_PROCESS_DETACH_ON_EXIT)
 *   -y <path>          symbol path                           (IDebugSymbols::SetSymbolPath)
 *   -c "<cmds>"        commands run at the first stop
 *   -snul              no symbol loads for unqualified names (SYMOPT_NO_UNQUALIFIED_LOADS)
 *   -g / -G            skip the initial / final breakpoint
 *   <program> [args]   start a program under the debugger    (IDebugClient::CreateProcess)
 *
 * Each stdin line goes to IDebugControl::Execute; a go-class command is followed by
 * WaitForEvent; Ctrl-C becomes IDebugControl::SetInterrupt. Output callbacks write straight to
 * stdout. API reference: https://learn.microsoft.com/windows-hardware/drivers/ddi/dbgeng/
 * Built with mingw-w64 against its dbgeng.h by scripts/setup-dbgeng.sh.
 */
#define INITGUID
#include <windows.h>
#include <dbgeng.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <stdarg.h>

#ifndef SYMOPT_NO_UNQUALIFIED_LOADS
#define SYMOPT_NO_UNQUALIFIED_LOADS 0x00000100
#endif

static IDebugClient *g_client;
static IDebugControl *g_control;
static IDebugSymbols *g_symbols;
static volatile LONG g_session_over;

/* Output goes out a whole line at a time. Wine's console renders the blank at the end of a write
   as "erase to end of line, cursor right" (ESC[K ESC[1C) instead of a space, so text cut in the
   middle of a line, as the engine's chunks often are, would lose its blanks once the escapes are
   stripped; msvcrt's stdio is worse (one write per character). flush_out() sends a partial line
   (the prompt) before the host blocks. */
static char g_pending[65536];
static size_t g_pending_len;

static void write_raw(const char *text, size_t len) {
  DWORD written;
  while (len > 0) {
    if (!WriteFile(GetStdHandle(STD_OUTPUT_HANDLE), text, (DWORD)len, &written, NULL) ||
        written == 0)
      return;
    text += written;
    len -= written;
  }
}

static void flush_out(void) {
  write_raw(g_pending, g_pending_len);
  g_pending_len = 0;
}

static void write_out(const char *text) {
  size_t len = strlen(text);
  const char *last_newline = NULL;
  for (const char *p = text + len; p > text; p--)
    if (p[-1] == '\n') {
      last_newline = p;
      break;
    }
  if (last_newline) {
    size_t head = (size_t)(last_newline - text);
    if (g_pending_len + head <= sizeof g_pending) {
      memcpy(g_pending + g_pending_len, text, head);
      g_pending_len += head;
      flush_out();
    } else {
      flush_out();
      write_raw(text, head);
    }
    text = last_newline;
    len -= head;
  }
  if (g_pending_len + len > sizeof g_pending) flush_out();
  if (len > sizeof g_pending) {
    write_raw(text, len);
    return;
  }
  memcpy(g_pending + g_pending_len, text, len);
  g_pending_len += len;
}

/* ---- output callbacks: every engine byte to stdout ---------------------------------------- */

static HRESULT STDMETHODCALLTYPE out_query(IDebugOutputCallbacks *self, REFIID iid, void **out) {
  if (IsEqualIID(iid, &IID_IUnknown) || IsEqualIID(iid, &IID_IDebugOutputCallbacks)) {
    *out = self;
    return S_OK;
  }
  *out = NULL;
  return E_NOINTERFACE;
}
static ULONG STDMETHODCALLTYPE out_addref(IDebugOutputCallbacks *self) {
  (void)self;
  return 1;
}
static ULONG STDMETHODCALLTYPE out_release(IDebugOutputCallbacks *self) {
  (void)self;
  return 0;
}
static HRESULT STDMETHODCALLTYPE out_output(IDebugOutputCallbacks *self, ULONG mask, PCSTR text) {
  (void)self;
  (void)mask;
  write_out(text);
  return S_OK;
}
static IDebugOutputCallbacksVtbl g_out_vtbl = {out_query, out_addref, out_release, out_output};
static IDebugOutputCallbacks g_out = {&g_out_vtbl};

/* ---- event callbacks: the engine prints the banners itself; we only track the session ----- */

static HRESULT STDMETHODCALLTYPE ev_query(IDebugEventCallbacks *self, REFIID iid, void **out) {
  if (IsEqualIID(iid, &IID_IUnknown) || IsEqualIID(iid, &IID_IDebugEventCallbacks)) {
    *out = self;
    return S_OK;
  }
  *out = NULL;
  return E_NOINTERFACE;
}
static ULONG STDMETHODCALLTYPE ev_addref(IDebugEventCallbacks *self) {
  (void)self;
  return 1;
}
static ULONG STDMETHODCALLTYPE ev_release(IDebugEventCallbacks *self) {
  (void)self;
  return 0;
}
static HRESULT STDMETHODCALLTYPE ev_mask(IDebugEventCallbacks *self, PULONG mask) {
  (void)self;
  *mask = DEBUG_EVENT_SESSION_STATUS;
  return S_OK;
}
static HRESULT STDMETHODCALLTYPE ev_bp(IDebugEventCallbacks *s, PDEBUG_BREAKPOINT b) {
  (void)s;
  (void)b;
  return DEBUG_STATUS_NO_CHANGE;
}
static HRESULT STDMETHODCALLTYPE ev_exc(IDebugEventCallbacks *s, PEXCEPTION_RECORD64 e, ULONG f) {
  (void)s;
  (void)e;
  (void)f;
  return DEBUG_STATUS_NO_CHANGE;
}
static HRESULT STDMETHODCALLTYPE ev_cthread(IDebugEventCallbacks *s, ULONG64 a, ULONG64 b,
                                            ULONG64 c) {
  (void)s;
  (void)a;
  (void)b;
  (void)c;
  return DEBUG_STATUS_NO_CHANGE;
}
static HRESULT STDMETHODCALLTYPE ev_xthread(IDebugEventCallbacks *s, ULONG code) {
  (void)s;
  (void)code;
  return DEBUG_STATUS_NO_CHANGE;
}
static HRESULT STDMETHODCALLTYPE ev_cproc(IDebugEventCallbacks *s, ULONG64 a, ULONG64 b, ULONG64 c,
                                          ULONG d, PCSTR e, PCSTR f, ULONG g, ULONG h, ULONG64 i,
                                          ULONG64 j, ULONG64 k) {
  (void)s, (void)a, (void)b, (void)c, (void)d, (void)e, (void)f, (void)g, (void)h, (void)i;
  (void)j, (void)k;
  return DEBUG_STATUS_NO_CHANGE;
}
static HRESULT STDMETHODCALLTYPE ev_xproc(IDebugEventCallbacks *s, ULONG code) {
  (void)s;
  (void)code;
  return DEBUG_STATUS_NO_CHANGE;
}
static HRESULT STDMETHODCALLTYPE ev_load(IDebugEventCallbacks *s, ULONG64 a, ULONG64 b, ULONG c,
                                         PCSTR d, PCSTR e, ULONG f, ULONG g) {
  (void)s, (void)a, (void)b, (void)c, (void)d, (void)e, (void)f, (void)g;
  return DEBUG_STATUS_NO_CHANGE;
}
static HRESULT STDMETHODCALLTYPE ev_unload(IDebugEventCallbacks *s, PCSTR a, ULONG64 b) {
  (void)s, (void)a, (void)b;
  return DEBUG_STATUS_NO_CHANGE;
}
static HRESULT STDMETHODCALLTYPE ev_syserr(IDebugEventCallbacks *s, ULONG a, ULONG b) {
  (void)s, (void)a, (void)b;
  return DEBUG_STATUS_NO_CHANGE;
}
static HRESULT STDMETHODCALLTYPE ev_session(IDebugEventCallbacks *s, ULONG status) {
  (void)s;
  if (status == DEBUG_SESSION_END || status == DEBUG_SESSION_END_SESSION_ACTIVE_TERMINATE ||
      status == DEBUG_SESSION_END_SESSION_ACTIVE_DETACH ||
      status == DEBUG_SESSION_END_SESSION_PASSIVE)
    InterlockedExchange(&g_session_over, 1);
  return S_OK;
}
static HRESULT STDMETHODCALLTYPE ev_state(IDebugEventCallbacks *s, ULONG a, ULONG64 b) {
  (void)s, (void)a, (void)b;
  return S_OK;
}
static IDebugEventCallbacksVtbl g_ev_vtbl = {
    ev_query, ev_addref, ev_release, ev_mask,   ev_bp,      ev_exc,     ev_cthread,
    ev_xthread, ev_cproc, ev_xproc,  ev_load,   ev_unload,  ev_syserr,  ev_session,
    ev_state,   ev_state, ev_state};
static IDebugEventCallbacks g_ev = {&g_ev_vtbl};

/* ---- Ctrl-C ------------------------------------------------------------------------------- */

static BOOL WINAPI on_ctrl(DWORD type) {
  if (type == CTRL_C_EVENT || type == CTRL_BREAK_EVENT) {
    if (g_control) g_control->lpVtbl->SetInterrupt(g_control, DEBUG_INTERRUPT_ACTIVE);
    return TRUE;
  }
  return FALSE;
}

/* ---- helpers ------------------------------------------------------------------------------ */

static void say(const char *format, ...) {
  char text[1024];
  va_list args;
  va_start(args, format);
  vsnprintf(text, sizeof text, format, args);
  va_end(args);
  write_out(text);
}

static int fail(const char *what, HRESULT hr) {
  say("dbgeng-host: %s failed, HRESULT 0x%08lx\n", what, (unsigned long)hr);
  flush_out();
  return 1;
}

/* Waits until the target stops again (or the session ends). Returns 0 when a prompt makes sense. */
static int wait_stop(void) {
  for (;;) {
    flush_out();
    HRESULT hr = g_control->lpVtbl->WaitForEvent(g_control, DEBUG_WAIT_DEFAULT, INFINITE);
    ULONG status = DEBUG_STATUS_NO_DEBUGGEE;
    g_control->lpVtbl->GetExecutionStatus(g_control, &status);
    if (status == DEBUG_STATUS_NO_DEBUGGEE || g_session_over) return 1;
    if (FAILED(hr) && hr != E_PENDING) return status == DEBUG_STATUS_BREAK ? 0 : 1;
    if (status == DEBUG_STATUS_BREAK) return 0;
  }
}

static int is_go(ULONG status) {
  return status == DEBUG_STATUS_GO || status == DEBUG_STATUS_GO_HANDLED ||
         status == DEBUG_STATUS_GO_NOT_HANDLED || status == DEBUG_STATUS_STEP_OVER ||
         status == DEBUG_STATUS_STEP_INTO || status == DEBUG_STATUS_STEP_BRANCH;
}

/* A whole word `q`, `qq` or `qd` (cdb's quit commands), possibly after blanks. */
static const char *quit_word(const char *line) {
  while (*line == ' ' || *line == '\t') line++;
  if (strcmp(line, "q") == 0 || strcmp(line, "qq") == 0) return "q";
  if (strcmp(line, "qd") == 0) return "qd";
  return NULL;
}

static void usage(void) {
  write_out("usage: dbgeng-host [-y path] [-c cmds] [-snul] [-g] [-G]\n"
        "                   (-z dump | -p pid | -pn name) [-pv] [-pd] | program [args]\n"
        "A test fixture for cdb-harness; real users run cdb.exe.\n");
}

/* Under Wine a child started on a pseudo console (node-pty's ConPTY backend, as Windows node
   uses it) starts with NULL standard handles: Wine's conhost does not fill them in
   (init_console in dlls/kernelbase/console.c, https://gitlab.winehq.org/wine/wine), where
   Windows gives a ConPTY child its console handles. Writing to or reading from NULL fails with
   ERROR_INVALID_HANDLE and the host would print nothing. The console is there all the same:
   open it by name, as a console program may (CreateFile "CONIN$"/"CONOUT$",
   https://learn.microsoft.com/windows/console/console-handles), and make it stdin/stdout.
   With real handles (a Unix pty under plain wine, Windows) nothing changes. */
/* One line of input from the standard input handle, without its line break; 0 at its end. Read
   with ReadFile rather than msvcrt's stdin, which was set up from the NULL handle at start. */
static int read_line(char *line, size_t size) {
  static char buf[8192];
  static DWORD have, at;
  size_t used = 0;
  for (;;) {
    if (at == have) {
      at = have = 0;
      if (!ReadFile(GetStdHandle(STD_INPUT_HANDLE), buf, sizeof buf, &have, NULL) || have == 0)
        return used > 0;
    }
    char c = buf[at++];
    if (c == '\n') break;
    if (used + 1 < size) line[used++] = c;
  }
  line[used] = '\0';
  return 1;
}

static void open_console_if_no_std_handles(void) {
  HANDLE in = GetStdHandle(STD_INPUT_HANDLE), out = GetStdHandle(STD_OUTPUT_HANDLE);
  if (out == NULL || out == INVALID_HANDLE_VALUE) {
    HANDLE con = CreateFileA("CONOUT$", GENERIC_READ | GENERIC_WRITE,
                             FILE_SHARE_READ | FILE_SHARE_WRITE, NULL, OPEN_EXISTING, 0, NULL);
    if (con != INVALID_HANDLE_VALUE) {
      SetStdHandle(STD_OUTPUT_HANDLE, con);
      SetStdHandle(STD_ERROR_HANDLE, con);
    }
  }
  if (in == NULL || in == INVALID_HANDLE_VALUE) {
    HANDLE con = CreateFileA("CONIN$", GENERIC_READ | GENERIC_WRITE,
                             FILE_SHARE_READ | FILE_SHARE_WRITE, NULL, OPEN_EXISTING, 0, NULL);
    if (con != INVALID_HANDLE_VALUE) {
      /* Lines, no echo: the harness reads the engine's own echo of each command, as the Linux
         wrapper's `stty -echo` arranges (scripts/setup-dbgeng.sh). */
      SetConsoleMode(con, ENABLE_LINE_INPUT | ENABLE_PROCESSED_INPUT);
      SetStdHandle(STD_INPUT_HANDLE, con);
    }
  }
}

int main(int argc, char **argv) {
  open_console_if_no_std_handles();
  const char *dump = NULL, *pname = NULL, *sympath = NULL, *initial = NULL;
  ULONG pid = 0;
  int noninvasive = 0, detach = 0, snul = 0, skip_initial = 0, skip_final = 0, i;
  char cmdline[8192] = "";
  atexit(flush_out);

  for (i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "-z") == 0 && i + 1 < argc) dump = argv[++i];
    else if (strcmp(a, "-p") == 0 && i + 1 < argc) pid = strtoul(argv[++i], NULL, 0);
    else if (strcmp(a, "-pn") == 0 && i + 1 < argc) pname = argv[++i];
    else if (strcmp(a, "-pv") == 0) noninvasive = 1;
    else if (strcmp(a, "-pd") == 0) detach = 1;
    else if (strcmp(a, "-y") == 0 && i + 1 < argc) sympath = argv[++i];
    else if (strcmp(a, "-c") == 0 && i + 1 < argc) initial = argv[++i];
    else if (strcmp(a, "-snul") == 0) snul = 1;
    else if (strcmp(a, "-g") == 0) skip_initial = 1;
    else if (strcmp(a, "-G") == 0) skip_final = 1;
    else if (strcmp(a, "-?") == 0 || strcmp(a, "--help") == 0) {
      usage();
      return 0;
    } else if (a[0] == '-') {
      say("dbgeng-host: unsupported option %s\n", a);
      usage();
      return 2;
    } else {
      /* The program and its arguments, quoted for CreateProcess. */
      for (; i < argc; i++) {
        size_t used = strlen(cmdline);
        snprintf(cmdline + used, sizeof cmdline - used, "%s\"%s\"", used ? " " : "", argv[i]);
      }
    }
  }
  if (!dump && !pid && !pname && !cmdline[0]) {
    usage();
    return 2;
  }

  HRESULT hr = DebugCreate(&IID_IDebugClient, (void **)&g_client);
  if (FAILED(hr)) return fail("DebugCreate", hr);
  hr = g_client->lpVtbl->QueryInterface(g_client, &IID_IDebugControl, (void **)&g_control);
  if (FAILED(hr)) return fail("QueryInterface(IDebugControl)", hr);
  hr = g_client->lpVtbl->QueryInterface(g_client, &IID_IDebugSymbols, (void **)&g_symbols);
  if (FAILED(hr)) return fail("QueryInterface(IDebugSymbols)", hr);
  g_client->lpVtbl->SetOutputCallbacks(g_client, &g_out);
  g_client->lpVtbl->SetEventCallbacks(g_client, &g_ev);
  SetConsoleCtrlHandler(on_ctrl, TRUE);

  if (sympath) g_symbols->lpVtbl->SetSymbolPath(g_symbols, sympath);
  if (snul) g_symbols->lpVtbl->AddSymbolOptions(g_symbols, SYMOPT_NO_UNQUALIFIED_LOADS);
  if (!skip_initial) g_control->lpVtbl->AddEngineOptions(g_control, DEBUG_ENGOPT_INITIAL_BREAK);
  if (!skip_final) g_control->lpVtbl->AddEngineOptions(g_control, DEBUG_ENGOPT_FINAL_BREAK);

  if (dump) {
    hr = g_client->lpVtbl->OpenDumpFile(g_client, dump);
    if (FAILED(hr)) return fail("OpenDumpFile", hr);
  } else if (pid || pname) {
    if (pname) {
      hr = g_client->lpVtbl->GetRunningProcessSystemIdByExecutableName(g_client, 0, pname,
                                                                       DEBUG_GET_PROC_ONLY_MATCH,
                                                                       &pid);
      if (FAILED(hr)) {
        say("Cannot find process '%s', HRESULT 0x%08lx\n", pname, (unsigned long)hr);
        return 1;
      }
    }
    if (detach) g_client->lpVtbl->AddProcessOptions(g_client, DEBUG_PROCESS_DETACH_ON_EXIT);
    hr = g_client->lpVtbl->AttachProcess(g_client, 0, pid,
                                         noninvasive ? DEBUG_ATTACH_NONINVASIVE
                                                     : DEBUG_ATTACH_DEFAULT);
    if (FAILED(hr)) {
      /* cdb's own wording, so the harness's attach-failure check recognises it. */
      say("Cannot debug pid %lu, HRESULT 0x%08lx\n", (unsigned long)pid,
              (unsigned long)hr);
      return 1;
    }
  } else {
    hr = g_client->lpVtbl->CreateProcess(g_client, 0, cmdline, DEBUG_ONLY_THIS_PROCESS);
    if (FAILED(hr)) return fail("CreateProcess", hr);
  }

  if (wait_stop() != 0) return 0;
  /* -pd once more, now that a process is attached: set before AttachProcess, the option did not
     reach the process's debug port here (a host killed outright, or ending on a closed stdin,
     still took the target down with it: wineserver applies DEBUG_KILL_ON_CLOSE); set again now,
     the target outlives the host, as DEBUG_PROCESS_DETACH_ON_EXIT promises ("the debugger
     automatically detaches itself from the target process when the debugger exits",
     https://learn.microsoft.com/windows-hardware/drivers/debugger/debug-process-xxx). */
  if (detach) g_client->lpVtbl->AddProcessOptions(g_client, DEBUG_PROCESS_DETACH_ON_EXIT);
  if (initial) g_control->lpVtbl->Execute(g_control, DEBUG_OUTCTL_THIS_CLIENT, initial,
                                          DEBUG_EXECUTE_ECHO);

  char line[8192];
  for (;;) {
    ULONG status = DEBUG_STATUS_BREAK;
    g_control->lpVtbl->GetExecutionStatus(g_control, &status);
    if (is_go(status)) {
      if (wait_stop() != 0) break;
      continue;
    }
    if (status == DEBUG_STATUS_NO_DEBUGGEE || g_session_over) break;
    g_control->lpVtbl->OutputPrompt(g_control, DEBUG_OUTCTL_THIS_CLIENT, " ");
    flush_out();
    if (!read_line(line, sizeof line)) {
      /* End of input (the harness is gone): end as `q` would, detaching under -pd. */
      if (detach) g_client->lpVtbl->EndSession(g_client, DEBUG_END_ACTIVE_DETACH);
      break;
    }
    line[strcspn(line, "\r\n")] = '\0';
    const char *quit = quit_word(line);
    if (quit) {
      ULONG how = (strcmp(quit, "qd") == 0 || detach) ? DEBUG_END_ACTIVE_DETACH
                                                      : DEBUG_END_ACTIVE_TERMINATE;
      write_out("quit:\n");
      g_client->lpVtbl->EndSession(g_client, how);
      break;
    }
    g_control->lpVtbl->Execute(g_control, DEBUG_OUTCTL_THIS_CLIENT, line, DEBUG_EXECUTE_DEFAULT);
  }
  g_client->lpVtbl->SetOutputCallbacks(g_client, NULL);
  g_client->lpVtbl->SetEventCallbacks(g_client, NULL);
  g_symbols->lpVtbl->Release(g_symbols);
  g_control->lpVtbl->Release(g_control);
  g_client->lpVtbl->Release(g_client);
  return 0;
}
