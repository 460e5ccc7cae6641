// Debugger prompts, as they appear at the start of a line in saved logs. split-log.ts cuts a log
// into commands with them; single-command parsers use them to skip the echoed command line.

// cdb/ntsd/WinDbg user mode, WoW64, multi-system and kernel prompts:
//   0:000> !heap -s
//   1:014:x86> cdb: Reading initial command sxd wos; sxd wob; !analyze -v; k; r; ub; q
//   1:0:011> !heap -l
//   0: kd> k
// cdb that lost track of its target prints `?:???> ` (SkyLined/mBugId accepts it for that reason,
// cCdbWrapper_fasbReadOutput.py, https://github.com/SkyLined/mBugId).
export const CDB_PROMPT_RE =
  /^\s*((?:\d+|\?):(?:\d+|\?\?\?)(?::\d+)?(?::x86)?>|\d+: kd>)(?: (.*)|$)/;

// winedbg, with the command right after it (pty echo) or alone:
//   Wine-dbg>info share
export const WINEDBG_PROMPT_RE = /^(Wine-dbg>)(.*)$/;

// dotnet-dump analyze (and authors' console prompts): `> clrstack -all`. Only a command that
// starts like one; `>  338:     auto location` in !analyze source listings is not a prompt.
export const DOTNET_PROMPT_RE = /^(>) ([A-Za-z!.~][^\r\n]*)$/;

/** True for a cdb or winedbg prompt line (the echo of a command). */
export function isPromptLine(line: string): boolean {
  return CDB_PROMPT_RE.test(line) || WINEDBG_PROMPT_RE.test(line);
}

/** Drops leading blank lines and one leading prompt line: the echo of the command itself. */
export function dropEcho(lines: readonly string[]): string[] {
  let start = 0;
  while (start < lines.length && (lines[start] ?? '').trim().length === 0) start++;
  const first = lines[start];
  if (first !== undefined && (isPromptLine(first) || DOTNET_PROMPT_RE.test(first))) start++;
  return lines.slice(start);
}
