// `cdb-harness parse FILE [--command CMD] [--dialect cdb|winedbg] [--text]`: saved debugger output
// (or a whole session log) -> the records.md envelope, checked against
// schemas/parseEnvelope.schema.json before it is printed; `--text` prints a short readable summary.
import { once } from 'node:events';
import { createReadStream } from 'node:fs';
import type { CommandContext } from '../command-context.js';
import { ExitCode } from '../exit-codes.js';
import { ERROR_PREFIX } from '../error-output.js';
import { createParseTextStream } from '../../parsers/parse-text-stream.js';
import { summarize } from '../../parsers/registry.js';
import type {
  DebuggerEventRecord,
  Dialect,
  ParseEnvelope,
  ParsedEntry,
} from '../../parsers/records.js';
import { validate } from '../../report/schemas.js';
import { utf8Chunks } from '../../common/utf8-chunks.js';
import { failureCause } from '../../errors.js';

interface ParseOptions {
  command?: string;
  dialect?: string;
  text?: boolean;
  json?: boolean;
}

// Transcript headers (test/fixtures/transcripts) are skipped by the streaming parser.
export { stripTranscriptHeader } from '../../parsers/parse-text-stream.js';

export function registerParse(context: CommandContext): void {
  context.program
    .command('parse')
    .description('Parse saved debugger output (or a session log) into typed JSON records.')
    .argument('<file>', "a text file of cdb/winedbg output, or '-' for stdin")
    .option('-c, --command <cmd>', 'the command that produced FILE, when FILE has no prompt lines')
    .option('-d, --dialect <dialect>', 'cdb or winedbg (default: recognise both)')
    .option('--json', 'print the JSON envelope (the default; for scripts that say so)')
    .option('-t, --text', 'print a readable summary instead of JSON')
    .addHelpText(
      'after',
      `
A log with prompt lines (0:000> k, 0:000:x86> !heap -s, Wine-dbg>bt, dotnet-dump's > clrstack)
is split into one entry per command; the banner before the first prompt becomes a "startup"
entry. Without prompt lines the whole file is the output of --command; without --command either,
its kind is recognised from its content (k / bt stacks, lm, !heap -s, !heap -stat, !dumpheap
-stat, !eeheap -gc, !address -summary, !analyze -v, .exr, !pe, !clrstack, umdh logs and umdh
diffs). Output no parser knows is kept as kind "unknown" with the raw text. Exception banners found anywhere (e.g. in the output
of g) are listed in "events", in order. Transcript files (which start with '# source:',
as in the project's test/fixtures/transcripts) have their 5-line header skipped, and its '# command:' line is used as --command.

Examples:
  cdb-harness parse session.log                    JSON: {schemaVersion, entries[], events[]}
  cdb-harness parse session.log --json             the same (--json is accepted everywhere)
  cdb-harness parse snap1-snap2.txt --text         a umdh diff saved without a prompt line
  cdb-harness parse session.log --text             one block per command: kind and key facts
  cdb-harness parse heap.txt --command '!heap -s'  output saved without its prompt line
  cdb-harness parse bt.txt -c bt --dialect winedbg winedbg backtrace -> kind "stack"
  cdb … | cdb-harness parse - --text               read stdin

Exit codes: 0 parsed, 1 the file could not be read (missing, unreadable), 2 usage error (bad
option, --json with --text).`,
    )
    .action(async (file: string, options: ParseOptions) => {
      context.setExitCode(await runParse(file, options));
    });
}

/**
 * The input in chunks of text: stdin or the file, never read whole (issue 22). 1 MiB reads: the
 * 64 KiB strings of a long line, all kept until its end, were each copied by V8's young
 * generation collector (a 32 MB line: 182 MB peak and 1.3 s CPU, now 124 MB and 0.8 s).
 */
function openInput(file: string): AsyncIterable<string> {
  const bytes = file === '-' ? process.stdin : createReadStream(file, { highWaterMark: 512 << 10 });
  return utf8Chunks(bytes as AsyncIterable<Buffer>);
}

/** Writes `text` to stdout and waits while the pipe is full, so output never piles up in memory. */
async function emit(text: string): Promise<void> {
  if (text.length === 0) return;
  if (!process.stdout.write(text)) await once(process.stdout, 'drain');
}

/** The debugger text formats the parsers read (`--dialect`). */
const TEXT_DIALECTS: readonly Dialect[] = ['cdb', 'winedbg'];

function isTextDialect(name: string): name is Dialect {
  return (TEXT_DIALECTS as readonly string[]).includes(name);
}

