// `parseText` fed in chunks (issue 22, "`parse` memory"): a log full of prompts is split as it
// arrives and each command's entry is handed out as soon as the next prompt (or the end) closes
// it, so memory holds one command's output at a time, not the log, its lines and all its records.
// The entries, their order and the events are those `parseText` gives for the whole text (the
// tests compare both on every transcript). Pure: the caller reads and writes.
//
// Until the first prompt line that fixes the prompt shapes (see split-log.ts: `> cmd` is a
// dotnet-dump prompt only in a text with no cdb/winedbg prompt at all), the raw text is kept; a text
// that never shows one is handed whole to `parseText` at the end, as before.
import { findDebuggerEvents } from './debugger-event.js';
import { parseText, entryForOutput, startupOrUnknown } from './parse-text.js';
import type { DebuggerEventRecord, Dialect, ParsedEntry } from './records.js';
import { promptMatchers, readPromptLine, type PromptMatcher } from './split-log.js';

export interface ParseTextStreamOptions {
  /** The command whose output the text is, when the text has no prompt lines. */
  command?: string;
  dialect?: Dialect;
  /** Skip a transcript header (`# source:` … `# ---`, as `stripTranscriptHeader` does). */
  transcriptHeader?: boolean;
}

export interface ParseTextStream {
  /** The next piece of text; complete entries go to `onEntry` before this returns. */
  write(chunk: string): void;
  /** The end of the text: the last entries go to `onEntry`; returns the events, in order. */
  end(): DebuggerEventRecord[];
}

const HEADER_START = '# source:';
// The header's last line and its command line (test/fixtures/transcripts/*):
//   # ---
//   # command: ~0s ; k
const HEADER_END_RE = /^# ---\s*$/;
const HEADER_COMMAND_RE = /^# command: (.*)$/;

export function createParseTextStream(
  options: ParseTextStreamOptions,
  onEntry: (entry: ParsedEntry) => void,
): ParseTextStream {
  const { dialect } = options;
  // A line that fixes the prompt shapes: a cdb or winedbg prompt (split-log.ts).
  const deciding = promptMatchers(dialect);
  const events: DebuggerEventRecord[] = [];
  let raw: string[] | undefined = []; // every chunk, until the prompt shapes are known
  // The unterminated end of the chunks so far, in pieces: joined once, when its line ends. Joined
  // at every chunk (`rest + chunk`, then a search from its start) a 32 MB line cost 46 s.
  let rest: string[] = [];
  let lineCount = 0;
  let inHeader = false;
  let headerCommand: string | undefined;
  let pending: string[] = []; // lines before the first deciding prompt
  let matchers: PromptMatcher[] | undefined;
  let command: string | null = null;
  let blank = true; // the open section's command and output are empty so far
  let output: string[] = [];

  const collect = (entry: ParsedEntry, text: string): void => {
    onEntry(entry);
    if (entry.kind !== 'lastEvent') {
      for (const event of findDebuggerEvents(text, dialect)) events.push(event);
    }
  };
  const closeSection = (): void => {
    const text = output.join('\n');
    output = [];
    // A bare prompt with nothing after it (the last line of a session) is no entry.
    if (blank && text.trim().length === 0) return;
    collect(entryForOutput(command, text), text);
  };
  const openSection = (line: string, found: PromptMatcher[]): void => {
    const prompt = readPromptLine(line, found);
    if (prompt === null) return;
    command = prompt.command.length > 0 ? prompt.command : null;
    blank = prompt.command.length === 0;
  };

  const onLine = (line: string): void => {
    const index = lineCount++;
    if (index === 0 && options.transcriptHeader === true && line.startsWith(HEADER_START)) {
      inHeader = true;
    }
    if (inHeader) {
      if (HEADER_END_RE.test(line)) {
        inHeader = false;
      } else if (headerCommand === undefined) {
        headerCommand = HEADER_COMMAND_RE.exec(line)?.[1]?.trim();
      }
      return;
    }
    if (matchers === undefined) {
      if (readPromptLine(line, deciding) === null) {
        pending.push(line);
        return;
      }
      matchers = deciding;
      raw = undefined;
      const preamble = pending.join('\n');
      pending = [];
      if (preamble.trim().length > 0) collect(startupOrUnknown(preamble), preamble);
      openSection(line, matchers);
      return;
    }
    if (readPromptLine(line, matchers) === null) {
      output.push(line);
      return;
    }
    closeSection();
    openSection(line, matchers);
  };

  const splitChunk = (text: string, from: number): void => {
    let start = from;
    for (;;) {
      const end = text.indexOf('\n', start);
      if (end === -1) break;
      const line = text.slice(start, end);
      onLine(line.includes('\r') ? line.replace(/\r/g, '') : line);
      start = end + 1;
    }
    rest = start < text.length ? [text.slice(start)] : [];
  };

  return {
    write(chunk: string): void {
      if (chunk.length === 0) return;
      raw?.push(chunk);
      const first = chunk.indexOf('\n');
      if (first < 0) {
        rest.push(chunk);
        return;
      }
      let from = 0;
      if (rest.length > 0) {
        // The line the chunks so far left open, joined once on its own: `rest.join('') + chunk`
        // copied a 32 MB line twice (the join, then the search that flattened the sum), and
        // each copy cost a garbage collection (bench/parse-long-line.ts).
        rest.push(chunk.slice(0, first));
        const line = rest.join('');
        rest = [];
        onLine(line.includes('\r') ? line.replace(/\r/g, '') : line);
        from = first + 1;
      }
      splitChunk(chunk, from);
    },
    end(): DebuggerEventRecord[] {
      // The last line, even empty: `splitLines` gives a '' after a final LF, and a section's
      // output keeps it (`k` then LF at the end of a file is "…\n").
      const last = rest.join('');
      onLine(last.includes('\r') ? last.replace(/\r/g, '') : last);
      rest = [];
      if (matchers !== undefined) {
        closeSection();
        return events;
      }
      // No deciding prompt: the text is read whole, exactly as parseText reads it.
      let text = (raw ?? []).join('');
      raw = undefined;
      pending = [];
      let fromHeader: string | undefined;
      if (options.transcriptHeader === true) {
        const stripped = stripTranscriptHeader(text);
        text = stripped.body;
        fromHeader = stripped.command;
      }
      const wanted = options.command ?? fromHeader;
      const envelope = parseText(text, {
        ...(wanted !== undefined ? { command: wanted } : {}),
        ...(dialect !== undefined ? { dialect } : {}),
      });
      for (const entry of envelope.entries) onEntry(entry);
      return envelope.events;
    },
  };
}

/** Splits off a transcript header; `command` is its `# command:` line when there is one. */
export function stripTranscriptHeader(text: string): { body: string; command?: string } {
  if (!text.startsWith(HEADER_START)) return { body: text };
  const lines = text.split('\n');
  const end = lines.findIndex((line) => HEADER_END_RE.test(line.replace(/\r$/, '')));
  if (end < 0) return { body: text };
  const header = lines.slice(0, end).map((l) => HEADER_COMMAND_RE.exec(l.replace(/\r$/, '')));
  const command = header.find((m) => m !== null)?.[1]?.trim();
  const body = lines.slice(end + 1).join('\n');
  return command === undefined ? { body } : { body, command };
}
