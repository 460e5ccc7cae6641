// The same `analyze --engine builtin` run in the environments a dump's bucket must not depend on
// (issue 34): no Wine prefix named and none in the environment, the project's prefix sitting at
// ~/.wine (HOME a temp folder holding a link to the repository's .wine), $WINEPREFIX naming that
// prefix, and HOME an empty folder. Each run is the real CLI in a child process with an
// environment of its own; the answer is each dump's bucket, by file name.
import { mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { basename, join } from 'node:path';
import { runCli } from './cli.js';
import { makeTempDir } from './temp-dir.js';
import { REPO_ROOT } from './wine.js';

/** The repository's own Wine prefix (scripts/setup-wine-prefix.sh makes it). */
export const PROJECT_PREFIX = join(REPO_ROOT, '.wine');

export type BucketEnvironment =
  'no-prefix' | 'prefix-at-home' | 'ambient-wineprefix' | 'empty-home';

export const BUCKET_ENVIRONMENTS: readonly BucketEnvironment[] = [
  'no-prefix',
  'prefix-at-home',
  'ambient-wineprefix',
  'empty-home',
];

export interface BucketRun {
  /** Bucket signature by dump file name. */
  signatures: Record<string, string>;
  /** Bucket id by dump file name. */
  ids: Record<string, string>;
  /** Where each record's images came from, by dump file name. */
  images: Record<string, Record<string, string>>;
  stderr: string;
}

function environmentOf(kind: BucketEnvironment): NodeJS.ProcessEnv {
  const root = makeTempDir(`buckets-${kind}`);
  const env: NodeJS.ProcessEnv = { ...process.env, XDG_CACHE_HOME: join(root, 'cache') };
  delete env['WINEPREFIX'];
  delete env['_NT_SYMBOL_PATH'];
  delete env['_NT_ALT_SYMBOL_PATH'];
  const home = join(root, 'home');
  mkdirSync(home);
  env['HOME'] = home;
  if (kind === 'prefix-at-home') symlinkSync(PROJECT_PREFIX, join(home, '.wine'));
  if (kind === 'ambient-wineprefix') env['WINEPREFIX'] = PROJECT_PREFIX;
  if (kind === 'no-prefix') env['HOME'] = process.env['HOME'] ?? home;
  return env;
}

/** `analyze --engine builtin INPUTS… EXTRA…` in one environment; every dump's bucket. */
export async function bucketsIn(
  kind: BucketEnvironment,
  inputs: readonly string[],
  extra: readonly string[] = [],
): Promise<BucketRun> {
  const env = environmentOf(kind);
  const out = join(makeTempDir(`buckets-out-${kind}`), 'out');
  const args = ['analyze', ...inputs, '--engine', 'builtin', '--threads', '0', '--no-progress'];
  const run = await runCli([...args, ...extra, '--out', out], { env, timeoutMs: 300_000 });
  if (run.code !== 0 && run.code !== 4) {
    throw new Error(`analyze (${kind}) exited ${run.code}: ${run.stderr}`);
  }
  const result: BucketRun = { signatures: {}, ids: {}, images: {}, stderr: run.stderr };
  for (const line of readFileSync(join(out, 'records.ndjson'), 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    const record = JSON.parse(line) as {
      file: string;
      bucket?: { id: string; signature: string };
      images?: Record<string, string>;
    };
    const name = basename(record.file);
    if (record.bucket !== undefined) {
      result.signatures[name] = record.bucket.signature;
      result.ids[name] = record.bucket.id;
    }
    result.images[name] = record.images ?? {};
  }
  return result;
}
