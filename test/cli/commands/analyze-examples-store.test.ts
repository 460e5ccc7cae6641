// The README's main job names symcrash's frames from the examples store alone: the repository's
// examples/ copied to a folder of its own, the CLI run from there with the README's command
// (relative paths), no Wine prefix, no symbol cache, no _NT_SYMBOL_PATH, and nothing under any
// build/ folder that could serve the image or the PDB. Then the same run with the store's image
// taken away: the frames fall back to the scan, so it was the store that served them.
import { expect } from 'chai';
import { cpSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { processDump } from '../../../src/processor/process-dump.js';
import { localPaths } from '../../../src/symbols/supplier/local-paths.js';
import { runCli } from '../../helpers/cli.js';
import { makeTempDir } from '../../helpers/temp-dir.js';
import { REPO_ROOT } from '../../helpers/wine.js';

const IMAGE = join('symcrash.exe', '6B09CE773c000', 'symcrash.exe');

interface Record {
  file: string;
  frames: { trust?: string; function?: string }[];
  images?: { [module: string]: string };
  symbols?: { modules: { module: string; status: string; origin?: string }[] };
}

async function analyzeExamples(root: string, out: string) {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: join(root, 'home'),
    XDG_CACHE_HOME: join(root, 'cache'),
    WINEPREFIX: join(root, 'no-wine-prefix'),
  };
  delete env['_NT_SYMBOL_PATH'];
  delete env['_NT_ALT_SYMBOL_PATH'];
  // The README's command, word for word, with an --out of the test's own.
  const args = ['analyze', 'examples/dumps', '--engine', 'builtin'];
  args.push('--symbol-path', 'examples/symbols', '--image-path', 'examples/symbols');
  const run = await runCli([...args, '--out', out], { cwd: root, env });
  const records = readFileSync(join(out, 'records.ndjson'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record);
  const symcrash = records.find((r) => r.file.endsWith('symcrash.dmp'));
  if (symcrash === undefined) throw new Error(`no symcrash record: ${run.stderr}`);
  return { ...run, symcrash };
}

describe('analyze examples/dumps: the examples store serves symcrash without build/', function () {
  this.timeout(180_000);

  before(async function () {
    // The dump recorded where its image was built (a Z:\ path, a unix path under Wine): if that
    // file exists on this machine it would serve the image before the store, proving nothing.
    const state = await processDump(join(REPO_ROOT, 'examples', 'dumps', 'symcrash.dmp'), {
      threads: 'none',
    });
    if (!state.ok) throw new Error(state.error.message);
    const recorded = localPaths(state.modules[0]?.path ?? '', undefined);
    if (recorded.some((path) => existsSync(path))) {
      console.log(`      skipped: ${recorded.join(', ')} exists here and would serve the image`);
      this.skip();
    }
  });

  it('names every frame from the store and unwinds by its image (trust cfi)', async () => {
    const root = makeTempDir('examples-store');
    cpSync(join(REPO_ROOT, 'examples'), join(root, 'examples'), { recursive: true });
    expect(existsSync(join(root, 'build'))).to.equal(false);
    const { code, stdout, symcrash } = await analyzeExamples(root, join(root, 'out'));
    expect(code).to.equal(0);
    expect(stdout).to.match(
      /^ {2}1 {2}[0-9a-f]{16} {2}0xc0000005 write \| symcrash!store_value \| symcrash!run_job \| symcrash!main {2}\(Access violation writing 0x10\)$/m,
    );
    expect(symcrash.frames.slice(0, 3).map((f) => f.function)).to.deep.equal([
      'store_value',
      'run_job',
      'main',
    ]);
    expect(symcrash.frames.slice(1, 3).map((f) => f.trust)).to.deep.equal(['cfi', 'cfi']);
    // The image and the PDB came from the copied store, not from anywhere else on this machine.
    const store = join(root, 'examples', 'symbols');
    expect(resolve(root, symcrash.images?.['symcrash.exe'] ?? '')).to.equal(join(store, IMAGE));
    const pdb = symcrash.symbols?.modules.find((m) => m.module === 'symcrash.exe');
    expect(pdb?.status).to.equal('loaded');
    expect(resolve(root, pdb?.origin ?? '')).to.equal(store);
  });

  it('without the store image the frames are scanned: nothing else served them', async () => {
    const root = makeTempDir('examples-no-image');
    cpSync(join(REPO_ROOT, 'examples'), join(root, 'examples'), { recursive: true });
    rmSync(join(root, 'examples', 'symbols', 'symcrash.exe'), { recursive: true });
    const { code, symcrash } = await analyzeExamples(root, join(root, 'out'));
    expect(code).to.equal(0);
    expect(symcrash.images?.['symcrash.exe']).to.equal('not found');
    expect(symcrash.frames.slice(1).map((f) => f.trust)).to.not.include('cfi');
  });
});
