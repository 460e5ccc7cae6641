// `--replay FILE.jsonl`: play back a session the engine's TranscriptRecorder captured (one JSON
// object per line, `{t, dir: 'in'|'out'|'exit', data}`), so a session a user records against the
// real cdb on Windows can run in CI. The replayer waits for the client to type what was typed in
// the recording, then prints what cdb printed.
//
// Markers differ between runs (the engine puts a random session tag in each), so typed input is
// matched line by line and every difference between a recorded line and the live one becomes a
// substitution applied to all later output. For `.printf "%c…", 0x…` markers the decoded text is
// mapped as well, since the output carries the decoded marker, not the char codes.
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { formatPrintf } from './command-line.js';
import type { OutputSink } from './console-output.js';

export interface ReplayRecord {
  t: number;
  dir: 'in' | 'out' | 'exit';
  data: string;
}

export function loadReplay(file: string): ReplayRecord[] {
  const records: ReplayRecord[] = [];
  const lines = readFileSync(file, 'utf8').split('\n');
  lines.forEach((line, index) => {
    if (line.trim() === '') return;
    const value = JSON.parse(line) as Partial<ReplayRecord>;
    if (
      typeof value.t !== 'number' ||
      (value.dir !== 'in' && value.dir !== 'out' && value.dir !== 'exit') ||
      typeof value.data !== 'string'
    ) {
      throw new Error(`${file}:${index + 1}: not a {t, dir, data} transcript record`);
    }
    records.push({ t: value.t, dir: value.dir, data: value.data });
  });
  return records;
}

/** Input units: a complete line (terminator dropped), a Ctrl-C, or a trailing partial line. */
type InputUnit =
  { kind: 'line'; text: string } | { kind: 'interrupt' } | { kind: 'partial'; text: string };

function inputUnits(data: string): InputUnit[] {
  const units: InputUnit[] = [];
  let current = '';
  for (let i = 0; i < data.length; i++) {
    const ch = data[i] ?? '';
    if (ch === '\x03') {
      units.push({ kind: 'interrupt' });
    } else if (ch === '\r' || ch === '\n') {
      units.push({ kind: 'line', text: current });
      current = '';
      if (ch === '\r' && data[i + 1] === '\n') i += 1;
    } else {
      current += ch;
    }
  }
  if (current !== '') units.push({ kind: 'partial', text: current });
  return units;
}

/** The part of `recorded` that differs from `live`, after their common prefix and suffix. */
function differingMiddle(recorded: string, live: string): [string, string] | null {
  if (recorded === live) return null;
  let start = 0;
  while (start < recorded.length && start < live.length && recorded[start] === live[start]) start++;
  let end = 0;
  while (
    end < recorded.length - start &&
    end < live.length - start &&
    recorded[recorded.length - 1 - end] === live[live.length - 1 - end]
  ) {
    end++;
  }
  // Whole words only: two random markers can share letters at the edge of where they differ
  // (recorded "…a2sa3", live "…a2ke3" differ in "sa"/"ke" alone), and a substitution that short
  // turned cdb's "SendMessageW" into "SendMeskegeW" in later output.
  const word = /\w/;
  while (start > 0 && word.test(recorded[start - 1] ?? '')) start--;
  while (end > 0 && word.test(recorded[recorded.length - end] ?? '')) end--;
  return [recorded.slice(start, recorded.length - end), live.slice(start, live.length - end)];
}

export class Replayer {
  private readonly substitutions = new Map<string, string>();
  private liveBuffer = '';
  private wake: (() => void) | undefined;
  private closed = false;
  private skipLineFeed = false;

  constructor(
    private readonly records: readonly ReplayRecord[],
    private readonly sink: OutputSink,
    input: NodeJS.ReadableStream,
  ) {
    input.on('data', (chunk: Buffer | string) => {
      this.liveBuffer += chunk.toString();
      this.wake?.();
    });
    input.on('end', () => {
      this.closed = true;
      this.wake?.();
    });
  }

