// What `gflags /i IMAGE [+flag|-flag]` prints about an image's global flags (IFEO GlobalFlag).
// Lines as published (Microsoft's GFlags examples; a user's `gflags.exe -i heapmfc.exe +ust`):
//   Current Registry Settings for heapmfc.exe executable are: 00001000
//       ust - Create user mode stack trace database
//   No Registry Settings for notepad.exe executable
// The second form is the text of ShowStatus() in ReactOS's gflags clone, which mirrors the tool.

/** FLG_USER_STACK_TRACE_DB: the `ust` flag, the stack-trace database umdh reads. */
export const FLG_USER_STACK_TRACE_DB = 0x1000;

export interface GflagsImageSettings {
  image: string | null;
  /** The GlobalFlag value; 0 when there are no settings; null when the output said neither. */
  flags: number | null;
  /** Flag abbreviations listed under the value (`ust`, `hpa`, `sls`…). */
  abbreviations: string[];
  ust: boolean;
  /** Lines that were not understood (e.g. an error message from gflags). */
  other: string[];
}

// Current Registry Settings for heapmfc.exe executable are: 00001000
const CURRENT_RE = /^\s*Current Registry Settings for (.+?) executable are:\s*([0-9a-f]{1,8})\s*$/i;
// No Registry Settings for notepad.exe executable
const NONE_RE = /^\s*No Registry Settings for (.+?) executable\s*$/i;
//     ust - Create user mode stack trace database
const FLAG_LINE_RE = /^\s+([a-z]{2,4}) - (.+?)\s*$/i;

export function parseGflagsImageOutput(text: string): GflagsImageSettings {
  const result: GflagsImageSettings = {
    image: null,
    flags: null,
    abbreviations: [],
    ust: false,
    other: [],
  };
  for (const line of text.split(/\r?\n/)) {
    if (line.trim() === '') continue;
    const current = CURRENT_RE.exec(line);
    if (current) {
      result.image = current[1] ?? null;
      result.flags = Number.parseInt(current[2] ?? '0', 16);
      continue;
    }
    const none = NONE_RE.exec(line);
    if (none) {
      result.image = none[1] ?? null;
      result.flags = 0;
      continue;
    }
    const flag = FLAG_LINE_RE.exec(line);
    if (flag && result.flags !== null) {
      result.abbreviations.push((flag[1] ?? '').toLowerCase());
      continue;
    }
    result.other.push(line.trim());
  }
  result.ust =
    result.flags !== null &&
    ((result.flags & FLG_USER_STACK_TRACE_DB) !== 0 || result.abbreviations.includes('ust'));
  return result;
}
