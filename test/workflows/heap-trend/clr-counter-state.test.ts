import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  ClrCounterState,
  type CounterLine,
} from '../../../src/workflows/heap-trend/clr-counter-state.js';
import { REPO_ROOT } from '../../helpers/wine.js';

/** The recorded counter lines of the channel client (two batches of System.Runtime). */
function recorded(): (CounterLine & { kind: string })[] {
  const file = join(
    REPO_ROOT,
    'test',
    'fixtures',
    'dotnet-diag',
    'counters-sessions-linux-net10.ndjson',
  );
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as CounterLine & { kind: string })
    .filter((l) => l.kind === 'counter');
}

describe('heap-trend counters tier: System.Runtime counters folded into one reading', () => {
  it('gives nothing until every generation size has come, then KB, totals and rates', () => {
    const lines = recorded();
    const state = new ClrCounterState();
    const firstBatch = lines.slice(0, lines.length / 2);
    for (const line of firstBatch.filter((l) => l.name !== 'loh-size')) state.add(line);
    expect(state.reading()).to.equal(undefined);
    for (const line of lines) state.add(line);
    const reading = state.reading();
    const last = (name: string) => lines.filter((l) => l.name === name).at(-1)?.value ?? NaN;
    const sum = (name: string) =>
      lines.filter((l) => l.name === name).reduce((n, l) => n + (l.value ?? 0), 0);
    // gc-heap-size and working-set in MB of 1,000,000 bytes (RuntimeEventSource.cs), as KB.
    expect(reading?.gcHeapSizeKb).to.be.closeTo((last('gc-heap-size') * 1e6) / 1024, 0.01);
    expect(reading?.workingSetKb).to.be.closeTo((last('working-set') * 1e6) / 1024, 0.01);
    expect(reading?.gen2Kb).to.be.closeTo(last('gen-2-size') / 1024, 0.01);
    expect(reading?.pohKb).to.be.closeTo(last('poh-size') / 1024, 0.01);
    // Incrementing counters are per interval: summed into totals.
    expect(reading?.gcPauseTotalMs).to.be.closeTo(sum('total-pause-time-by-gc'), 0.01);
    expect(reading?.gen0Collections).to.equal(sum('gen-0-gc-count'));
    // Bytes over the interval the runtime measured (its `intervalSec`), per second.
    const alloc = lines.filter((l) => l.name === 'alloc-rate').at(-1);
    expect(reading?.allocRateKbPerSec).to.be.closeTo(
      (alloc?.value ?? NaN) / (alloc?.intervalSec ?? 1) / 1024,
      0.01,
    );
    expect(Date.parse(reading?.time ?? '')).to.be.closeTo(Math.max(...lines.map((l) => l.t)), 1);
  });

  it('ignores counters it does not know and values that are not numbers', () => {
    const state = new ClrCounterState();
    state.add({ t: 1, name: 'threadpool-thread-count', value: 4, counterType: 'Mean' });
    state.add({ t: 2, name: 'gc-heap-size', value: null, counterType: 'Mean' });
    expect(state.ready).to.equal(false);
  });
});
