// The options that steer crash signatures, shared by `analyze` (its runs, --merge and
// --rebucket) and `signature-lists` (which prints the lists in force): `--skip-modules FILE`
// and `--signature-lists DIR`, both added to the default lists (docs/bucketing.md).
import type { Command } from 'commander';
import { readFileSync } from 'node:fs';
import { failureCause, UsageError } from '../errors.js';
import { createSigner, type Signer } from '../report/analyze/signature.js';
import { readListDir, type ListEdits } from '../report/analyze/signature-lists.js';
import { parseSkipModules } from '../report/analyze/skip-modules.js';

export interface SigningCliOptions {
  skipModules?: string;
  signatureLists?: string;
}

export function addSigningOptions(command: Command): void {
  command
    .option(
      '--skip-modules <file>',
      'modules whose frames buckets look through, one per line, added to the default list (!NAME takes one out)',
    )
    .option(
      '--signature-lists <dir>',
      'Socorro-style lists added to the defaults: irrelevant_signature_re.txt, prefix_signature_re.txt, signature_sentinels.txt, skip_modules.txt (see `signature-lists`)',
    );
}

/** The signing options as analyzeDumps and createSigner take them. */
export function signingOf(cli: SigningCliOptions): {
  skipModules?: string[];
  signatureLists?: ListEdits;
} {
  return {
    ...(cli.skipModules === undefined ? {} : { skipModules: readSkipModules(cli.skipModules) }),
    ...(cli.signatureLists === undefined
      ? {}
      : { signatureLists: readListDir(cli.signatureLists) }),
  };
}

/** The signer for these options (analyze --merge, --rebucket, signature-lists). */
export function signerOf(signing: ReturnType<typeof signingOf>): Signer {
  return createSigner({
    ...(signing.skipModules === undefined ? {} : { skipModules: signing.skipModules }),
    ...(signing.signatureLists === undefined ? {} : { lists: [signing.signatureLists] }),
  });
}

function readSkipModules(path: string): string[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read --skip-modules ${path}: ${failureCause(error)}`);
  }
  return parseSkipModules(text);
}
