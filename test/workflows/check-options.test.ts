// Library callers get the project's UsageError (code USAGE) naming the function and the field,
// not Node's ERR_INVALID_ARG_TYPE from deep inside fs, and nothing runs (no folder is made).
import { expect } from 'chai';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import * as api from '../../src/index.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { REPO_ROOT } from '../helpers/wine.js';

async function usageError(run: () => Promise<unknown>): Promise<api.HarnessError> {
  try {
    await run();
  } catch (error) {
    expect(api.isHarnessError(error), String(error)).to.equal(true);
    expect((error as api.HarnessError).code).to.equal('USAGE');
    return error as api.HarnessError;
  }
  throw new Error('expected a UsageError');
}

const DUMPS = join(REPO_ROOT, 'examples', 'dumps');

describe('library options are checked before anything runs', () => {
  it('analyzeDumps without outDir', async () => {
    const error = await usageError(() =>
      api.analyzeDumps({ inputs: [DUMPS] } as unknown as api.AnalyzeDumpsOptions),
    );
    expect(error.message).to.equal(
      'analyzeDumps(): `outDir` must be a non-empty string, got nothing',
    );
  });

  it('analyzeDumps with a string for inputs, an unknown engine, jobs 0', async () => {
    const out = join(makeTempDir('opts'), 'out');
    const base = { inputs: [DUMPS], outDir: out };
    const bad: [object, RegExp][] = [
      [{ ...base, inputs: DUMPS }, /`inputs` must be an array of strings, got "/],
      [{ ...base, engine: 'gdb' }, /`engine` must be one of 'auto', .*'builtin', got "gdb"/],
      [{ ...base, jobs: 0 }, /`jobs` must be a whole number ≥ 1, got number 0/],
      [{ ...base, onEvent: 'log' }, /`onEvent` must be a function/],
    ];
    for (const [options, message] of bad) {
      const error = await usageError(() =>
        api.analyzeDumps(options as unknown as api.AnalyzeDumpsOptions),
      );
      expect(error.message).to.match(message);
    }
    expect(existsSync(out), 'nothing was written').to.equal(false);
  });

  it('the other jobs: watch, dumpProcess, runHeapTrend, runUmdhDiff', async () => {
    const cases: [() => Promise<unknown>, RegExp][] = [
      [
        () => api.watch(undefined as unknown as api.WatchOptions),
        /^watch\(\) takes an options object, got nothing/,
      ],
      [
        () =>
          api.watch({
            engine: 'gdb',
            target: { pid: 1 },
            outDir: 'x',
          } as unknown as api.WatchOptions),
        /^watch\(\): `engine` must be one of 'cdb', 'winedbg'/,
      ],
      [
        () =>
          api.dumpProcess({ engine: 'winedbg', target: { pid: 1 } } as unknown as api.DumpOptions),
        /^dumpProcess\(\): `outDir` must be a non-empty string/,
      ],
      [
        () =>
          api.runHeapTrend({
            engine: 'winedbg',
            outDir: 'x',
            intervalMs: 1000,
          } as unknown as api.HeapTrendOptions),
        /^runHeapTrend\(\): `pid` must be a process id/,
      ],
      [
        () => api.runUmdhDiff({ files: 'a.log' } as unknown as api.UmdhDiffOptions),
        /^runUmdhDiff\(\): `files` must be an array of strings/,
      ],
    ];
    for (const [run, message] of cases) expect((await usageError(run)).message).to.match(message);
  });
});
