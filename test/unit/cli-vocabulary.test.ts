// The command line speaks one vocabulary: this test reads every option of every command from the
// commander program itself and holds it to the shared spellings (src/cli/options.ts), the shared
// value grammars (src/units.ts) and to docs/cli.md, which must list every option of every command.
import { expect } from 'chai';
import type { Command, Option } from 'commander';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ExitCode } from '../../src/cli/exit-codes.js';
import { buildProgram } from '../../src/cli/main.js';
import { grammarOf, PROCDUMP_SPELLINGS, ProcDumpStyleCommand } from '../../src/cli/options.js';
import { REPO_ROOT } from '../helpers/wine.js';

const program = await buildProgram(() => undefined);
const commands: readonly Command[] = program.commands;
const DOC = readFileSync(join(REPO_ROOT, 'docs', 'cli.md'), 'utf8');

// One spelling per concept, wherever it appears.
const CANONICAL: Record<string, string> = {
  '--pid': '-p, --pid <pid>',
  '--name': '--name <name>',
  '--wait': '-w, --wait <name>',
  '--engine': '--engine <engine>',
  '--debugger': '--debugger <path>',
  '--symbols': '-y, --symbols <path>',
  '--symbol-path': '--symbol-path <path>',
  '--symbol-timeout': '--symbol-timeout <duration>',
  '--symbol-max-size': '--symbol-max-size <size>',
  '--out': '--out <dir>',
  '--json': '--json',
  '--record': '--record <dir>',
  '--full': '--full',
  '--mini': '--mini',
  '--timeout': '--timeout <duration>',
  '--duration': '--duration <duration>',
  '--interval': '--interval <duration>',
};

// Spellings another tool uses for a concept we spell one way: never used here.
const SYNONYMS = [
  '--output',
  '--output-dir',
  '--outdir',
  '--dir',
  '--sympath',
  '--symbol',
  '--symbols-path',
  '--symbol-download-timeout',
  '--max-symbol-size',
  '--cdb',
  '--cdb-path',
  '--debugger-path',
  '--timeout-ms',
  '--seconds',
  '--format',
  '--process',
  '--process-id',
  '--transcript',
];

// Value placeholders and the grammar each one promises.
const GRAMMAR_OF_PLACEHOLDER: Record<string, string | undefined> = {
  '<duration>': 'duration',
  '<size>': 'size',
  '<sizes>': 'sizes',
  '<n>': 'count',
  '<pid>': 'pid',
  '<percent>': 'percent',
};
// Free-text and path placeholders (no grammar beyond "a string").
const TEXT_PLACEHOLDERS = new Set([
  '<path>',
  '<dir>',
  '<file>',
  '<name>',
  '<engine>',
  '<filter>',
  '<code>',
  '<i/n>',
  '<dirs...>',
  '<paths...>',
  '<outdir>',
  '<image>',
  '<cmd>',
  '<dialect>',
  '<key>',
  '<ext>',
  '<dump>',
  '<counter>',
  '<value>',
  '<url>',
  // a choice: --symbol-redirects same-host|https|any
  '<policy>',
  '[1]',
]);

function placeholder(option: Option): string | undefined {
  return /([<[][^>\]]+[>\]])\s*$/.exec(option.flags)?.[1];
}

function helpText(command: Command): string {
  let text = '';
  command.configureOutput({ writeOut: (s) => (text += s), writeErr: (s) => (text += s) });
  command.outputHelp();
  return text;
}

function each(fn: (command: Command, option: Option) => void): void {
  for (const command of commands) for (const option of command.options) fn(command, option);
}

