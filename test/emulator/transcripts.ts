// Where the emulator's words come from: real transcript bodies under test/fixtures/transcripts.
// A scenario never carries reply text of its own; it names a transcript file and, optionally, the
// slice of its body to print. This keeps every byte the emulator prints traceable to INDEX.md.
import { readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { TRANSCRIPTS_DIR } from '../helpers/transcripts-dir.js';

/** test/fixtures/transcripts. */
export function transcriptsDir(): string {
  return TRANSCRIPTS_DIR;
}

/**
 * A slice of one transcript body. Anchors are 1-based body line numbers (the line after `# ---`
 * is line 1) or a literal text the wanted line contains; `from` picks the first match, `to` the
 * first match at or after `from` (inclusive).
 */
export interface TextSource {
  transcript: string;
  from?: number | string;
  to?: number | string;
  /**
   * Keep a first line that is the debugger's own `0:000> cmd` echo. Off by default: the emulator
   * echoes the command itself, so the body's copy would print it twice.
   */
  keepCommandLine?: boolean;
  /**
   * Keep going past a later `0:000> ` line. Off by default, because many bodies hold several
   * commands and a reply must end where the next command begins.
   */
  throughPrompts?: boolean;
  /**
   * Remove up to this many leading spaces from each line: for bodies whose publisher indented
   * every line (the INDEX notes say which, e.g. the ADPlus `.dump` failure).
   */
  dedent?: number;
}

const HEADER_END = '# ---';

// "0:000> .loadby sos clr", "1:014:x86> cdb: Reading initial command ...", "0:000>"
const PROMPT_LINE = /^(?:\d+|\?):(?:\d+|\?\?\?)(?::x86)?>(?: |$)/;

const bodyCache = new Map<string, string[]>();

/** The body lines of a transcript file (header removed, CRLF or LF, no line terminators). */
export function transcriptBody(relativePath: string): string[] {
  const cached = bodyCache.get(relativePath);
  if (cached !== undefined) return cached;
  if (isAbsolute(relativePath) || relativePath.split(/[\\/]/).includes('..')) {
    throw new Error(`transcript path must be relative to the transcripts dir: ${relativePath}`);
  }
  const file = join(transcriptsDir(), relativePath);
  const text = readFileSync(file, 'utf8');
  const lines = text.split(/\r?\n/);
  const headerEnd = lines.indexOf(HEADER_END);
  if (headerEnd < 0) throw new Error(`${file}: no '# ---' header terminator`);
  const body = lines.slice(headerEnd + 1);
  // A file's final newline is not an extra empty line of output.
  if (body.length > 0 && body[body.length - 1] === '') body.pop();
  bodyCache.set(relativePath, body);
  return body;
}

export function isPromptLine(line: string): boolean {
  return PROMPT_LINE.test(line);
}

function findAnchor(
  body: readonly string[],
  anchor: number | string,
  startIndex: number,
  file: string,
): number {
  if (typeof anchor === 'number') {
    if (!Number.isInteger(anchor) || anchor < 1 || anchor > body.length) {
      throw new Error(`${file}: line ${anchor} is outside the body (1..${body.length})`);
    }
    return anchor - 1;
  }
  for (let i = startIndex; i < body.length; i++) {
    if (body[i]?.includes(anchor) === true) return i;
  }
  throw new Error(`${file}: no body line contains ${JSON.stringify(anchor)}`);
}

/** The lines a source selects, ready to print (without line terminators). */
export function resolveText(source: TextSource): string[] {
  const body = transcriptBody(source.transcript);
  let start = source.from === undefined ? 0 : findAnchor(body, source.from, 0, source.transcript);
  const explicitEnd =
    source.to === undefined ? undefined : findAnchor(body, source.to, start, source.transcript);
  if (source.keepCommandLine !== true && isPromptLine(body[start] ?? '')) start += 1;
  let end = explicitEnd ?? body.length - 1;
  if (source.throughPrompts !== true) {
    for (let i = start; i <= end; i++) {
      if (isPromptLine(body[i] ?? '')) {
        end = i - 1;
        break;
      }
    }
  }
  const lines = body.slice(start, end + 1);
  const dedent = source.dedent ?? 0;
  if (dedent <= 0) return lines;
  return lines.map((line) => {
    let cut = 0;
    while (cut < dedent && line[cut] === ' ') cut++;
    return line.slice(cut);
  });
}

/** Exactly one line: for symbol-noise text and endless-output lines. */
export function resolveLine(source: TextSource): string {
  const lines = resolveText({ ...source, to: source.to ?? source.from ?? 1 });
  const line = lines[0];
  if (lines.length !== 1 || line === undefined) {
    throw new Error(`${source.transcript}: expected one line, the source selects ${lines.length}`);
  }
  return line;
}
