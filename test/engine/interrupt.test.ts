// Which break-in interrupt() uses: DebugBreakProcess only on an invasively attached or launched
// Windows target whose pid is known; a noninvasive attach has no debug port (a breakpoint there
// would end the target), a dump has nothing running.
import { expect } from 'chai';
import { getDialect } from '../../src/engine/dialects/index.js';
import { outsideBreakIn } from '../../src/engine/interrupt.js';
import type { SessionTarget } from '../../src/engine/dialects/types.js';

const cdb = getDialect('cdb');
const way = (target: SessionTarget, breakIn: 'auto' | 'debug-break' | 'ctrl-c', banner = '') =>
  outsideBreakIn({ dialect: cdb, target, banner }, { breakIn, env: {} }, 10_000);

describe('engine/interrupt: the way of breaking in', () => {
  it('debug-break on an invasive attach', () => {
    expect(way({ kind: 'attach', pid: 32 }, 'debug-break')).to.be.a('function');
  });

  it('never on a noninvasive attach, a dump, or when Ctrl-C is asked for', () => {
    expect(way({ kind: 'attach', pid: 32, noninvasive: true }, 'debug-break')).to.equal(undefined);
    expect(way({ kind: 'dump', path: 'x.dmp' }, 'debug-break')).to.equal(undefined);
    expect(way({ kind: 'attach', pid: 32 }, 'ctrl-c')).to.equal(undefined);
  });

  it('a launched program by the pid of its first event, else Ctrl-C', () => {
    const launch: SessionTarget = { kind: 'launch', program: 'a.exe', args: [] };
    // The first event banner cdb prints for a launched program (cdb dialect, FIRST_EVENT_PID_RE).
    const banner = '(128.12c): Break instruction exception - code 80000003 (first chance)';
    expect(way(launch, 'debug-break', banner)).to.be.a('function');
    expect(way(launch, 'debug-break', '')).to.equal(undefined);
  });
});
