// One FUNC record of a Breakpad .sym file with the line and INLINE records under it, as a lookup
// reads it again (breakpad-sym.ts keeps only where each FUNC block is): the block parsed, its line
// records sorted by address, and the answer it gives for an address. Record grammar:
// https://chromium.googlesource.com/breakpad/breakpad/+/HEAD/docs/symbol_files.md
import type { SymbolLookup } from './lookup-types.js';

export interface Func {
  rva: number;
  size: number;
  name: string;
  /** Line records: parallel arrays sorted by address. */
  lineRvas: number[];
  lineEnds: number[];
  lineNumbers: number[];
  lineFiles: number[];
  inlines: Inline[];
}

export interface Inline {
  depth: number;
  callLine: number;
  callFile: number;
  origin: number;
  ranges: [number, number][];
}

export interface InlineFrame {
  function: string;
  /** Where the inlined call sits in its caller. */
  callFile?: string;
  callLine: number;
}

export interface BreakpadLookup extends SymbolLookup {
  /** Inlined calls active at the address, outermost first. */
  inlines?: InlineFrame[];
}

// Sample: "FUNC m 1690 30 0 store_value" (hex address, size, parameter size; `m` optional)
const FUNC = /^FUNC (?:m )?([0-9a-fA-F]+) ([0-9a-fA-F]+) ([0-9a-fA-F]+) (.*)$/;
// Sample: "16af 8 5 1" (hex address, hex size, decimal line, decimal file number)
const LINE = /^([0-9a-fA-F]+) ([0-9a-fA-F]+) (-?\d+) (\d+)$/;
// Sample: "INLINE 0 12 1 3 16a0 8 16b0 4" (depth, call line, call file, origin, then hex ranges)
const INLINE = /^INLINE (\d+) (\d+) (\d+) (\d+)((?: [0-9a-fA-F]+ [0-9a-fA-F]+)+)$/;

/** A FUNC's answer at `rva`: its line (`line` an index into its line records, -1 for none). */
export function functionHit(
  f: Func,
  rva: number,
  file: string | undefined,
  line: number,
  inlines: InlineFrame[] | undefined,
): BreakpadLookup {
  return {
    function: f.name,
    functionOffset: rva - f.rva,
    kind: 'function',
    ...(file === undefined ? {} : { file }),
    ...(line >= 0 ? { line: f.lineNumbers[line] ?? 0 } : {}),
    ...(inlines === undefined ? {} : { inlines }),
  };
}

export function parseFuncBlock(bytes: Buffer): Func | undefined {
  let current: Func | undefined;
  let start = 0;
  while (start < bytes.length) {
    let end = bytes.indexOf(10, start);
    if (end === -1) end = bytes.length;
    const raw = bytes.toString('utf8', start, end > start && bytes[end - 1] === 13 ? end - 1 : end);
    start = end + 1;
    if (raw.length === 0) continue;
    if (current === undefined) {
      const m = FUNC.exec(raw);
      if (!m) return undefined;
      current = {
        rva: parseInt(m[1] ?? '', 16),
        size: parseInt(m[2] ?? '', 16),
        name: m[4] ?? '',
        lineRvas: [],
        lineEnds: [],
        lineNumbers: [],
        lineFiles: [],
        inlines: [],
      };
      continue;
    }
    const line = LINE.exec(raw);
    if (line) {
      const rva = parseInt(line[1] ?? '', 16);
      current.lineRvas.push(rva);
      current.lineEnds.push(rva + parseInt(line[2] ?? '', 16));
      current.lineNumbers.push(Number(line[3]));
      current.lineFiles.push(Number(line[4]));
      continue;
    }
    const m = INLINE.exec(raw);
    if (!m) continue;
    const numbers = (m[5] ?? '')
      .trim()
      .split(' ')
      .map((h) => parseInt(h, 16));
    const ranges: [number, number][] = [];
    for (let i = 0; i + 1 < numbers.length; i += 2) {
      ranges.push([numbers[i] ?? 0, (numbers[i] ?? 0) + (numbers[i + 1] ?? 0)]);
    }
    current.inlines.push({
      depth: Number(m[1]),
      callLine: Number(m[2]),
      callFile: Number(m[3]),
      origin: Number(m[4]),
      ranges,
    });
  }
  if (current) sortLines(current);
  return current;
}

function sortLines(f: Func): void {
  const order = f.lineRvas
    .map((_, i) => i)
    .sort((a, b) => (f.lineRvas[a] ?? 0) - (f.lineRvas[b] ?? 0));
  const pick = (values: number[]) => order.map((i) => values[i] ?? 0);
  f.lineRvas = pick(f.lineRvas);
  f.lineEnds = pick(f.lineEnds);
  f.lineNumbers = pick(f.lineNumbers);
  f.lineFiles = pick(f.lineFiles);
}
