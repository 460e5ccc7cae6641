// `cdb-harness signature-lists`: the lists that steer crash signatures (skip modules, irrelevant,
// prefix, sentinels; report/analyze/signature-lists.ts), the defaults or with the user's own
// added (`--skip-modules`, `--signature-lists`, as analyze takes them), and the algorithm id
// they give. `--write DIR` saves the defaults as Socorro-named files to start a list from.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  DEFAULT_SIGNATURE_LISTS,
  LIST_FILES,
  listsText,
  type ListName,
} from '../../report/analyze/signature-lists.js';
import type { CommandContext } from '../command-context.js';
import { ExitCode } from '../exit-codes.js';
import { addJsonOption } from '../options.js';
import {
  addSigningOptions,
  signerOf,
  signingOf,
  type SigningCliOptions,
} from '../signature-options.js';

interface ListsCliOptions extends SigningCliOptions {
  json?: boolean;
  write?: string;
}

const HEADER = `# Added to cdb-harness's defaults (analyze --signature-lists DIR): one entry per line,
# # starts a comment, !ENTRY takes ENTRY out of the defaults. docs/bucketing.md says how each
# list is used.
`;

export function registerSignatureLists(context: CommandContext): void {
  const command = context.program
    .command('signature-lists')
    .description(
      'Print the lists that steer crash signatures (skip modules, irrelevant, prefix, sentinels) and the algorithm id they give.',
    );
  addSigningOptions(command);
  addJsonOption(command, 'print {algorithm, lists} as JSON');
  command
    .option(
      '--write <dir>',
      'write the defaults as Socorro-named list files into DIR (entries there are added to the defaults)',
    )
    .addHelpText(
      'after',
      `
Examples:
  cdb-harness signature-lists                          the default lists and cdbh-sig-3
  cdb-harness signature-lists --signature-lists mine   the lists analyze would use with mine/
  cdb-harness signature-lists --write mine             start mine/ from the defaults

Exit codes: 0 printed, 2 usage error (a list that cannot be read, a pattern that is not a
regular expression).`,
    )
    .action(async (options: ListsCliOptions) => {
      const signing = signingOf(options);
      const signer = signerOf(signing);
      const given = signing.signatureLists !== undefined || signing.skipModules !== undefined;
      if (options.write !== undefined) {
        await mkdir(options.write, { recursive: true });
        for (const [name, file] of Object.entries(LIST_FILES) as [ListName, string][]) {
          await writeFile(
            join(options.write, file),
            `${HEADER}${DEFAULT_SIGNATURE_LISTS[name].join('\n')}\n`,
          );
        }
      }
      const text = options.json
        ? `${JSON.stringify({ algorithm: signer.algorithm, lists: signer.lists }, null, 2)}\n`
        : `# algorithm ${signer.algorithm}${given ? '' : ' (the defaults)'}\n\n${listsText(signer.lists)}`;
      process.stdout.write(text);
      context.setExitCode(ExitCode.Ok);
    });
}
