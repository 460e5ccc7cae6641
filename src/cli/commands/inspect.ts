// `cdb-harness inspect DUMP… [--json]`: read .dmp files directly with the built-in reader (no
// debugger), print a triage summary per dump or the records.md JSON (checked against
// schemas/inspect.schema.json before it is printed). One bad file never stops the others.
import type { CommandContext } from '../command-context.js';
import { ExitCode } from '../exit-codes.js';
import { ERROR_PREFIX } from '../error-output.js';
import {
  addSymbolLimitOptions,
  addWinePrefixOption,
  attach,
  ProcDumpStyleCommand,
  symbolLimitsOf,
  symbolPathOf,
  winePrefixOf,
} from '../options.js';
import { once } from 'node:events';
import { resolve } from 'node:path';
import { pathBytes64, type BytePath } from '../../common/byte-path.js';
import { pathFromArgv } from '../../workflows/argv-path.js';
import { processDump, type ProcessOptions } from '../../processor/process-dump.js';
import { DEFAULT_OTHER_THREADS } from '../../processor/walk-threads.js';
import { truncationLine } from '../../processor/truncated-streams.js';
import { inspectJson, type InspectedDumpOk } from '../../report/inspect/inspect-json.js';
import { builtinSupplier, symbolServerDownLine } from '../../workflows/analyze/symbols-setup.js';
import type { SymbolSupplier } from '../../symbols/supplier/symbol-supplier.js';
import { addCyborgOption, openJsonSink, type JsonSink } from '../cyborg.js';
import { failureText, formatText } from './inspect-text.js';
import { validate } from '../../report/schemas.js';
import { escapeControls, escapeStrings } from '../../report/terminal-text.js';

