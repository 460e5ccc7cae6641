// `cdb-harness parse FILE [--command CMD] [--dialect cdb|winedbg] [--text]`: saved debugger output
// (or a whole session log) -> the records.md envelope, checked against
// schemas/parseEnvelope.schema.json before it is printed; `--text` prints a short readable summary.
import { readFile } from 'node:fs/promises';
import type { CommandContext } from '../command-context.js';
import { ExitCode } from '../exit-codes.js';
import { ERROR_PREFIX } from '../error-output.js';
import { parseText } from '../../parsers/parse-text.js';
import { summarize } from '../../parsers/registry.js';
import type { ParseEnvelope } from '../../parsers/records.js';
import { validate } from '../../report/schemas.js';

interface ParseOptions {
  command?: string;
  dialect?: string;
  text?: boolean;
  json?: boolean;
}

// Transcript files (test/fixtures/transcripts in this repository) start with a 5-line header:
//   # source: …  /  # tool: …  /  # command: …  /  # notes: …  /  # ---
const HEADER_START = '# source:';
const HEADER_END_RE = /^# ---\s*$/;
const HEADER_COMMAND_RE = /^# command: (.*)$/;

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

async function readInput(file: string): Promise<string> {
  if (file === '-') {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  }
  return readFile(file, 'utf8');
}

export async function runParse(file: string, options: ParseOptions): Promise<number> {
  const dialect = options.dialect;
  if (dialect !== undefined && dialect !== 'cdb' && dialect !== 'winedbg') {
    process.stderr.write(`${ERROR_PREFIX}--dialect must be cdb or winedbg, not "${dialect}"\n`);
    return ExitCode.Usage;
  }
  if (options.json === true && options.text === true) {
    process.stderr.write(`${ERROR_PREFIX}--json and --text exclude each other\n`);
    return ExitCode.Usage;
  }
  let text: string;
  try {
    text = await readInput(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') {
      process.stderr.write(`${ERROR_PREFIX}no such file: ${file}\n`);
      return ExitCode.Failure;
    }
    process.stderr.write(
      `${ERROR_PREFIX}cannot read ${file}: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    return ExitCode.Failure;
  }
  const { body, command: headerCommand } = stripTranscriptHeader(text);
  const command = options.command ?? headerCommand;
  const envelope = parseText(body, {
    ...(command !== undefined ? { command } : {}),
    ...(dialect !== undefined ? { dialect } : {}),
  });
  const check = validate('parseEnvelope', envelope);
  if (!check.ok) {
    process.stderr.write(
      `${ERROR_PREFIX}internal error, output does not match schemas/parseEnvelope.schema.json:\n  ${check.errors.join('\n  ')}\n`,
    );
    return ExitCode.Failure;
  }
  process.stdout.write(
    options.text === true ? formatEnvelope(envelope) : `${JSON.stringify(envelope, null, 2)}\n`,
  );
  return ExitCode.Ok;
}

// ---- --text -------------------------------------------------------------------------------------

/** The readable summary: one block per entry (its parser's summary), then the events. */
export function formatEnvelope(envelope: ParseEnvelope): string {
  const blocks = envelope.entries.map((entry, i) => {
    const title = `[${i + 1}] ${entry.command ?? '(no command)'} -> ${entry.kind}`;
    const facts = summarize(entry).map((line) => `    ${line}`);
    const warnings = entry.record.warnings.length + entry.warnings.length;
    if (warnings > 0) facts.push(`    (${warnings} warning${warnings === 1 ? '' : 's'})`);
    return [title, ...facts].join('\n');
  });
  const events = envelope.events.map(
    (e) =>
      `  ${e.code ?? '?'} ${e.description}${e.chance ? ` (${e.chance} chance)` : ''}` +
      `${e.clrExceptionType ? ` ${e.clrExceptionType}` : ''}` +
      `${e.processId ? ` pid ${e.processId} tid ${e.threadId ?? '?'}` : ''}`,
  );
  const tail = events.length > 0 ? [`events (${events.length}):`, ...events] : ['events: none'];
  return `${[...blocks, tail.join('\n')].join('\n\n')}\n`;
}
