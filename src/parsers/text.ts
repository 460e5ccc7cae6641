// Small pure helpers every parser shares: line splitting, the records' value conventions
// (hex, codes, ids) and the removal of symbol-load noise that cdb prints into other output.

/** Splits on LF, dropping a CR run before it (`\r\n` and the pty's `\r\r\n`) and lone CRs. */
export function splitLines(text: string): string[] {
  // Split on the LF alone (a plain search), then every CR goes, as the CR run before each LF
  // would: `split(/\r*\n/)` ran the regex at every character, a fifth of the parse of a 32 MB
  // line (bench/parse-long-line.ts).
  return text.split('\n').map((line) => (line.includes('\r') ? line.replace(/\r/g, '') : line));
}

// "00007ff8`846c0000", "0x0000003a9acfed28", "77c9e78a"
const HEX_RE = /^(?:0x)?([0-9a-f`]+)$/i;

/**
 * The records' address convention (records.ts): `0x` + lower-case hex, backtick removed, no zero padding
 * (`00007ff8`846c0000` -> `0x7ff8846c0000`). Returns null when `raw` is not hex.
 */
export function normalizeHex(raw: string): string | null {
  const match = HEX_RE.exec(raw.trim());
  if (match?.[1] === undefined) return null;
  const digits = match[1].replace(/`/g, '').replace(/^0+(?=.)/, '');
  if (digits.length === 0) return null;
  return `0x${digits.toLowerCase()}`;
}

/** Exception codes and HRESULTs: `0x` + exactly 8 lower-case hex digits (`c0000005` -> `0xc0000005`). */
export function normalizeCode(raw: string): string | null {
  const hex = normalizeHex(raw);
  if (hex === null || hex.length > 10) return null;
  return `0x${hex.slice(2).padStart(8, '0')}`;
}

/** Ids from banners `(5fc4.6320)`: `0x5fc4`; same as an address. */
export const normalizeId = normalizeHex;

/** Parses a decimal or hex (`0x…`) number; null when it is neither. */
export function parseNumber(raw: string): number | null {
  const text = raw.trim().replace(/,/g, '');
  if (/^0x[0-9a-f`]+$/i.test(text)) return Number.parseInt(text.slice(2).replace(/`/g, ''), 16);
  if (/^-?\d+$/.test(text)) return Number.parseInt(text, 10);
  return null;
}

// Symbol-load noise can arrive as whole lines or cut into the middle of a line (BugId's
// "line interrupted by cdb error"); seen in the transcripts:
//   *** ERROR: Module load completed but symbols could not be loaded for vssdk_full.exe
//   *** WARNING: Unable to verify checksum for MySimpleConApp.exe
//   DBGHELP: e:/symbols*http://sym.ax2401.com:9999/symbols/ is not a valid store
//   WARNING: Stack unwind information not available. Following frames may be wrong.
//   WARNING: Frame IP not in any known module. Following frames may be wrong.
const NOISE_START_RE = /\*\*\* (?:ERROR|WARNING): |DBGHELP: /;
const NOISE_LINE_RE =
  /^(?:\*\*\* (?:ERROR|WARNING): |DBGHELP: |WARNING: (?:Stack unwind information not available|Frame IP not in any known module)\b)/;

export function isNoiseLine(line: string): boolean {
  return NOISE_LINE_RE.test(line.trimStart());
}

export interface CleanLines {
  /** The output with noise lines removed and interrupted lines joined back together. */
  lines: string[];
  /** The noise, one entry per noise text, in order. */
  noise: string[];
}

/**
 * Removes symbol-load noise. A line like
 *   `0000003a9acfef00 00007ffce4f7063c *** WARNING: Unable to verify checksum for X.exe`
 * followed by `X.Program.Main(System.String[]) [...]` is one frame row that the warning cut in
 * two: the part before the noise is joined with the next line.
 */
export function removeSymbolNoise(lines: readonly string[]): CleanLines {
  const out: string[] = [];
  const noise: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (isNoiseLine(line)) {
      noise.push(line.trim());
      continue;
    }
    const at = line.search(NOISE_START_RE);
    if (at > 0 && line.slice(0, at).trim().length > 0) {
      noise.push(line.slice(at).trim());
      const next = lines[i + 1];
      if (next !== undefined && !isNoiseLine(next) && next.trim().length > 0) {
        out.push(line.slice(0, at) + next.trimStart());
        i++;
      } else {
        out.push(line.slice(0, at).trimEnd());
      }
      continue;
    }
    out.push(line);
  }
  return { lines: out, noise };
}