  /** Plays the whole recording; resolves with the exit code to use (null: input closed first). */
  async run(): Promise<number | null> {
    for (const record of this.records) {
      if (record.dir === 'out') {
        this.sink.write(Buffer.from(this.substitute(record.data), 'utf8'));
        // Keep the recorded chunk boundaries visible to the reader as separate reads.
        await sleep(1);
      } else if (record.dir === 'in') {
        // The engine records how it spawned the debugger as a first 'in' record; nobody types it.
        if (record.data.startsWith('{"spawn":')) continue;
        if (!(await this.consume(record.data))) return null;
      } else {
        return exitCodeOf(record.data);
      }
    }
    return 0;
  }

  private substitute(text: string): string {
    let out = text;
    for (const [from, to] of this.substitutions) out = out.split(from).join(to);
    return out;
  }

  /** Wait until the client has typed the counterpart of `recorded`, and learn the differences. */
  private async consume(recorded: string): Promise<boolean> {
    for (const unit of inputUnits(recorded)) {
      const live = await this.nextLiveUnit(unit);
      if (live === null) return false;
      if (unit.kind !== 'interrupt' && live.kind !== 'interrupt') this.learn(unit.text, live.text);
    }
    return true;
  }

  private learn(recorded: string, live: string): void {
    const middle = differingMiddle(recorded, live);
    if (middle === null || middle[0] === '') return;
    this.substitutions.set(middle[0], middle[1]);
    // ".printf \"%c%c\\n\", 0x3d, 0x3c"
    const printf = /^\s*\.printf\b/;
    if (printf.test(recorded) && printf.test(live)) {
      try {
        const decoded = differingMiddle(formatPrintf(recorded.trim()), formatPrintf(live.trim()));
        if (decoded !== null && decoded[0] !== '') this.substitutions.set(decoded[0], decoded[1]);
      } catch {
        // Not a format we can evaluate: the raw substitution is all we have.
      }
    }
  }

  private async nextLiveUnit(expected: InputUnit): Promise<InputUnit | null> {
    for (;;) {
      const unit = this.takeLiveUnit(expected);
      if (unit !== null) return unit;
      if (this.closed) return null;
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = undefined;
    }
  }

  private takeLiveUnit(expected: InputUnit): InputUnit | null {
    const buffer = this.liveBuffer;
    if (expected.kind === 'interrupt') {
      const at = buffer.indexOf('\x03');
      if (at < 0) return null;
      this.liveBuffer = buffer.slice(0, at) + buffer.slice(at + 1);
      return { kind: 'interrupt' };
    }
    if (expected.kind === 'partial') {
      if (buffer.length < expected.text.length) return null;
      this.liveBuffer = buffer.slice(expected.text.length);
      return { kind: 'partial', text: buffer.slice(0, expected.text.length) };
    }
    if (this.skipLineFeed && buffer.startsWith('\n')) {
      this.liveBuffer = buffer.slice(1);
      this.skipLineFeed = false;
      return this.takeLiveUnit(expected);
    }
    // "CMD\r", "CMD\r\n", "CMD\n"
    const match = /^([^\r\n]*)(\r\n|\r|\n)/.exec(buffer);
    if (match === null) return null;
    const raw = match[1] ?? '';
    const rest = buffer.slice(raw.length + (match[2] ?? '').length);
    // A "\r" that ends the buffer may still get its "\n" in the next chunk.
    this.skipLineFeed = match[2] === '\r' && rest === '';
    // A Ctrl-C typed in the middle of a line stays pending for the recording's own '\x03'.
    const interrupts = raw.split('\x03').length - 1;
    this.liveBuffer = '\x03'.repeat(interrupts) + rest;
    return { kind: 'line', text: raw.split('\x03').join('') };
  }
}

function exitCodeOf(data: string): number {
  // "0", "{\"exitCode\":0,\"signal\":null}"
  try {
    const value = JSON.parse(data) as unknown;
    if (typeof value === 'number') return value;
    if (typeof value === 'object' && value !== null && 'exitCode' in value) {
      if (typeof value.exitCode === 'number') return value.exitCode;
    }
  } catch {
    // Not JSON: fall through.
  }
  const n = Number.parseInt(data, 10);
  return Number.isFinite(n) ? n : 0;
}
