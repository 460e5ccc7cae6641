// The target's real stop, read from its thread states: a real process stopped with SIGSTOP (every
// thread in state T, proc(5)) and let go with SIGCONT is measured as stopped for part of the
// watch and never longer than it; a running one never; the state letter is read after the last
// `)` of a stat line whose thread name holds spaces and parentheses.
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import {
  sumStops,
  threadState,
  watchThreadStops,
} from '../../../src/workflows/heap-trend/thread-stops.js';
import { makeTempDir } from '../../helpers/temp-dir.js';

describe('heap-trend: the target stop from its thread states', function () {
  this.timeout(20_000);

  it('reads the state after the last parenthesis of a stat line', () => {
    // proc(5) layout; the name `.NET SigHandler` has a space, `a) b (c` closing parentheses.
    expect(threadState('9162 (.NET SigHandler) t 1 9155 9155 0 -1 4194368 0 0')).to.equal('t');
    expect(threadState('9163 (a) b (c) S 1 9155 9155 0 -1')).to.equal('S');
    expect(threadState('garbage')).to.equal(undefined);
  });

  it('sums each poll from midpoint to midpoint, all threads apart from some', () => {
    const polls = [
      { at: 0, state: 'none' as const },
      { at: 10, state: 'some' as const },
      { at: 20, state: 'all' as const },
      { at: 30, state: 'all' as const },
      { at: 40, state: 'none' as const },
    ];
    expect(sumStops(polls)).to.deep.equal({ all: 20, some: 30, gap: 10 });
  });

  it('reads every thread of a /proc-shaped folder, and gives up where there is none', () => {
    const root = makeTempDir('proc');
    for (const [tid, state] of [
      ['100', 't'],
      ['101', 't'],
    ] as const) {
      mkdirSync(join(root, '100', 'task', tid), { recursive: true });
      writeFileSync(join(root, '100', 'task', tid, 'stat'), `${tid} (worker) ${state} 1 100`);
    }
    const watch = watchThreadStops(100, { procRoot: root, pollMs: 1 });
    const measure = watch?.finish();
    expect(measure?.polls).to.be.at.least(2);
    expect(measure?.partlyStoppedMs).to.equal(measure?.stoppedMs);
    expect(watchThreadStops(999_999, { procRoot: root })).to.equal(undefined);
  });

  (process.platform === 'linux' ? it : it.skip)(
    'measures a real process stopped by SIGSTOP, and a running one as never stopped',
    async () => {
      const child = spawn('sleep', ['30'], { stdio: 'ignore' });
      try {
        const pid = child.pid ?? 0;
        const running = watchThreadStops(pid, { pollMs: 1 });
        await delay(50);
        expect(running?.finish()?.stoppedMs).to.equal(0);

        const began = performance.now();
        const watch = watchThreadStops(pid, { pollMs: 1 });
        await delay(50);
        process.kill(pid, 'SIGSTOP');
        await delay(200);
        process.kill(pid, 'SIGCONT');
        await delay(50);
        const measure = watch?.finish();
        const watched = performance.now() - began;
        expect(measure?.stoppedMs).to.be.greaterThan(0);
        expect(measure?.stoppedMs).to.be.lessThan(watched);
        expect(measure?.method).to.include(`/proc/${pid}/task`);
      } finally {
        child.kill('SIGKILL');
      }
    },
  );
});
