// Parses a `dump` command line with the real definition (commander, the ProcDump rewrite, the
// operands) into the workflow options, without running anything: for the tests of spellings and
// refusals. Commander's own output is silenced and its errors thrown, not exited on.
import { Command } from 'commander';
import {
  dumpOptionsFromCli,
  registerDump,
  type DumpCliOptions,
} from '../../src/cli/commands/dump.js';

/** The clock the parsed options are stamped with (dump names and default folders). */
export const PARSE_DUMP_NOW = new Date(2025, 10, 21, 12, 0, 0);

export function parseDumpCli(argv: readonly string[]): ReturnType<typeof dumpOptionsFromCli> {
  const root = new Command('cdb-harness').exitOverride();
  root.configureOutput({ writeErr: () => undefined, writeOut: () => undefined });
  registerDump({ program: root, setExitCode: () => undefined });
  const dump = root.commands.find((c) => c.name() === 'dump');
  dump?.exitOverride();
  dump?.configureOutput({ writeErr: () => undefined, writeOut: () => undefined });
  let result: ReturnType<typeof dumpOptionsFromCli> | undefined;
  dump?.action((target: string | undefined, dir: string | undefined, cli: DumpCliOptions) => {
    const operands = [target, dir].filter((o): o is string => o !== undefined);
    result = dumpOptionsFromCli(cli, { CDB_PATH: '' }, operands, PARSE_DUMP_NOW);
  });
  root.parse(['node', 'cdb-harness', 'dump', ...argv]);
  if (result === undefined) throw new Error('dump action did not run');
  return result;
}