describe('CLI vocabulary', () => {
  it('reads every command (the test is not vacuous)', () => {
    expect(commands.map((c) => c.name())).to.include.members([
      'analyze',
      'watch',
      'heap-trend',
      'dump',
      'inspect',
      'parse',
      'umdh-diff',
      'gflags',
      'worker',
    ]);
    let count = 0;
    each(() => count++);
    expect(count).to.be.greaterThan(80);
  });

  it('spells each shared concept the same way on every command', () => {
    each((command, option) => {
      const expected = option.long === undefined ? undefined : CANONICAL[option.long];
      if (expected !== undefined) {
        expect(option.flags, `${command.name()} ${option.long ?? ''}`).to.equal(expected);
      }
      expect(SYNONYMS, `${command.name()} uses ${option.long ?? ''}`).to.not.include(option.long);
    });
  });

  it('gives every command that runs a debugger the same debugger, symbol and engine options', () => {
    for (const command of commands) {
      const longs = command.options.map((o) => o.long);
      if (!longs.includes('--debugger')) continue;
      for (const needed of ['--engine', '--symbols', '--symbol-path', '--json', '--out']) {
        expect(longs, `${command.name()} lacks ${needed}`).to.include(needed);
      }
    }
    const debuggerCommands = commands.filter((c) => c.options.some((o) => o.long === '--debugger'));
    expect(debuggerCommands.map((c) => c.name()).sort()).to.deep.equal([
      'analyze',
      'dump',
      'heap-trend',
      'watch',
      'worker',
    ]);
    for (const name of ['watch', 'dump', 'heap-trend']) {
      const command = commands.find((c) => c.name() === name);
      const longs = command?.options.map((o) => o.long);
      expect(longs, name).to.include.members(['--pid', '--name']);
      expect(command, name).to.be.instanceOf(ProcDumpStyleCommand);
    }
  });

  it('parses every duration, size, count and pid with the one grammar', () => {
    let checked = 0;
    each((command, option) => {
      const where = `${command.name()} ${option.flags}`;
      const hole = placeholder(option);
      if (hole === undefined) return;
      const grammar = GRAMMAR_OF_PLACEHOLDER[hole];
      if (grammar === undefined) {
        expect(TEXT_PLACEHOLDERS.has(hole), `${where}: unknown placeholder ${hole}`).to.equal(true);
        expect(grammarOf(option), where).to.equal(undefined);
        return;
      }
      expect(grammarOf(option), where).to.equal(grammar);
      const parse = (text: string) => option.parseArg?.(text, undefined);
      const good: Record<string, string[]> = {
        duration: ['90', '500ms', '30s', '5m', '1h', '1.5m'],
        size: ['500', '512KB', '100MB', '2GB', '1.5G'],
        sizes: ['100MB,200MB', '500'],
        count: ['0', '3', '12'],
        pid: ['1234'],
        percent: ['50', '12.5', '100', '1%'],
      };
      const bad: Record<string, string[]> = {
        duration: ['soon', '5q', '0s', '-5m'],
        size: ['huge', '5 apples', '0MB'],
        sizes: [',', 'big,bigger'],
        count: ['three', '-1', '1.5'],
        pid: ['0x10', 'w3wp'],
        percent: ['0', '101', '-5', 'half'],
      };
      for (const text of good[grammar] ?? [])
        expect(() => parse(text), `${where} ${text}`).to.not.throw();
      for (const text of bad[grammar] ?? []) {
        expect(() => parse(text), `${where} ${text}`).to.throw(/./);
      }
      checked++;
    });
    expect(checked).to.be.greaterThan(15);
  });

  it('says in every --help which exit codes it returns, all of them real codes, with examples', () => {
    const codes = new Set<number>(Object.values(ExitCode));
    for (const command of commands) {
      const help = helpText(command);
      const section = /Exit codes:([\s\S]*?)(?:\n\n|$)/.exec(help)?.[1];
      expect(section, `${command.name()} --help has no "Exit codes:"`).to.be.a('string');
      const numbers = [...(section ?? '').matchAll(/(?:^|[\s,(])(\d{1,3})(?=\s)/g)].map((m) =>
        Number(m[1]),
      );
      expect(numbers.length, command.name()).to.be.greaterThan(1);
      for (const n of numbers)
        expect(codes.has(n), `${command.name()}: exit code ${n}`).to.equal(true);
      expect(help, `${command.name()} --help has no examples`).to.match(/Examples:/);
    }
  });

  it('docs/cli.md lists every option of every command, in that command’s section', () => {
    for (const command of commands) {
      const heading = new RegExp(`^### \`cdb-harness ${command.name()}\\b.*$`, 'm');
      const start = DOC.search(heading);
      expect(start, `docs/cli.md has no section for ${command.name()}`).to.be.greaterThan(-1);
      const rest = DOC.slice(start + 1);
      const next = rest.search(/^### /m);
      const section = next < 0 ? rest : rest.slice(0, next);
      for (const option of command.options) {
        expect(section, `docs/cli.md ${command.name()} misses ${option.flags}`).to.include(
          `| \`${option.flags}\` |`,
        );
      }
      // …and documents no option the command does not have.
      const listed = [...section.matchAll(/^\| `([^`]+)` \|/gm)].map((m) => m[1]);
      const real = command.options.map((o) => o.flags);
      for (const flags of listed) {
        expect(real, `docs/cli.md ${command.name()} lists ${flags ?? ''}`).to.include(flags);
      }
    }
  });

  it('docs/cli.md lists every ProcDump/cdb spelling and every exit code', () => {
    for (const spelling of Object.keys(PROCDUMP_SPELLINGS)) {
      expect(DOC, spelling).to.match(new RegExp(`\\| \`${spelling}[ \`]`));
    }
    for (const code of Object.values(ExitCode)) {
      expect(DOC, `exit code ${code}`).to.match(new RegExp(`^\\| ${code} \\|`, 'm'));
    }
  });
});
