// `cdb-harness gflags --enable-ust IMAGE | --disable-ust IMAGE | --show IMAGE` (issue #7): the
// user-mode stack-trace database umdh needs, through gflags.exe (Windows only).
import { UsageError } from '../../errors.js';
import {
  queryImageFlags,
  setUserStackTraces,
  UST_WARNING,
  type GflagsResult,
} from '../../workflows/gflags/gflags.js';
import { locateWindowsTool } from '../../workflows/umdh/windows-tools.js';
import type { CommandContext } from '../command-context.js';
import { ExitCode, exitCodeFor } from '../exit-codes.js';
import { printError } from '../error-output.js';

export interface GflagsCliOptions {
  enableUst?: string;
  disableUst?: string;
  show?: string;
  json?: boolean;
  gflags?: string;
}

function describe(result: GflagsResult): string {
  return [
    `${result.image ?? '?'}: GlobalFlag ${(result.flags ?? 0).toString(16).padStart(8, '0')}` +
      (result.abbreviations.length === 0 ? '' : ` (${result.abbreviations.join(', ')})`),
    `user-mode stack-trace database (ust): ${result.ust ? 'ON' : 'off'}`,
  ].join('\n');
}

export function registerGflags(context: CommandContext): void {
  context.program
    .command('gflags')
    .description(
      'Turn the user-mode stack-trace database (+ust, needed by umdh) on or off for an image (Windows).',
    )
    .option('--enable-ust <image>', 'gflags /i IMAGE +ust')
    .option('--disable-ust <image>', 'gflags /i IMAGE -ust')
    .option('--show <image>', "gflags /i IMAGE: show the image's flags")
    .option('--json', 'print the result as JSON')
    .option('--gflags <path>', 'the gflags.exe to run (default: next to cdb.exe, or GFLAGS_PATH)')
    .addHelpText(
      'after',
      `
What it replaces: "gflags /i w3wp.exe +ust" from an elevated prompt, then reading
"Current Registry Settings for w3wp.exe executable are: 00001000 / ust - Create user mode stack
trace database" to be sure it took.

${UST_WARNING}

gflags.exe is part of "Debugging Tools for Windows"; it does not exist on Linux or under Wine
(exit 3 there). It needs an elevated (administrator) prompt.

Exit codes: 0 done, 1 gflags failed (not elevated, bad image name), 2 usage error, 3 gflags.exe
not found (Windows only).

Examples:
  cdb-harness gflags --enable-ust w3wp.exe
  cdb-harness gflags --show w3wp.exe --json
  cdb-harness gflags --disable-ust w3wp.exe`,
    )
    .action(async (cli: GflagsCliOptions) => {
      context.setExitCode(await runGflagsCli(cli));
    });
}

export async function runGflagsCli(cli: GflagsCliOptions): Promise<number> {
  try {
    const given = [cli.enableUst, cli.disableUst, cli.show].filter((v) => v !== undefined);
    if (given.length !== 1) {
      throw new UsageError(
        'give exactly one of --enable-ust IMAGE, --disable-ust IMAGE or --show IMAGE',
      );
    }
    // Find gflags.exe first: on Linux the answer is "Windows only" before any warning about +ust.
    const options = { gflagsPath: cli.gflags ?? locateWindowsTool('gflags') };
    let result: GflagsResult;
    if (cli.enableUst !== undefined) {
      process.stderr.write(`warning: ${UST_WARNING}\n`);
      result = await setUserStackTraces(cli.enableUst, true, options);
    } else if (cli.disableUst !== undefined) {
      result = await setUserStackTraces(cli.disableUst, false, options);
    } else {
      result = await queryImageFlags(cli.show ?? '', options);
    }
    process.stdout.write(
      cli.json === true
        ? `${JSON.stringify({ ...result, warning: cli.enableUst === undefined ? undefined : UST_WARNING }, null, 2)}\n`
        : `${describe(result)}\n`,
    );
    return ExitCode.Ok;
  } catch (error) {
    printError(error);
    return exitCodeFor(error);
  }
}