interface InspectOptions {
  json?: boolean;
  cyborg?: string;
  verbose?: boolean;
  /** The crashing thread only (minidump-stackwalk's default view). */
  brief?: boolean;
  /** False with --no-stacks. */
  stacks?: boolean;
  /** Walk every thread, not the default bound (DEFAULT_OTHER_THREADS). */
  allThreads?: boolean;
  imagePath?: string[];
  winePrefix?: string;
  symbols?: string;
  symbolPath?: string;
  symbolTimeout?: string;
  symbolRedirects?: string;
  symbolMaxSize?: string;
  z?: string[];
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** The warning a dump cut short carries, in the text and in the JSON `warnings`. */
export function truncationWarning(dump: InspectedDumpOk): string | null {
  return truncationLine(dump);
}

export function registerInspect(context: CommandContext): void {
  // cdb's -c and -i (procdump-habits.ts): -i is --image-path, -c is refused naming analyze.
  const command = new ProcDumpStyleCommand('inspect', ['-c', '-i'])
    .description(
      'Read .dmp files directly, no debugger needed: process, exception, threads, modules, memory.',
    )
    .argument('[dump...]', 'minidump files (.dmp, .mdmp, .hdmp) to read')
    .option('-z <dump>', 'a dump file, like a DUMP operand (cdb -z; repeatable)', collect)
    .option('--json', 'print {schemaVersion: 1, dumps: [...]} (records.md) instead of text')
    .option('-v, --verbose', 'text mode: also list every thread and module')
    .option(
      '--brief',
      'walk and show only the crashing thread (the exception thread; minidump-stackwalk --brief)',
    )
    .option('--no-stacks', "do not walk the threads' stacks (registers and `k` per thread)")
    .option(
      '--all-threads',
      `walk every thread's stack (default: the crashing thread and at most ${DEFAULT_OTHER_THREADS.count} others, within ${DEFAULT_OTHER_THREADS.ms / 1000} s)`,
    )
    .option(
      '--image-path <dir>',
      'a folder of module images (.exe/.dll), flat or in symbol-store layout NAME/TIMESTAMPSIZE/NAME (repeatable)',
      collect,
    )
    .option(
      '-y, --symbols <path>',
      'symbol path, cdb syntax (DIR;cache*DIR;srv*CACHE*URL): frames named from PDB/.sym files',
    )
    .option('--symbol-path <path>', 'same as --symbols (default: $_NT_SYMBOL_PATH)');
  addCyborgOption(command, 'the {schemaVersion: 1, dumps: [...]} JSON');
  addWinePrefixOption(command);
  addSymbolLimitOptions(command)
    .addHelpText(
      'after',
      `
Reads only the header, the directory and the streams it needs (positioned reads), so a
50 GB full dump is triaged as fast as a small one. Full vs mini is decided from the streams
present; the header flags are shown as written, with a warning where they disagree.

Examples:
  cdb-harness inspect crash.dmp                 triage summary: process, exception, faulting module
  cdb-harness inspect dumps/*.dmp --json > r.json   every dump as schema-checked JSON
  cdb-harness inspect app.dmp --cyborg r.json   the text on screen, the JSON in r.json
  cdb-harness inspect -v app.dmp                also list threads and modules (debug ids)
  cdb-harness inspect --brief app.dmp           only the crashing thread's stack, with a trust legend
  cdb-harness inspect app.dmp --image-path bin  walk stacks with the images in bin/
  cdb-harness inspect app.dmp --symbols "srv*$HOME/symcache*https://symbols.example.com"
                                                frames as module!function+0xoff [file @ line]

Stacks are walked without a debugger: x64 with the images' unwind data (.pdata/.xdata), x86 by
frame pointers; images come from the dump itself (full dumps), the path the dump records (a
Wine Z:\\ path is a unix path; C:\\ is DIR/drive_c only with --wine-prefix DIR, never ~/.wine),
then --image-path. Frames found without unwind data say so (trust: scan). Names come from the
images' export tables.

A dump cut short (streams that run past the end of the file) is read as far as it goes and
flagged TRUNCATED in the text, in its JSON warnings, and by exit code 4.

Exit codes: 0 all dumps read whole, 4 some could not be read or are truncated, 1 none could be
read, 2 usage error.`,
    )
    .action(async (files: string[], options: InspectOptions) => {
      const all = [...files, ...(options.z ?? [])];
      if (all.length === 0) {
        process.stderr.write(`${ERROR_PREFIX}give at least one dump file (or -z DUMP)\n`);
        context.setExitCode(ExitCode.Usage);
        return;
      }
      const sink = await openJsonSink(options);
      try {
        context.setExitCode(await runInspect(all, options, sink));
      } finally {
        await sink.close();
      }
    });
  attach(context.program, command);
}

/**
 * The file as the file system spells it: a name that is not valid UTF-8 arrives from argv with
 * U+FFFD and is found again in its folder (argv-path.ts); when it cannot be, the file is read as
 * given (and fails with the reason) after a line saying why.
 */
async function dumpPathOf(file: string): Promise<BytePath> {
  if (!file.includes('\uFFFD')) return file;
  const found = await pathFromArgv(resolve(file));
  if (found.unresolved !== undefined) {
    process.stderr.write(`${ERROR_PREFIX}${file}: ${found.unresolved}\n`);
    return file;
  }
  return found.path;
}

export async function runInspect(
  files: readonly string[],
  options: InspectOptions,
  /** Where the JSON goes (stdout with --json, a file with --cyborg); the text goes to stdout. */
  sink: JsonSink,
): Promise<number> {
  let failed = 0;
  let truncated = 0;
  let internal = false;
  const json = sink.active;
  const jsonOut = (text: string) => sink.write(text);
  // One supplier for every dump named (the symbol readers load only with a symbol path).
  const supplier = await builtinSupplier({
    ...pathOption(symbolPathOf(options)),
    symbolFiles: options.stacks !== false,
    ...(options.imagePath === undefined ? {} : { imagePaths: options.imagePath }),
    ...winePrefixOf(options),
    ...symbolLimitsOf(options),
    // Said once per server, not once per module or dump (records keep the details).
    onSymbolServerDown: (server, reason) =>
      process.stderr.write(symbolServerDownLine(server, reason)),
  });
  try {
    // --json streams the envelope one dump at a time: the array is never built whole, so the
    // output of many dumps (or one very large one) never has to fit in one string.
    if (json) await jsonOut('{\n  "schemaVersion": 1,\n  "dumps": [\n');
    for (const [i, file] of files.entries()) {
      const path = await dumpPathOf(file);
      let dump = inspectJson(await processDump(path, processOptions(options, supplier)));
      const bytes = pathBytes64(path);
      if (bytes !== undefined) dump = { ...dump, fileBytes: bytes };
      const cut = dump.ok ? truncationWarning(dump) : null;
      if (dump.ok && cut !== null) {
        truncated++;
        process.stderr.write(
          `${ERROR_PREFIX}${escapeControls(dump.file)}: ${escapeControls(cut)}\n`,
        );
      }
      if (!dump.ok) {
        failed++;
        // An error, so stderr with the prefix every error line has (the JSON still carries it).
        process.stderr.write(`${ERROR_PREFIX}${failureText(escapeStrings(dump))}\n`);
      }
      if (sink.textOnStdout) {
        if (dump.ok) {
          // Names from the dump reach the terminal escaped (terminal-text.ts); JSON keeps them raw.
          const shown = escapeStrings(dump);
          await writeOut(
            `${formatText(shown, options.verbose === true, options.brief === true)}\n`,
          );
        }
      }
      if (!json) continue;
      const check = validate('inspect', { schemaVersion: 1, dumps: [dump] });
      if (!check.ok) {
        // A bug of ours, said, and that dump's entry says so: the others are still written.
        internal = true;
        process.stderr.write(
          `${ERROR_PREFIX}internal error, ${file}: output does not match schemas/inspect.schema.json:\n  ${check.errors.join('\n  ')}\n`,
        );
        dump = {
          file,
          ok: false,
          error: { code: 'INTERNAL', message: 'output did not match schemas/inspect.schema.json' },
          warnings: [],
        };
      }
      const text = JSON.stringify(dump, null, 2).replace(/\n/g, '\n    ');
      await jsonOut(`    ${text}${i < files.length - 1 ? ',' : ''}\n`);
    }
    if (json) await jsonOut('  ]\n}\n');
  } finally {
    await supplier.close();
  }
  if (internal) return ExitCode.Failure;
  if (failed === files.length) return ExitCode.Failure;
  return failed + truncated === 0 ? ExitCode.Ok : ExitCode.Partial;
}

/** Writes to stdout, waiting when its buffer is full (the output never piles up in memory). */
async function writeOut(text: string): Promise<void> {
  if (!process.stdout.write(text)) await once(process.stdout, 'drain');
}

function processOptions(options: InspectOptions, supplier: SymbolSupplier): ProcessOptions {
  if (options.stacks === false) return { threads: 'none' };
  return {
    threads: options.brief === true ? 'exception' : 'all',
    ...(options.allThreads === true ? { otherThreads: null } : {}),
    supplier,
  };
}

function pathOption(path: string | undefined): { symbolPath?: string } {
  return path === undefined ? {} : { symbolPath: path };
}