export async function runParse(file: string, options: ParseOptions): Promise<number> {
  const dialect = options.dialect;
  if (dialect !== undefined && !isTextDialect(dialect)) {
    process.stderr.write(
      `${ERROR_PREFIX}--dialect must be ${TEXT_DIALECTS.join(' or ')}, not "${dialect}"\n`,
    );
    return ExitCode.Usage;
  }
  if (options.json === true && options.text === true) {
    process.stderr.write(`${ERROR_PREFIX}--json and --text exclude each other\n`);
    return ExitCode.Usage;
  }
  const text = options.text === true;
  // Each entry is checked against the envelope's schema (an envelope of that one entry) and
  // written as soon as the stream hands it over: output in the exact layout of
  // `JSON.stringify(envelope, null, 2)` (or of formatEnvelope), without building either whole.
  let out: string[] = [];
  let count = 0;
  let invalid: string[] | undefined;
  const stream = createParseTextStream(
    {
      transcriptHeader: true,
      ...(options.command !== undefined ? { command: options.command } : {}),
      ...(dialect !== undefined ? { dialect } : {}),
    },
    (entry) => {
      if (invalid !== undefined) return;
      const check = validate('parseEnvelope', { schemaVersion: 1, entries: [entry], events: [] });
      if (!check.ok) {
        invalid = check.errors;
        return;
      }
      if (text) out.push(`${formatEntry(entry, count)}\n\n`);
      else
        out.push(
          `${count === 0 ? '{\n  "schemaVersion": 1,\n  "entries": [\n' : ',\n'}${entryJson(entry)}`,
        );
      count++;
    },
  );
  const flush = async (): Promise<void> => {
    const pieces = out;
    out = [];
    await emit(pieces.join(''));
  };
  try {
    for await (const chunk of openInput(file)) {
      stream.write(chunk);
      if (invalid !== undefined) break;
      await flush();
    }
  } catch (error) {
    await flush();
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') {
      process.stderr.write(`${ERROR_PREFIX}no such file: ${file}\n`);
      return ExitCode.Failure;
    }
    process.stderr.write(`${ERROR_PREFIX}cannot read ${file}: ${failureCause(error)}\n`);
    return ExitCode.Failure;
  }
  const events = invalid === undefined ? stream.end() : [];
  if (invalid === undefined) {
    const check = validate('parseEnvelope', { schemaVersion: 1, entries: [], events });
    if (!check.ok) invalid = check.errors;
  }
  if (invalid !== undefined) {
    await flush();
    process.stderr.write(
      `${ERROR_PREFIX}internal error, output does not match schemas/parseEnvelope.schema.json:\n  ${invalid.join('\n  ')}\n`,
    );
    return ExitCode.Failure;
  }
  if (text) {
    out.push(`${formatEvents(events)}\n`);
  } else {
    const head = count === 0 ? '{\n  "schemaVersion": 1,\n  "entries": []' : '\n  ]';
    out.push(`${head},\n  "events": ${indentJson(events, '  ').trimStart()}\n}\n`);
  }
  await flush();
  return ExitCode.Ok;
}

/** `value` as `JSON.stringify(value, null, 2)` would print it nested at `indent`. */
function indentJson(value: unknown, indent: string): string {
  return `${indent}${JSON.stringify(value, null, 2).replace(/\n/g, `\n${indent}`)}`;
}

// The entry as it sits in the envelope's "entries" array, indented by JSON.stringify itself
// (a regex re-indenting each line costs as much as the stringify).
const ENTRY_HEAD = '{\n  "e": [\n'.length;
const ENTRY_TAIL = '\n  ]\n}'.length;

function entryJson(entry: ParsedEntry): string {
  const wrapped = JSON.stringify({ e: [entry] }, null, 2);
  return wrapped.slice(ENTRY_HEAD, wrapped.length - ENTRY_TAIL);
}

// ---- --text -------------------------------------------------------------------------------------

/** The readable summary: one block per entry (its parser's summary), then the events. */
export function formatEnvelope(envelope: ParseEnvelope): string {
  const blocks = envelope.entries.map((entry, i) => formatEntry(entry, i));
  return `${[...blocks, formatEvents(envelope.events)].join('\n\n')}\n`;
}

/** One entry's block of the readable summary; `index` counts from 0. */
function formatEntry(entry: ParsedEntry, index: number): string {
  const title = `[${index + 1}] ${entry.command ?? '(no command)'} -> ${entry.kind}`;
  const facts = summarize(entry).map((line) => `    ${line}`);
  const warnings = entry.record.warnings.length + entry.warnings.length;
  if (warnings > 0) facts.push(`    (${warnings} warning${warnings === 1 ? '' : 's'})`);
  return [title, ...facts].join('\n');
}

/** The summary's last block: the events, or `events: none`. */
function formatEvents(list: readonly DebuggerEventRecord[]): string {
  const events = list.map(
    (e) =>
      `  ${e.code ?? '?'} ${e.description}${e.chance ? ` (${e.chance} chance)` : ''}` +
      `${e.clrExceptionType ? ` ${e.clrExceptionType}` : ''}` +
      `${e.processId ? ` pid ${e.processId} tid ${e.threadId ?? '?'}` : ''}`,
  );
  const tail = events.length > 0 ? [`events (${events.length}):`, ...events] : ['events: none'];
  return tail.join('\n');
}
